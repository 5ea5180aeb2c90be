// A heartbeat's webhook payloads carry its ping_url as the API shows it (absolute, from the worker's PUBLIC_URL),
// not the path the outbox row keeps, and so match the OpenAPI document's webhook body (`format: uri`). Sent by the
// delivery worker made from the config, to a receiver that verifies each signature. Both databases.
import t from 'tap'
import { recordMissedHeartbeat } from '../../src/checker/heartbeat-deadlines.ts'
import { notificationEvents } from '../../src/db/schema.ts'
import { deliveryOptionsFromConfig } from '../../src/notifications/deliver.ts'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { buildTestApp, makeMonitor, makeUser, request, testConfig } from '../helper.ts'
import { deref } from '../fuzz/schema-arbitrary.ts'
import { ajv, openapiDocument as doc } from '../support/response-validators.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows } from './delivery-helper.ts'

const PUBLIC_URL = 'https://status.example.org'
const ENV = { ALLOW_PRIVATE_TARGETS: 'true', PUBLIC_URL }
const T0 = new Date('2026-05-01T12:00:00.000Z')
const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

// The webhook body as the committed document declares it (webhooks.notificationEvent), its $refs resolved.
const isWebhookBody = ajv.compile(deref(doc.webhooks.notificationEvent.post.requestBody.content['application/json'].schema, doc))

t.test('a heartbeat\'s heartbeat.missed and incident.resolved carry the absolute ping_url the API shows, and match the document', async (t) => {
  const clock = { now: T0 }
  const { app } = await buildTestApp(t, { clock: () => clock.now, env: ENV })
  const { auth } = await makeUser(app)
  let secret = ''
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const created = await request(app, auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, all_monitors: true },
  })
  t.equal(created.statusCode, 201)
  secret = created.json().data.secret
  const beat = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Nightly backup', interval_minutes: 5, grace_minutes: 1 })
  t.match(beat.ping_url, new RegExp(`^${PUBLIC_URL}/ping/`), 'the API shows it absolute')

  // The deadline passes without a ping (down, heartbeat.missed); a pause then closes the incident (incident.resolved).
  clock.now = new Date(T0.getTime() + 6 * 60_000)
  t.equal(await recordMissedHeartbeat(app.db, clock.now), true)
  const paused = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${beat.id}`, payload: { is_active: false } })
  t.equal(paused.statusCode, 200)

  const worker = new DeliveryWorker({ ...deliveryOptionsFromConfig(testConfig(ENV)), db: app.db, log: silent, concurrency: 1 })
  t.teardown(() => worker.stop())
  await worker.runOnce()

  const received = await receiver.waitFor(2)
  t.same(received.map((r) => r.payload?.type), ['heartbeat.missed', 'incident.resolved'])
  for (const { payload, verifiedWith } of received) {
    t.strictSame(verifiedWith, [secret], `${payload.type}: signed (standardwebhooks verifies it)`)
    t.equal(payload.data.monitor.ping_url, beat.ping_url, `${payload.type}: the ping_url the API shows`)
    const valid = isWebhookBody(payload)
    t.ok(valid, `${payload.type}: the document's webhook body${valid ? '' : ` (${ajv.errorsText(isWebhookBody.errors)})`}`)
  }
  t.same((await deliveryRows(app.db)).map((d) => d.status), ['delivered', 'delivered'])

  // The outbox keeps the record as the repositories give it (the path from the server's root): made absolute only as it
  // is sent, with the sender's PUBLIC_URL. That path is not a `uri` the document allows.
  const stored = await app.db.select({ payload: notificationEvents.payload }).from(notificationEvents).orderBy(notificationEvents.createdAt)
  const path = new URL(beat.ping_url).pathname
  t.same(stored.map((row) => (row.payload as any).data.monitor.ping_url), [path, path], 'the outbox rows keep the path')
  const [missed] = received
  t.notOk(isWebhookBody({ ...missed.payload, data: { ...missed.payload.data, monitor: { ...missed.payload.data.monitor, ping_url: path } } }),
    'a relative ping_url does not match the document')
})
