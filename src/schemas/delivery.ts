// Delivery schemas: one event to one channel, its state, and (in the detail) each attempt.
import { Type, type Static } from '@sinclair/typebox'
import { DELIVERY_STATUSES, NOTIFICATION_EVENT_TYPES } from '../domain/vocabulary.ts'
import { Envelope, Nullable, PageQuery, StringEnum, Timestamp, Uuid } from './common.ts'

const deliveryFields = {
  id: Uuid('Identifier of the delivery'),
  channel_id: Uuid('The channel it goes to'),
  event_id: Uuid('The event it tells: the `webhook-id`, the same on every attempt'),
  event_type: StringEnum(NOTIFICATION_EVENT_TYPES, { description: 'What the event is' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description: '`pending` until its first attempt (or after a retry was asked), `delivered` after a 2xx, `failed` while it will be retried, `dead` once given up',
  }),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far' }),
  next_attempt_at: Nullable(Timestamp('When the next attempt is due; null once delivered or dead')),
  last_status_code: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null before the first, or when no response arrived' })),
  last_error: Nullable(Type.String({ description: 'What went wrong in the last attempt; null when it succeeded or none was made', examples: ['receiver answered 503'] })),
  created_at: Timestamp('When the event was written'),
  delivered_at: Nullable(Timestamp('When a 2xx arrived; null until then')),
}

export const DeliverySchema = Type.Object(deliveryFields, { $id: 'Delivery', title: 'Delivery', additionalProperties: false })

const AttemptSchema = Type.Object({
  at: Timestamp('When the attempt started'),
  status_code: Nullable(Type.Integer({ description: 'HTTP status received; null when no response arrived' })),
  duration_ms: Type.Integer({ minimum: 0, description: 'Milliseconds until the answer (or the failure)' }),
  error: Nullable(Type.String({ description: 'What went wrong; null for a 2xx', examples: ['timeout after 15000 ms'] })),
}, { additionalProperties: false })

export const DeliveryDetailSchema = Type.Object({
  ...deliveryFields,
  attempt_log: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }),
}, { $id: 'DeliveryDetail', title: 'DeliveryDetail', additionalProperties: false })

export const DeliveryEnvelope = Envelope(Type.Ref(DeliveryDetailSchema), 'One delivery with its attempts')
export const DeliveryListEnvelope = Envelope(Type.Array(Type.Ref(DeliverySchema)), 'Deliveries of the channel, newest first')

export const DELIVERY_PAGE_DEFAULT = 50

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries with this status' })),
  ...PageQuery('deliveries', DELIVERY_PAGE_DEFAULT).properties,
}, { additionalProperties: false })

export const DeliveryIdParams = Type.Object({
  id: Uuid('Id of the delivery'),
}, { additionalProperties: false })

export type Delivery = Static<typeof DeliverySchema>
export type DeliveryDetail = Static<typeof DeliveryDetailSchema>
