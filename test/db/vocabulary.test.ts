// Each closed vocabulary is one list: the table refuses a value outside it, and the API schema offers exactly it.
import t from 'tap'
import { sql } from 'drizzle-orm'
import {
  API_KEY_SCOPES, CHANNEL_TYPES, DELIVERY_STATUSES, DNS_RECORD_TYPES, HTTP_METHODS, INCIDENT_KINDS, INCIDENT_STATUSES, KEYWORD_MODES,
  MONITOR_STATUSES, MONITOR_TYPES, NOTIFICATION_EVENT_TYPES, CHANNEL_EVENT_TYPES, LOCATION_KINDS,
} from '../../src/domain/vocabulary.ts'
import { LocationSchema } from '../../src/locations/schema.ts'
import { rowsOf } from '../../src/db/client.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { CreateApiKeySchema } from '../../src/schemas/api-key.ts'
import { IncidentSchema } from '../../src/schemas/incident.ts'
import { MonitorSchema } from '../../src/monitors/schema.ts'
import {
  CreateChannelSchema, DeliveryDetailSchema, DeliveryListQuery, DeliverySchema, NotificationChannelSchema,
} from '../../src/notifications/schema.ts'
import { NotificationEventSchema } from '../../src/schemas/notification-event.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

t.test('the API schemas enumerate the vocabularies', async (t) => {
  t.same(MonitorSchema.properties.monitor_type.enum, MONITOR_TYPES)
  t.same(MonitorSchema.properties.method.enum, HTTP_METHODS)
  t.same(MonitorSchema.properties.status.enum, MONITOR_STATUSES)
  t.same(MonitorSchema.properties.keyword_mode.enum, KEYWORD_MODES)
  t.same(MonitorSchema.properties.dns_record_type.enum, [...DNS_RECORD_TYPES, null], 'null for the other kinds')
  t.same(IncidentSchema.properties.kind.enum, INCIDENT_KINDS)
  t.same(IncidentSchema.properties.status.enum, INCIDENT_STATUSES)
  t.same(CreateApiKeySchema.properties.scope.enum, API_KEY_SCOPES)
  t.same(NotificationChannelSchema.properties.type.enum, CHANNEL_TYPES)
  t.same((CreateChannelSchema.oneOf as Array<{ properties: { type: { const: string } } }>).map((branch) => branch.properties.type.const), CHANNEL_TYPES,
    'the create body has one object per channel type')
  t.same(NotificationChannelSchema.properties.events.items.enum, CHANNEL_EVENT_TYPES)
  t.same(NotificationEventSchema.properties.type.enum, NOTIFICATION_EVENT_TYPES)
  for (const schema of [DeliverySchema, DeliveryDetailSchema]) {
    t.same(schema.properties.event_type.enum, NOTIFICATION_EVENT_TYPES)
    t.same(schema.properties.status.enum, DELIVERY_STATUSES)
  }
  t.same(DeliveryListQuery.properties.status.enum, DELIVERY_STATUSES)
  t.same(LocationSchema.properties.kind.enum, LOCATION_KINDS)
})

t.test('the tables accept every value of each vocabulary and refuse any other', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth, keyId, user: { id: userId } } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  await app.db.execute(sql`insert into incidents (monitor_id, cause, started_at) values (${monitor.id}, 'test', now())`)
  const columns: Array<[string, string, readonly string[], string]> = [
    // A heartbeat has no url (another CHECK): the url-less kind is tried below.
    ['monitors', 'monitor_type', MONITOR_TYPES.filter((type) => type !== 'heartbeat'), monitor.id],
    ['monitors', 'dns_record_type', DNS_RECORD_TYPES, monitor.id],
    ['monitors', 'method', HTTP_METHODS, monitor.id],
    ['monitors', 'status', MONITOR_STATUSES, monitor.id],
    ['monitors', 'keyword_mode', KEYWORD_MODES, monitor.id],
    ['api_keys', 'scope', API_KEY_SCOPES, keyId],
  ]
  const incident = (await app.db.execute(sql`select id from incidents where monitor_id = ${monitor.id}`))
  const incidentId = (Array.isArray(incident) ? incident : (incident as { rows: Array<{ id: string }> }).rows)[0].id as string
  columns.push(['incidents', 'status', INCIDENT_STATUSES, incidentId], ['incidents', 'kind', INCIDENT_KINDS, incidentId])
  const channel = (await request(app, auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'n', type: 'ntfy', config: { topic: 'x' } },
  })).json().data
  const at = new Date()
  const { eventId } = await enqueueEvent(app.db, {
    orgId: userId, monitorId: null, incidentId: null, channelId: channel.id, at, payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
  })
  const [delivery] = rowsOf<{ id: string }>(await app.db.execute(sql`select id from notification_deliveries where event_id = ${eventId}`))
  columns.push(
    ['notification_channels', 'type', CHANNEL_TYPES, channel.id],
    ['notification_events', 'type', NOTIFICATION_EVENT_TYPES, eventId],
    ['notification_deliveries', 'status', DELIVERY_STATUSES, delivery.id]
  )
  for (const [table, column, values, id] of columns) {
    const set = (value: string) => app.db.execute(sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = ${value} where id = ${id}`)
    for (const value of values) await set(value)
    const refused = await set('not-in-the-list').then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
    t.equal(refused, '23514', `${table}.${column} refuses a value outside its vocabulary (check_violation)`)
  }
  await app.db.execute(sql`update monitors set monitor_type = 'heartbeat', url = null where id = ${monitor.id}`)
  // An array column: every element must be of the vocabulary.
  const setEvents = (values: string[]) => app.db.execute(sql`update notification_channels set events = ${`{${values.join(',')}}`}::text[] where id = ${channel.id}`)
  await setEvents([...CHANNEL_EVENT_TYPES])
  for (const value of CHANNEL_EVENT_TYPES) await setEvents([value])
  const reminder = await setEvents(['incident.reminder']).then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
  t.equal(reminder, '23514', 'no channel chooses reminders in its events: reminder_minutes sends them')
  const refused = await setEvents(['incident.opened', 'not-in-the-list']).then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
  t.equal(refused, '23514', 'notification_channels.events refuses an element outside its vocabulary (check_violation)')
})
