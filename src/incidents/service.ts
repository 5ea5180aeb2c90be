// The rules of answering an incident (api-contract section 13): one acknowledgement, only while it is open, told
// to the channels that want it; notes at any time. Each change and its audit event in one transaction.
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { ConflictError } from '../domain/errors.ts'
import { toMonitor } from '../monitors/presenter.ts'
import type { IncidentRow } from '../repositories/incidents.ts'
import { enqueueIncidentEvent } from '../repositories/notification-outbox.ts'
import { findIncident, insertNote, setAcknowledged, type NoteRow } from './repository.ts'

/** Who answers: a member of the organization (responder and up), as the audit log names them. */
export interface Responder { orgId: string, audit: AuditContext }

class ResolvedIncidentError extends ConflictError {
  constructor () { super('The incident is resolved: it takes notes, not an acknowledgement') }
}

/**
 * Acknowledges the organization's open incident and tells the channels that want `incident.acknowledged`; a second
 * acknowledgement changes nothing. A `note` is added either way. Undefined when there is no such incident.
 */
export async function acknowledgeIncident (
  db: Database, who: Responder, id: string, note: string | undefined, now: Date
): Promise<IncidentRow | undefined> {
  return atomically(db, async (tx) => {
    const found = await findIncident(tx, who.orgId, id, 'lock')
    if (!found) return undefined
    let { incident } = found
    if (incident.acknowledgedAt === null) {
      if (incident.status === 'resolved') throw new ResolvedIncidentError()
      incident = await setAcknowledged(tx, id, now, who.audit.actor)
      const after = { acknowledged_at: now.toISOString() }
      await recordChange(tx, who.audit, { orgId: who.orgId, action: 'incident.acknowledged', entityId: id, before: null, after, fields: ['acknowledged_at'], at: now })
      await enqueueIncidentEvent(tx, { orgId: who.orgId, monitor: toMonitor(found.monitor), incident, check: null, at: now, about: 'incident.acknowledged' })
    }
    if (note !== undefined) await writeNote(tx, who, id, note, now)
    return incident
  })
}

/** Adds a note to the organization's incident, open or resolved; undefined when there is no such incident. */
export async function addIncidentNote (db: Database, who: Responder, id: string, body: string, now: Date): Promise<NoteRow | undefined> {
  return atomically(db, async (tx) => {
    const found = await findIncident(tx, who.orgId, id)
    return found && writeNote(tx, who, id, body, now)
  })
}

async function writeNote (tx: Database, who: Responder, incidentId: string, body: string, now: Date): Promise<NoteRow> {
  const note = await insertNote(tx, { incidentId, createdAt: now, actor: who.audit.actor, body })
  await recordChange(tx, who.audit, { orgId: who.orgId, action: 'incident.note_added', entityId: incidentId, before: null, after: { note: body }, fields: ['note'], at: now })
  return note
}
