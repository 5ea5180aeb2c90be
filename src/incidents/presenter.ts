// An incident as the API shows it to the people who answer it: the record, and its timeline oldest first.
import { toIncident, type IncidentRow } from '../repositories/incidents.ts'
import type { IncidentDelivery, MaintenanceStay, NoteRow } from './repository.ts'
import type { IncidentDetail, IncidentNote, TimelineEntry } from './schema.ts'

export const presentNote = (row: NoteRow): IncidentNote =>
  ({ id: row.id, at: row.createdAt.toISOString(), actor: row.actor, body: row.body })

// What happened at the same millisecond reads in the order things happen to an incident: an opening told at the
// end of maintenance is told after it ended.
const ORDER: Record<TimelineEntry['kind'], number> = {
  opened: 0, maintenance_ended: 1, notified: 2, maintenance_started: 3, acknowledged: 4, note: 5, resolved: 6,
}

export function presentIncidentDetail (row: IncidentRow, deliveries: IncidentDelivery[], notes: NoteRow[], stays: MaintenanceStay[]): IncidentDetail {
  const incident = toIncident(row)
  const timeline: TimelineEntry[] = [{ at: incident.started_at, kind: 'opened', cause: incident.cause }]
  for (const d of deliveries) {
    timeline.push({
      at: (d.deliveredAt ?? d.createdAt).toISOString(),
      kind: 'notified',
      delivery_id: d.id,
      channel_id: d.channelId,
      channel_name: d.channelName,
      event_type: d.eventType,
      status: d.status,
    })
  }
  if (incident.acknowledged_at && incident.acknowledged_by) {
    timeline.push({ at: incident.acknowledged_at, kind: 'acknowledged', actor: incident.acknowledged_by })
  }
  for (const note of notes) timeline.push({ at: note.createdAt.toISOString(), kind: 'note', note_id: note.id, actor: note.actor, body: note.body })
  // A stay that began before the opening is shown too: it says why the opening was told to no one.
  for (const stay of stays) {
    timeline.push({ at: stay.startedAt.toISOString(), kind: 'maintenance_started', window_id: stay.windowId })
    if (stay.endedAt && (row.resolvedAt === null || stay.endedAt <= row.resolvedAt)) {
      timeline.push({ at: stay.endedAt.toISOString(), kind: 'maintenance_ended', window_id: stay.windowId })
    }
  }
  if (incident.resolved_at) timeline.push({ at: incident.resolved_at, kind: 'resolved' })
  // ISO times in UTC with milliseconds sort as text.
  timeline.sort((a, b) => a.at < b.at ? -1 : a.at > b.at ? 1 : ORDER[a.kind] - ORDER[b.kind])
  return { ...incident, timeline }
}
