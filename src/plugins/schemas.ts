// The shared schemas that routes refer to by $id (Type.Ref): registered once, for validation and
// serialization, whether or not the OpenAPI document is served (it names its components after them).
import fp from 'fastify-plugin'
import { ErrorSchema } from '../schemas/common.ts'
import { CheckSchema } from '../schemas/check.ts'
import { IncidentSchema } from '../schemas/incident.ts'
import { CreateMonitorSchema, MonitorListItemSchema, MonitorSchema, UpdateMonitorSchema } from '../schemas/monitor.ts'
import {
  CreateChannelSchema, NotificationChannelSchema, NotificationChannelWithSecretSchema, UpdateChannelSchema,
} from '../schemas/notification-channel.ts'
import { DeliveryDetailSchema, DeliverySchema } from '../schemas/delivery.ts'
import { NotificationEventSchema } from '../schemas/notification-event.ts'
import { UptimeReportSchema } from '../schemas/uptime.ts'

/**
 * Every schema with an $id that a route's schema (or the document's `webhooks`) refers to. The request
 * bodies are among them so that the document names them (`CreateMonitorRequest`); the validator compiler
 * is given the same list (app.ts), as it resolves a body's `$ref` itself.
 */
export const SHARED_SCHEMAS = [
  ErrorSchema, MonitorSchema, MonitorListItemSchema, CheckSchema, IncidentSchema,
  NotificationChannelSchema, NotificationChannelWithSecretSchema, DeliverySchema, DeliveryDetailSchema, NotificationEventSchema,
  CreateMonitorSchema, UpdateMonitorSchema, CreateChannelSchema, UpdateChannelSchema, UptimeReportSchema,
]

export default fp(async (app) => {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)
}, { name: 'schemas', fastify: '5.x' })
