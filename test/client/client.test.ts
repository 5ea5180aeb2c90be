// A typed client (openapi-fetch + types generated from the OpenAPI document) driving a listening app over HTTP.
import type { AddressInfo } from 'node:net'
import createClient from 'openapi-fetch'
import t from 'tap'
import { buildTestApp, makeUser } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import type { components, paths } from './pingward-api.d.ts'

type Monitor = components['schemas']['Monitor']
type MonitorListItem = components['schemas']['MonitorListItem']
type UpdateBody = paths['/api/v1/monitors/{id}']['patch']['requestBody']['content']['application/json']
type Channel = components['schemas']['NotificationChannel']
type Delivery = components['schemas']['Delivery']
type DeliveryDetail = components['schemas']['DeliveryDetail']
type CreateChannelBody = paths['/api/v1/notification-channels']['post']['requestBody']['content']['application/json']

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

// One listening app on a fresh database for the whole file; each test has its own user. Private targets are
// allowed so that a notification channel can point at a local receiver.
const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
await app.listen({ host: '127.0.0.1', port: 0 })
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

async function clientForNewUser () {
  const { key } = await makeUser(app)
  return createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } })
}

t.test('create, read, update, list and delete a monitor through the typed client', async (t) => {
  const client = await clientForNewUser()
  const created = await client.POST('/api/v1/monitors', {
    body: {
      name: 'Homepage',
      url: 'https://example.com/health',
      interval_minutes: 10,
      method: 'GET',
      keyword: 'ok',
      degraded_after_ms: 1500,
      request_headers: { authorization: 'Bearer 0123456789abcdef' },
    },
  })
  t.equal(created.response.status, 201)
  t.notOk(created.error)
  const monitor: Monitor = created.data!.data
  t.match(monitor.id, UUID)
  t.equal(created.response.headers.get('location'), `/api/v1/monitors/${monitor.id}`)
  t.match(monitor.created_at, ISO)
  t.equal(monitor.updated_at, monitor.created_at)
  t.strictSame(monitor, {
    id: monitor.id,
    name: 'Homepage',
    url: 'https://example.com/health',
    monitor_type: 'site',
    status: 'pending',
    is_active: true,
    interval_minutes: 10,
    last_checked_at: null,
    method: 'GET',
    expected_status: 200,
    timeout_seconds: 10,
    failure_threshold: 2,
    recovery_threshold: 1,
    keyword: 'ok',
    keyword_mode: 'contains',
    degraded_after_ms: 1500,
    request_headers: { authorization: '…cdef' },
    secret_headers: [],
    request_body: null,
    dns_record_type: null,
    dns_expected: null,
    grace_minutes: null,
    ping_url: null,
    tls_expires_at: null,
    tls_issuer: null,
    labels: {},
    depends_on: [],
    in_maintenance: false,
    locations: [],
    location_quorum: null,
    location_states: [],
    notification_channel_ids: [],
    created_at: monitor.created_at,
    updated_at: monitor.updated_at,
  } satisfies Monitor)

  const read = await client.GET('/api/v1/monitors/{id}', { params: { path: { id: monitor.id } } })
  t.equal(read.response.status, 200)
  t.strictSame(read.data?.data, monitor)

  const updated = await client.PATCH('/api/v1/monitors/{id}', {
    params: { path: { id: monitor.id } },
    body: { name: 'Homepage (paused)', is_active: false, expected_status: 204 },
  })
  t.equal(updated.response.status, 200)
  const after: Monitor = updated.data!.data
  t.strictSame({ ...after, updated_at: monitor.updated_at }, {
    ...monitor, name: 'Homepage (paused)', is_active: false, status: 'paused', expected_status: 204,
  })
  t.ok(Date.parse(after.updated_at) >= Date.parse(monitor.updated_at), 'updated_at moves forward')

  const other = await client.POST('/api/v1/monitors', { body: { name: 'API', url: 'https://api.example.com/' } })
  t.equal(other.response.status, 201)

  const list = await client.GET('/api/v1/monitors')
  t.equal(list.response.status, 200)
  const items: MonitorListItem[] = list.data!.data
  t.same(items.map((m) => m.name), ['API', 'Homepage (paused)'], 'newest created first')
  t.strictSame(items[1], {
    id: monitor.id,
    name: 'Homepage (paused)',
    url: 'https://example.com/health',
    monitor_type: 'site',
    status: 'paused',
    is_active: false,
    interval_minutes: 10,
    last_checked_at: null,
  } satisfies MonitorListItem)

  const deleted = await client.DELETE('/api/v1/monitors/{id}', { params: { path: { id: monitor.id } } })
  t.equal(deleted.response.status, 204)
  t.equal(deleted.data, undefined, 'no body')
  t.equal(deleted.error, undefined)

  const gone = await client.GET('/api/v1/monitors/{id}', { params: { path: { id: monitor.id } } })
  t.equal(gone.response.status, 404)
  t.equal(gone.data, undefined)
  t.strictSame(gone.error, { error: 'Monitor not found' } satisfies components['schemas']['ApiError'])
  const again = await client.DELETE('/api/v1/monitors/{id}', { params: { path: { id: monitor.id } } })
  t.equal(again.response.status, 404, 'a second delete is 404 too')
  const remaining = await client.GET('/api/v1/monitors')
  t.same(remaining.data?.data.map((m) => m.name), ['API'])
})

