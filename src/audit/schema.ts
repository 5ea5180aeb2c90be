// The audit log's shapes (api-contract section 12): an event and the list's filters.
import { Type } from '@sinclair/typebox'
import { AUDIT_ACTIONS, AUDIT_ENTITY_TYPES } from '../domain/vocabulary.ts'
import { ActorSchema, Envelope, Nullable, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

export const AuditEventSchema = Type.Object({
  id: Uuid('Id of the event'),
  occurred_at: Timestamp('When the change was made'),
  actor: ActorSchema('Who made the change'),
  action: StringEnum(AUDIT_ACTIONS, { description: '`<entity>.<verb>`', examples: ['monitor.updated'] }),
  entity_type: StringEnum(AUDIT_ENTITY_TYPES, { description: 'What was changed: the part of `action` before the dot', examples: ['monitor'] }),
  entity_id: Uuid('Id of what was changed (a member\'s user id)'),
  changes: Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2, description: '[before, after]' }), {
    description: '`{field: [before, after]}` for each field that changed, as the API shows it: a secret masked (`"…abcd"`), ' +
      'never whole; null before a creation and after a deletion',
    examples: [{ interval_minutes: [5, 1], is_active: [true, false] }],
  }),
  request_id: Nullable(Type.String({ description: 'The request\'s `X-Request-Id`; null outside a request (the CLI)' })),
  ip: Nullable(Type.String({ description: 'The address the request came from (after TRUST_PROXY); null outside a request' })),
}, { $id: 'AuditEvent', title: 'AuditEvent', additionalProperties: false })

export const AuditEventListEnvelope = Envelope(Type.Array(Type.Ref(AuditEventSchema)), 'Audit events, newest first')

export const AuditEventQuery = Type.Object({
  action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only this action' })),
  entity_type: Type.Optional(StringEnum(AUDIT_ENTITY_TYPES, { description: 'Only changes of this kind of entity' })),
  entity_id: Type.Optional(Uuid('Only changes of this entity')),
  actor_id: Type.Optional(Uuid('Only changes by this user or key')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Most events to return' })),
  cursor: Type.Optional(Type.String({
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    'x-error-message': 'must be the cursor of a `Link: rel="next"` header',
    description: 'Where the page starts: taken from the previous page\'s `Link: rel="next"` header',
  })),
}, { additionalProperties: false })
