// Monitor routes: shapes, defaults, bounds, strict bodies, ordering, update rules and soft delete.
import t from 'tap'
import { notificationChannels } from '../../src/db/schema.ts'
import { buildTestApp, makeMonitor, makeUser, request, validMonitor } from '../helper.ts'

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const LIST_FIELDS = ['id', 'interval_minutes', 'is_active', 'last_checked_at', 'monitor_type', 'name', 'status', 'url']
const FULL_FIELDS = [...LIST_FIELDS, 'created_at', 'degraded_after_ms', 'dns_expected', 'dns_record_type', 'expected_status', 'grace_minutes',
  'ping_url', 'failure_threshold', 'keyword', 'keyword_mode',
  'labels', 'depends_on', 'in_maintenance', 'locations', 'location_quorum', 'location_states', 'method', 'notification_channel_ids', 'recovery_threshold', 'request_body', 'request_headers', 'secret_headers', 'timeout_seconds', 'tls_expires_at', 'tls_issuer',
  'updated_at'].sort()

t.test('monitor routes', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const post = (payload: unknown) => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: payload as object })

  await t.test('create applies the defaults, answers 201 with Location and the full record', async (t) => {
    const res = await post({ name: '  Homepage  ', url: 'https://example.com' })
    t.equal(res.statusCode, 201)
    t.match(res.headers['content-type'], /^application\/json; charset=utf-8/)
    const body = res.json()
    t.same(Object.keys(body), ['data'])
    const m = body.data
    t.equal(res.headers.location, `/api/v1/monitors/${m.id}`)
    t.same(Object.keys(m).sort(), FULL_FIELDS)
    t.match(m, {
      name: 'Homepage',
      url: 'https://example.com',
      monitor_type: 'site',
      method: 'GET',
      expected_status: 200,
      interval_minutes: 5,
      is_active: true,
      timeout_seconds: 10,
      failure_threshold: 2,
      recovery_threshold: 1,
      keyword: null,
      keyword_mode: 'contains',
      degraded_after_ms: null,
      request_headers: {},
      secret_headers: [],
      request_body: null,
      tls_expires_at: null,
      tls_issuer: null,
      dns_record_type: null,
      dns_expected: null,
      grace_minutes: null,
      ping_url: null,
      locations: [],
      location_quorum: null,
      location_states: [],
      notification_channel_ids: [],
      status: 'pending',
      last_checked_at: null,
    })
    t.match(m.id, /^[0-9a-f-]{36}$/)
    t.match(m.created_at, ISO)
    t.equal(m.created_at, m.updated_at)
    const read = await request(app, auth, { url: `/api/v1/monitors/${m.id}` })
    t.equal(read.statusCode, 200)
    t.same(read.json(), { data: m })
  })

  await t.test('create accepts every writable field', async (t) => {
    const input = {
      name: 'All',
      url: 'http://example.org/x?y=1',
      monitor_type: 'site',
      method: 'HEAD',
      expected_status: 204,
      interval_minutes: 1440,
      is_active: false,
      timeout_seconds: 60,
      failure_threshold: 10,
      recovery_threshold: 10,
    }
    const res = await post(input)
    t.equal(res.statusCode, 201)
    t.match(res.json().data, { ...input, status: 'paused' })
  })

  await t.test('every field bound is enforced with a message that names the field and the rule', async (t) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ interval_minutes: 0 }, 'body/interval_minutes must be >= 1'],
      [{ interval_minutes: 1441 }, 'body/interval_minutes must be <= 1440'],
      [{ interval_minutes: 1.5 }, 'body/interval_minutes must be integer'],
      [{ expected_status: 99 }, 'body/expected_status must be >= 100'],
      [{ expected_status: 600 }, 'body/expected_status must be <= 599'],
      [{ timeout_seconds: 0 }, 'body/timeout_seconds must be >= 1'],
      [{ timeout_seconds: 61 }, 'body/timeout_seconds must be <= 60'],
      [{ failure_threshold: 0 }, 'body/failure_threshold must be >= 1'],
      [{ failure_threshold: 11 }, 'body/failure_threshold must be <= 10'],
      [{ recovery_threshold: 0 }, 'body/recovery_threshold must be >= 1'],
      [{ recovery_threshold: 11 }, 'body/recovery_threshold must be <= 10'],
      [{ method: 'TRACE' }, 'body/method must be one of: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
      [{ method: 'get' }, 'body/method must be one of: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
      [{ monitor_type: 'ping' }, 'body/monitor_type must be one of: site, tcp, dns, heartbeat'],
      [{ name: '' }, 'body/name must be 1-255 characters and not blank'],
      [{ name: '   ' }, 'body/name must be 1-255 characters and not blank'],
      [{ name: 'x'.repeat(256) }, 'body/name must be 1-255 characters and not blank'],
      [{ url: 'ftp://example.com' }, 'body/url must be an absolute http or https URL of at most 2048 characters'],
      [{ url: 'example.com' }, 'body/url must be an absolute http or https URL of at most 2048 characters'],
      [{ url: `https://example.com/${'a'.repeat(2030)}` }, 'body/url must be an absolute http or https URL of at most 2048 characters'],
      [{ url: 'https://user:pw@example.com/' }, 'body/url must not contain credentials'],
      [{ is_active: 'true' }, 'body/is_active must be boolean'],
      [{ interval_minutes: '5' }, 'body/interval_minutes must be integer'],
      [{ name: null }, 'body/name must be string, not null'],
      [{ expected_status: null }, 'body/expected_status must be integer, not null'],
      [{ id: '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d' }, 'body/id is not allowed'],
      [{ status: 'up' }, 'body/status is not allowed'],
      [{ last_checked_at: null }, 'body/last_checked_at is not allowed'],
      [{ created_at: '2026-01-01T00:00:00.000Z' }, 'body/created_at is not allowed'],
      [{ colour: 'red' }, 'body/colour is not allowed'],
      [{ notification_channel_ids: ['x'] }, 'body/notification_channel_ids/0 must be a valid uuid'],
      [{ notification_channel_ids: null }, 'body/notification_channel_ids must be array, not null'],
      [{ notification_channel_ids: [UNKNOWN_ID, UNKNOWN_ID] }, 'body/notification_channel_ids must NOT have duplicate items (items ## 1 and 0 are identical)'],
      [{ notification_channel_ids: [UNKNOWN_ID] }, 'body/notification_channel_ids/0 is not one of your notification channels'],
    ]
    for (const [override, message] of cases) {
      const res = await post(validMonitor(override))
      t.equal(res.statusCode, 400, JSON.stringify(override).slice(0, 60))
      t.same(res.json(), { error: message })
    }
    t.same((await post({ url: 'https://example.com' })).json(), { error: 'body/name is required' })
    t.same((await post({ name: 'x' })).json(), { error: 'body/url is required' })
    t.same((await post([])).json(), { error: 'body must be object' })
    // The bounds themselves are accepted.
    for (const edge of [{ interval_minutes: 1 }, { expected_status: 100 }, { expected_status: 599 }, { timeout_seconds: 1 }, { name: 'x'.repeat(255) }]) {
      t.equal((await post(validMonitor(edge))).statusCode, 201, JSON.stringify(edge).slice(0, 40))
    }
  })

  await t.test('private targets are refused with a hint', async (t) => {
    for (const url of ['http://127.0.0.1/', 'http://localhost:8080/', 'http://10.1.2.3/', 'http://169.254.169.254/latest',
      'http://[::1]/', 'http://0x7f000001/', 'http://192.168.1.1/', 'http://[fd00::1]/', 'http://100.64.0.1/']) {
      const res = await post(validMonitor({ url }))
      t.equal(res.statusCode, 400, url)
      t.match(res.json().error, /^body\/url: .* is not a public address; .*ALLOW_PRIVATE_TARGETS=true/)
    }
  })

  await t.test('list carries exactly the list fields, newest first, and hides deleted monitors', async (t) => {
    const { auth: other } = await makeUser(app)
    const a = await makeMonitor(app, other, { name: 'first' })
    const b = await makeMonitor(app, other, { name: 'second' })
    const c = await makeMonitor(app, other, { name: 'third' })
    const res = await request(app, other, { url: '/api/v1/monitors' })
    t.equal(res.statusCode, 200)
    const items = res.json().data
    t.same(items.map((m: { name: string }) => m.name), ['third', 'second', 'first'])
    for (const item of items) t.same(Object.keys(item).sort(), LIST_FIELDS)
    t.same(items[0], {
      id: c.id, name: 'third', url: c.url, monitor_type: 'site', status: 'pending', is_active: true, interval_minutes: 5, last_checked_at: null,
    })
    t.equal((await request(app, other, { method: 'DELETE', url: `/api/v1/monitors/${b.id}` })).statusCode, 204)
    const after = (await request(app, other, { url: '/api/v1/monitors' })).json().data
    t.same(after.map((m: { id: string }) => m.id), [c.id, a.id])
  })

  await t.test('update takes any subset; {} is a no-op; pausing and resuming set the status', async (t) => {
    const m = await makeMonitor(app, auth)
    const noop = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: {} })
    t.equal(noop.statusCode, 200)
    t.same({ ...noop.json().data, updated_at: m.updated_at }, m)
    const changed = await request(app, auth, {
      method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { name: ' Renamed ', interval_minutes: 1, method: 'POST', expected_status: 201 },
    })
    t.equal(changed.statusCode, 200)
    t.match(changed.json().data, { name: 'Renamed', interval_minutes: 1, method: 'POST', expected_status: 201, url: m.url, status: 'pending' })
    const paused = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: false } })
    t.match(paused.json().data, { is_active: false, status: 'paused' })
    const resumed = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: true } })
    t.match(resumed.json().data, { is_active: true, status: 'pending' })
    const bad = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { interval_minutes: 2000 } })
    t.same(bad.json(), { error: 'body/interval_minutes must be <= 1440' })
    const readOnly = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { status: 'down' } })
    t.same(readOnly.json(), { error: 'body/status is not allowed' })
    const privateUrl = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { url: 'http://127.0.0.1/' } })
    t.equal(privateUrl.statusCode, 400)
    t.equal((await request(app, auth, { url: `/api/v1/monitors/${m.id}` })).json().data.url, m.url, 'refused update changed nothing')
  })

  await t.test('delete answers 204 with no body, then every route with the id is 404', async (t) => {
    const m = await makeMonitor(app, auth)
    const del = await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${m.id}` })
    t.equal(del.statusCode, 204)
    t.equal(del.body, '')
    for (const [method, url] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/checks'], ['GET', '/incidents']] as const) {
      const res = await request(app, auth, { method, url: `/api/v1/monitors/${m.id}${url}`, ...(method === 'PATCH' ? { payload: {} } : {}) })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      t.same(res.json(), { error: 'Monitor not found' })
    }
  })
})

t.test('notification_channel_ids: the caller\'s channels a monitor opts into, in the full record only', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth, user } = await makeUser(app)
  const stranger = await makeUser(app)
  const channel = async (userId: string, name: string) => (await app.db.insert(notificationChannels).values({
    orgId: userId, name, type: 'ntfy', config: { topic: name }, events: ['incident.opened', 'incident.resolved'],
  }).returning())[0].id
  const [a, b, c] = [await channel(user.id, 'a'), await channel(user.id, 'b'), await channel(user.id, 'c')]
  const theirs = await channel(stranger.user.id, 'theirs')
  const sorted = (...ids: string[]) => [...ids].sort()
  const monitorCount = async () => (await request(app, auth, { url: '/api/v1/monitors' })).json().data.length

  const created = await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: validMonitor({ notification_channel_ids: [b, a] }) })
  t.equal(created.statusCode, 201)
  const m = created.json().data
  t.same(m.notification_channel_ids, sorted(a, b), 'in id order')
  t.same((await request(app, auth, { url: `/api/v1/monitors/${m.id}` })).json().data, m, 'read back the same')
  const list = (await request(app, auth, { url: '/api/v1/monitors' })).json().data
  t.notOk('notification_channel_ids' in list[0], 'not in list items')

  const patch = (payload: object) => request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload })
  t.same((await patch({ name: 'renamed' })).json().data.notification_channel_ids, sorted(a, b), 'kept when absent')
  t.same((await patch({ notification_channel_ids: [c, a] })).json().data.notification_channel_ids, sorted(a, c), 'replaced')
  t.same((await patch({ notification_channel_ids: [] })).json().data.notification_channel_ids, [], 'emptied')

  const count = await monitorCount()
  for (const ids of [[theirs], [a, theirs], [UNKNOWN_ID]]) {
    const index = ids.findIndex((id) => id !== a)
    const error = { error: `body/notification_channel_ids/${index} is not one of your notification channels` }
    const refusedCreate = await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: validMonitor({ notification_channel_ids: ids }) })
    t.same([refusedCreate.statusCode, refusedCreate.json()], [400, error], 'create: another user\'s or no channel')
    const refusedUpdate = await patch({ name: 'stolen', notification_channel_ids: ids })
    t.same([refusedUpdate.statusCode, refusedUpdate.json()], [400, error], 'update: another user\'s or no channel')
  }
  t.equal(await monitorCount(), count, 'a refused create made no monitor')
  const after = (await request(app, auth, { url: `/api/v1/monitors/${m.id}` })).json().data
  t.match(after, { name: 'renamed', notification_channel_ids: [] }, 'a refused update changed nothing')
})

t.test('ALLOW_PRIVATE_TARGETS lets an operator monitor private addresses', async (t) => {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  const res = await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: validMonitor({ url: 'http://127.0.0.1:8080/' }) })
  t.equal(res.statusCode, 201)
})