t.test('the generated types reject what the API rejects', async (t) => {
  const client = await clientForNewUser()
  // Each of these is a type error (checked by `npx tsc --noEmit`) and, sent anyway, a 400 from the server.
  // @ts-expect-error url is required
  const noUrl = await client.POST('/api/v1/monitors', { body: { name: 'x' } })
  t.equal(noUrl.response.status, 400)
  t.match(noUrl.error, { error: /url/ })

  // @ts-expect-error interval_minutes is an integer, not a string
  const wrongType = await client.POST('/api/v1/monitors', { body: { name: 'x', url: 'https://example.com', interval_minutes: '5' } })
  t.equal(wrongType.response.status, 400)
  t.match(wrongType.error, { error: /interval_minutes/ })

  // @ts-expect-error a heartbeat has no url
  const beatWithUrl = await client.POST('/api/v1/monitors', { body: { name: 'x', monitor_type: 'heartbeat', url: 'https://example.com' } })
  t.equal(beatWithUrl.response.status, 400)
  t.match(beatWithUrl.error, { error: 'body/url is not allowed' })
  const beat = await client.POST('/api/v1/monitors', { body: { name: 'backup', monitor_type: 'heartbeat', grace_minutes: 5 } })
  t.equal(beat.response.status, 201, 'each kind has its own body type')
  t.match(beat.data?.data.ping_url, /\/ping\//)

  const { data: made } = await client.POST('/api/v1/monitors', { body: { name: 'x', url: 'https://example.com' } })
  const path = { id: made!.data.id }
  // @ts-expect-error is_active is a boolean
  const wrongFlag = await client.PATCH('/api/v1/monitors/{id}', { params: { path }, body: { is_active: 'no' } })
  t.equal(wrongFlag.response.status, 400)
  t.match(wrongFlag.error, { error: /is_active/ })

  // @ts-expect-error status is read-only: not part of the update body
  const readOnlyBody: UpdateBody = { status: 'up' }
  const readOnly = await client.PATCH('/api/v1/monitors/{id}', { params: { path }, body: readOnlyBody })
  t.equal(readOnly.response.status, 400)
  t.match(readOnly.error, { error: /status/ })

  // @ts-expect-error a path id is required
  const noId = client.GET('/api/v1/monitors/{id}', {})
  t.equal((await noId).response.status, 400, 'sent without it, the literal {id} is not a UUID')

  const anonymous = createClient<paths>({ baseUrl })
  const refused = await anonymous.GET('/api/v1/monitors')
  t.equal(refused.response.status, 401)
  t.strictSame(refused.error, { error: 'Unauthorized' })
  const health = await anonymous.GET('/healthz')
  t.strictSame(health.data, { data: { status: 'alive' } })
})

t.test('notification channels and their deliveries through the typed client', async (t) => {
  const client = await clientForNewUser()
  const secrets: string[] = []
  const receiver = await webhookReceiver(t, { verifyWith: () => secrets })
  const created = await client.POST('/api/v1/notification-channels', {
    body: { name: 'On-call', type: 'webhook', config: { url: `${receiver.url}/hook` }, all_monitors: true },
  })
  t.equal(created.response.status, 201)
  const { secret, ...channel } = created.data!.data
  t.match(secret, /^whsec_/)
  secrets.push(secret!)
  t.equal(created.response.headers.get('location'), `/api/v1/notification-channels/${channel.id}`)
  t.strictSame(channel, {
    id: channel.id,
    name: 'On-call',
    type: 'webhook',
    config: { url: `${receiver.url}/hook` },
    events: ['incident.opened', 'incident.resolved'],
    all_monitors: true,
    is_active: true,
    reminder_minutes: null,
    disabled_reason: null,
    created_at: channel.created_at,
    updated_at: channel.updated_at,
  } satisfies Channel)
  const path = { id: channel.id }

  const slack = await client.POST('/api/v1/notification-channels', {
    body: { name: 'Slack', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/abcdefgh1234' } },
  })
  t.same(slack.data?.data.config, { webhook_url: '…1234' }, 'secrets masked')
  t.notOk(slack.data?.data.secret, 'only a webhook has a signing secret')

  const read = await client.GET('/api/v1/notification-channels/{id}', { params: { path } })
  t.strictSame(read.data?.data, channel)
  const updated = await client.PATCH('/api/v1/notification-channels/{id}', { params: { path }, body: { events: ['incident.opened'] } })
  t.same(updated.data?.data.events, ['incident.opened'])
  const list = await client.GET('/api/v1/notification-channels')
  t.same(list.data?.data.map((c: Channel) => c.name), ['Slack', 'On-call'])

  const monitor = await client.POST('/api/v1/monitors', {
    body: { name: 'Shop', url: 'https://example.com', notification_channel_ids: [slack.data!.data.id] },
  })
  t.same(monitor.data?.data.notification_channel_ids, [slack.data!.data.id])

  const tested = await client.POST('/api/v1/notification-channels/{id}/test', { params: { path } })
  t.equal(tested.response.status, 200)
  const delivery: DeliveryDetail = tested.data!.data
  t.match(delivery, { channel_id: channel.id, event_type: 'test', status: 'delivered', attempts: 1 })
  t.equal(receiver.received[0].verifiedWith.length, 1, 'signed')

  const deliveries = await client.GET('/api/v1/notification-channels/{id}/deliveries', { params: { path, query: { limit: 10, status: 'delivered' } } })
  const items: Delivery[] = deliveries.data!.data
  t.same(items.map((d) => d.id), [delivery.id])
  const one = await client.GET('/api/v1/deliveries/{id}', { params: { path: { id: delivery.id } } })
  t.strictSame(one.data?.data, delivery)
  const retried = await client.POST('/api/v1/deliveries/{id}/retry', { params: { path: { id: delivery.id } } })
  t.equal(retried.response.status, 202)
  t.equal(retried.data?.data.status, 'pending')

  const rotated = await client.POST('/api/v1/notification-channels/{id}/rotate-secret', { params: { path } })
  t.match(rotated.data?.data.secret, /^whsec_/)
  t.not(rotated.data?.data.secret, secret)

  // @ts-expect-error a webhook's config is {url}
  const wrongConfig: CreateChannelBody = { name: 'x', type: 'webhook', config: { webhook_url: 'https://example.com' } }
  const refused = await client.POST('/api/v1/notification-channels', { body: wrongConfig })
  t.equal(refused.response.status, 400)
  t.strictSame(refused.error, { error: 'body/config/url is required' })

  const deleted = await client.DELETE('/api/v1/notification-channels/{id}', { params: { path } })
  t.equal(deleted.response.status, 204)
  const gone = await client.GET('/api/v1/deliveries/{id}', { params: { path: { id: delivery.id } } })
  t.strictSame(gone.error, { error: 'Delivery not found' }, 'its deliveries went with it')
})
