// Reminders (api-contract section 13): `incident.reminder` to each channel with `reminder_minutes` that was told of
// an incident still open and unacknowledged, every that many minutes, until someone acknowledges it or it ends.
import type { FastifyBaseLogger } from 'fastify'
import { inArray } from 'drizzle-orm'
import { atomically, type Database } from '../db/client.ts'
import { incidents, monitors } from '../db/schema.ts'
import { toMonitor } from '../monitors/presenter.ts'
import { enqueueIncidentEvent } from '../repositories/notification-outbox.ts'
import { lockDueReminders } from '../repositories/reminders.ts'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'

const EVERY_MS = 30_000

/** Queues every reminder due at `now` in one transaction; returns how many. */
export async function sendDueReminders (db: Database, now: Date): Promise<number> {
  return atomically(db, async (tx) => {
    const due = await lockDueReminders(tx, now)
    if (due.length === 0) return 0
    const incidentIds = [...new Set(due.map((d) => d.incidentId))]
    const incidentRows = new Map((await tx.select().from(incidents).where(inArray(incidents.id, incidentIds))).map((row) => [row.id, row]))
    const monitorIds = [...new Set([...incidentRows.values()].map((row) => row.monitorId))]
    const monitorRows = new Map((await tx.select().from(monitors).where(inArray(monitors.id, monitorIds))).map((row) => [row.id, row]))
    for (const reminder of due) {
      const incident = incidentRows.get(reminder.incidentId)!
      const monitor = toMonitor(monitorRows.get(incident.monitorId)!)
      await enqueueIncidentEvent(tx, { orgId: reminder.orgId, monitor, incident, check: null, at: now, about: 'incident.reminder', channelId: reminder.channelId })
    }
    return due.length
  })
}

/** Sends due reminders every 30 seconds until the returned stop function is called. */
export function startReminders (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  return startPeriodic({
    everyMs: EVERY_MS,
    what: 'reminders',
    log: options.log,
    task: async () => {
      const sent = await sendDueReminders(options.db, options.clock())
      if (sent > 0) options.log.info({ sent }, 'reminders queued')
    },
  })
}
