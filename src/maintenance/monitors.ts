// The monitors' side of maintenance: in_maintenance brought in line with the active windows, at a window's edge or
// when a monitor's labels change, and what opened inside and is still open told once its monitor leaves.
import type { Database } from '../db/client.ts'
import { toMonitor } from '../monitors/presenter.ts'
import { enqueueIncidentEvent } from '../repositories/notification-outbox.ts'
import { markOpeningTold, refreshMaintenance, untoldOpenings } from './repository.ts'

/** The organization's monitors (or the one, locked by the caller) in line with its active windows; late openings told. */
export async function bringMonitorsInLine (tx: Database, orgId: string, now: Date, monitorId?: string): Promise<void> {
  const left = await refreshMaintenance(tx, orgId, now, monitorId)
  for (const { incident, monitor } of await untoldOpenings(tx, left)) {
    const told = await markOpeningTold(tx, incident.id, now)
    await enqueueIncidentEvent(tx, { orgId, monitor: toMonitor(monitor), incident: told, check: null, at: now })
  }
}
