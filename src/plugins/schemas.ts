// The shared $id schemas, registered once for validation and serialization, whether or not the document is served.
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

/** Every $id schema routes refer to (bodies too, so the document names them); the validator compiler gets it too. */
export const SHARED_SCHEMAS = [
  ErrorSchema, MonitorSchema, MonitorListItemSchema, CheckSchema, IncidentSchema,
  NotificationChannelSchema, NotificationChannelWithSecretSchema, DeliverySchema, DeliveryDetailSchema, NotificationEventSchema,
  CreateMonitorSchema, UpdateMonitorSchema, CreateChannelSchema, UpdateChannelSchema, UptimeReportSchema,
]

export default fp(async (app) => {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)
}, { name: 'schemas', fastify: '5.x' })
