// The body of a notification event: what a webhook receives, and what every other channel's message is made of.
import { Type, type Static } from '@sinclair/typebox'
import { NOTIFICATION_EVENT_TYPES } from '../domain/vocabulary.ts'
import { CheckSchema } from './check.ts'
import { IncidentSchema } from './incident.ts'
import { MonitorSchema } from './monitor.ts'
import { StringEnum, Timestamp } from './common.ts'

const OrNull = <T extends Parameters<typeof Type.Ref>[0]>(schema: T, description: string) =>
  Type.Union([Type.Ref(schema), Type.Null()], { description })

export const NotificationEventSchema = Type.Object({
  type: StringEnum(NOTIFICATION_EVENT_TYPES, { description: 'What happened' }),
  timestamp: Timestamp('When it happened'),
  data: Type.Object({
    monitor: OrNull(MonitorSchema, 'The monitor as it was then; null for a `test` event'),
    incident: OrNull(IncidentSchema, 'The incident that opened or resolved; null for a `test` event'),
    check: OrNull(CheckSchema, 'The check that opened or resolved it; null for `test`, and when a pause or a delete resolved it'),
  }, { additionalProperties: false }),
}, {
  $id: 'NotificationEvent',
  title: 'NotificationEvent',
  additionalProperties: false,
  description: 'The JSON body of a webhook request. Its id is the `webhook-id` header, the same on every retry.',
})

export type NotificationEvent = Static<typeof NotificationEventSchema>
