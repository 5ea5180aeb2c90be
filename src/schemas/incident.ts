// Incident schemas: a period during which a monitor was down.
import { Type, type Static } from '@sinclair/typebox'
import { INCIDENT_STATUSES } from '../domain/vocabulary.ts'
import { Envelope, Nullable, StringEnum, Timestamp, Uuid } from './common.ts'

export const IncidentSchema = Type.Object({
  id: Uuid('Identifier of the incident'),
  monitor_id: Uuid('The monitor that was down'),
  status: StringEnum(INCIDENT_STATUSES, { description: '`open` while the monitor is down' }),
  cause: Type.String({ description: 'Why it opened, from the first failing check', examples: ['expected status 200, got 503'] }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status of the first failing check; null when no response arrived' })),
  started_at: Timestamp('Time of the first failing check of the run that opened it'),
  resolved_at: Nullable(Timestamp('Time of the check that ended it; null while open')),
  duration_seconds: Nullable(Type.Integer({ minimum: 0, description: 'resolved_at - started_at in seconds; null while open' })),
}, { $id: 'Incident', title: 'Incident', additionalProperties: false })

export const IncidentListEnvelope = Envelope(Type.Array(Type.Ref(IncidentSchema)), 'Incidents, newest started first')

export type Incident = Static<typeof IncidentSchema>
