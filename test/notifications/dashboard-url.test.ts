// Every event type's webhook body carries `data.dashboard_url`: the monitor's page in the dashboard
// ($PUBLIC_URL/monitors/<id>; the dashboard's home for a test), made from the sender's PUBLIC_URL as it is sent
// (the default one when unset), not kept in the outbox. Sent by the delivery worker made from the config to a
// real receiver that verifies each signature with `standardwebhooks`; the link opens the monitor's page. Both databases.
import t from 'tap'
import { notificationChannels, notificationEvents } from '../../src/db/schema.ts'
import { CHANNEL_EVENT_TYPES, NOTIFICATION_EVENT_TYPES } from '../../src/domain/vocabulary.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { deliveryOptionsFromConfig } from '../../src/notifications/deliver.ts'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import type { ToldEvent } from '../../src/notifications/channels/types.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import type { NotificationEvent } from '../../src/schemas/notification-event.ts'
import { buildTestApp, testAudit, testConfig } from '../helper.ts'
import { signedIn } from '../dashboard/dashboard-helper.ts'
import { deref } from '../fuzz/schema-arbitrary.ts'
import { ajv, openapiDocument as doc } from '../support/response-validators.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { newSecret } from './delivery-helper.ts'
import {
  acknowledgedEvent, coverageEvent, degradedEvent, expiringEvent, reminderEvent, heartbeatMissedEvent, openedEvent, resolvedEvent, testEvent, maintenanceEvent,
} from './support.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

// The webhook body as the committed document declares it (webhooks.notificationEvent), its $refs resolved.
const isWebhookBody = ajv.compile(deref(doc.webhooks.notificationEvent.post.requestBody.content['application/json'].schema, doc))

/** An event as the outbox writes it, about the monitor `id` (a heartbeat's ping_url as the path the outbox keeps). */
function about (told: ToldEvent, id: string): NotificationEvent {
  const { monitor, incident, check } = told.event.data
  return {
    ...told.event,
    data: {
      ...told.event.data,
      monitor: monitor && { ...monitor, id, ping_url: monitor.ping_url && new URL(monitor.ping_url).pathname },
      incident: incident && { ...incident, monitor_id: id },
      check: check && { ...check, monitor_id: id },
    },
  }
}

const CASES: Array<{ name: string, env: Record<string, string>, base: string }> = [
  { name: 'PUBLIC_URL set (its trailing slash dropped)', env: { PUBLIC_URL: 'https://status.example.org/' }, base: 'https://status.example.org' },
  { name: 'PUBLIC_URL unset: the default, http://localhost:PORT', env: { PORT: '3000' }, base: 'http://localhost:3000' },
]

for (const { name, env, base } of CASES) {
  t.test(`${name}: every event type links the monitor's page, signed, as the document says`, async (t) => {
    const ENV = { ALLOW_PRIVATE_TARGETS: 'true', ...env }
    const { app } = await buildTestApp(t, { env: ENV })
    const browser = await signedIn(app)
    const userId = browser.user.id
    const monitor = await createMonitor(app.db, { orgId: userId }, withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com/health' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
    const secret = newSecret()
    const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
    const [channel] = await app.db.insert(notificationChannels).values({
      orgId: userId, name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, events: [...CHANNEL_EVENT_TYPES], allMonitors: true, secret,
    }).returning()

    const events = [
      openedEvent(), resolvedEvent(), acknowledgedEvent(), reminderEvent(), degradedEvent('opened'), heartbeatMissedEvent(), expiringEvent(), testEvent(),
      maintenanceEvent('started'), maintenanceEvent('ended'), coverageEvent('lost'), coverageEvent('restored'),
    ]
      .map((told) => about(told, monitor.id))
    t.same(new Set(events.map((e) => e.type)), new Set(NOTIFICATION_EVENT_TYPES), 'one event of each type')
    for (const event of events) {
      await enqueueEvent(app.db, { orgId: userId, monitorId: event.data.monitor?.id ?? null, incidentId: null, payload: event, at: new Date(), channelId: channel.id })
    }

    const worker = new DeliveryWorker({ ...deliveryOptionsFromConfig(testConfig(ENV)), db: app.db, log: silent, concurrency: 1 })
    t.teardown(() => worker.stop())
    await worker.runOnce()
    const received = await receiver.waitFor(events.length)

    const page = `${base}/monitors/${monitor.id}`
    for (const { payload, verifiedWith } of received) {
      const sent = events.find((e) => e.type === payload?.type)!
      t.strictSame(verifiedWith, [secret], `${sent.type}: signed (standardwebhooks verifies it)`)
      const expected = sent.type === 'test' ? `${base}/` : sent.type.startsWith('maintenance.') ? `${base}/maintenance` : page
      t.equal(payload.data.dashboard_url, expected, `${sent.type}: the dashboard's page`)
      const monitorSent = sent.data.monitor && { ...sent.data.monitor, ping_url: sent.data.monitor.ping_url && `${base}${sent.data.monitor.ping_url}` }
      const answerable = ['incident.opened', 'heartbeat.missed', 'incident.reminder'].includes(sent.type) ||
        (sent.type === 'monitor.degraded' && sent.data.incident?.status === 'open')
      t.match(payload.data.acknowledge_url, answerable ? new RegExp(`^${base}/acknowledge/[A-Za-z0-9_-]{92}$`) : undefined,
        `${sent.type}: ${answerable ? 'a one-click acknowledge link' : 'no acknowledge link'}`)
      const links = { dashboard_url: payload.data.dashboard_url, ...(answerable && { acknowledge_url: payload.data.acknowledge_url }) }
      t.strictSame(payload, { ...sent, data: { ...sent.data, monitor: monitorSent, ...links } }, `${sent.type}: otherwise the event as written`)
      const valid = isWebhookBody(payload)
      t.ok(valid, `${sent.type}: the document's webhook body${valid ? '' : ` (${ajv.errorsText(isWebhookBody.errors)})`}`)
    }

    const stored = await app.db.select({ payload: notificationEvents.payload }).from(notificationEvents)
    t.notOk(stored.some((row) => 'dashboard_url' in (row.payload as NotificationEvent).data || 'acknowledge_url' in (row.payload as NotificationEvent).data),
      'the outbox keeps no URL: a retry uses the PUBLIC_URL of then')

    // The link is the monitor's page in the dashboard, at the path it has there.
    const opened = await browser.get(new URL(page).pathname)
    t.equal(opened.statusCode, 200)
    t.match(opened.body, '<h1>Shop</h1>')
  })
}
