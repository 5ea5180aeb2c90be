// Incident schemas: a period during which a monitor was down, or degraded (passing, but slower than allowed).
import { Type, type Static } from '@sinclair/typebox'
import { INCIDENT_KINDS, INCIDENT_STATUSES } from '../domain/vocabulary.ts'
import { ActorSchema, Envelope, Nullable, StringEnum, Timestamp, Uuid } from './common.ts'

export const IncidentSchema = Type.Object({
  id: Uuid('Identifier of the incident'),
  monitor_id: Uuid('The monitor that was down or degraded'),
  status: StringEnum(INCIDENT_STATUSES, { description: '`open` while the monitor is down (or degraded, for a `degraded` incident)' }),
  kind: StringEnum(INCIDENT_KINDS, {
    description: '`down`: `failure_threshold` checks in a row failed. `degraded`: `failure_threshold` checks in a row passed but ' +
      'slower than the monitor\'s `degraded_after_ms`; it ends after `recovery_threshold` fast passes in a row, or when the monitor ' +
      'goes down (at the down incident\'s start: the two never overlap). A monitor has at most one open incident of either kind.',
  }),
  cause: Type.String({
    description: 'Why it opened, from the first failing (or slow) check',
    examples: ['expected status 200, got 503', 'response took 9120 ms, degraded after 2000 ms'],
  }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status of the first failing (or slow) check; null when no response arrived' })),
  started_at: Timestamp('Time of the first failing (or slow) check of the run that opened it'),
  resolved_at: Nullable(Timestamp('Time of the check that ended it (a degraded incident ended by a failure: the first failing check); null while open')),
  duration_seconds: Nullable(Type.Integer({ minimum: 0, description: 'resolved_at - started_at in seconds; null while open' })),
  acknowledged_at: Nullable(Timestamp('When someone said they are on it (`POST /incidents/{id}/acknowledge`); null until then')),
  acknowledged_by: Type.Union([ActorSchema('Who acknowledged it'), Type.Null()], { description: 'Who acknowledged it; null until someone does' }),
  during_maintenance: Type.Boolean({ description: 'It opened while its monitor was in a maintenance window, so it was told to no one then' }),
  suppressed_by: Nullable(Uuid('The open incident of a monitor this one depends on, down when this one opened: it was told to no one; null otherwise')),
}, { $id: 'Incident', title: 'Incident', additionalProperties: false })

export const IncidentListEnvelope = Envelope(Type.Array(Type.Ref(IncidentSchema)), 'Incidents, newest started first')

export type Incident = Static<typeof IncidentSchema>
