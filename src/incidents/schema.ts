// The shapes of answering an incident (api-contract section 13): the incident with its timeline, an
// acknowledgement's body, a note.
import { Type, type Static, type TProperties } from '@sinclair/typebox'
import { DELIVERY_STATUSES, NOTIFICATION_EVENT_TYPES } from '../domain/vocabulary.ts'
import { ActorSchema, Envelope, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'
import { IncidentSchema } from '../schemas/incident.ts'

const NOTE_MAX_LENGTH = 10_000

const NoteBody = (description: string) => Type.String({
  minLength: 1,
  maxLength: NOTE_MAX_LENGTH,
  pattern: '\\S',
  'x-error-message': `must be 1-${NOTE_MAX_LENGTH} characters and not blank`,
  description,
  examples: ['Rolling back the 14:02 deploy'],
})

export const IncidentNoteSchema = Type.Object({
  id: Uuid('Id of the note'),
  at: Timestamp('When it was written'),
  actor: ActorSchema('Who wrote it'),
  body: NoteBody('What they wrote'),
}, { $id: 'IncidentNote', title: 'IncidentNote', additionalProperties: false })

const entry = <K extends string, P extends TProperties>(kind: K, description: string, properties: P) => Type.Object({ at: Timestamp('When it happened'), kind: Type.Literal(kind), ...properties }, { additionalProperties: false, description })

const TimelineEntrySchema = Type.Union([
  entry('opened', 'The incident opened: the first failing (or slow) check', {
    cause: Type.String({ description: 'Why, from that check' }),
  }),
  entry('notified', 'A channel was told of the incident: one entry per delivery, at its delivery (or its queueing, while not delivered)', {
    delivery_id: Uuid('The delivery (`GET /deliveries/{id}`)'),
    channel_id: Uuid('The channel it went to'),
    channel_name: Type.String({ description: 'The channel\'s name' }),
    event_type: StringEnum(NOTIFICATION_EVENT_TYPES, { description: 'What it told' }),
    status: StringEnum(DELIVERY_STATUSES, { description: 'Where the delivery is: `delivered`, or still `pending`, `failed` (retried) or `dead`' }),
  }),
  entry('acknowledged', 'Someone said they are on it', { actor: ActorSchema('Who acknowledged it') }),
  entry('note', 'A note someone wrote', { note_id: Uuid('Id of the note'), actor: ActorSchema('Who wrote it'), body: Type.String({ description: 'What they wrote' }) }),
  entry('maintenance_started', 'A maintenance window covering the monitor began', { window_id: Uuid('The maintenance window') }),
  entry('maintenance_ended', 'A maintenance window covering the monitor ended', { window_id: Uuid('The maintenance window') }),
  entry('resolved', 'The incident ended', {}),
], { description: 'One thing that happened to the incident; `kind` says what, and which fields come with it' })

export const IncidentDetailSchema = Type.Object({
  ...IncidentSchema.properties,
  timeline: Type.Array(TimelineEntrySchema, { description: 'What happened to the incident, oldest first' }),
}, { $id: 'IncidentDetail', title: 'IncidentDetail', additionalProperties: false, description: 'An incident and its timeline' })

export const IncidentDetailEnvelope = Envelope(Type.Ref(IncidentDetailSchema), 'The incident and its timeline')
export const IncidentEnvelope = Envelope(Type.Ref(IncidentSchema), 'The incident')
export const IncidentNoteEnvelope = Envelope(Type.Ref(IncidentNoteSchema), 'The note')

export const IncidentParams = Type.Object({ id: Uuid('Id of the incident') }, { additionalProperties: false })

export const AcknowledgeSchema = Type.Object({
  note: Type.Optional(NoteBody('A note to add with the acknowledgement (what you are doing), kept in the timeline')),
}, { $id: 'AcknowledgeIncidentRequest', title: 'AcknowledgeIncidentRequest', additionalProperties: false, examples: [{ note: 'Looking into it' }] })

export const CreateNoteSchema = Type.Object({
  body: NoteBody('What to write on the incident'),
}, { $id: 'CreateIncidentNoteRequest', title: 'CreateIncidentNoteRequest', additionalProperties: false, examples: [{ body: 'Rolling back the 14:02 deploy' }] })

export type IncidentDetail = Static<typeof IncidentDetailSchema>
export type TimelineEntry = Static<typeof TimelineEntrySchema>
export type IncidentNote = Static<typeof IncidentNoteSchema>
