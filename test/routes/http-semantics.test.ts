// HTTP conveniences: 405 with Allow for a known path asked with another method, an empty body with
// Content-Type: application/json where the route takes none, and an update that changes nothing writes nothing.
import t from 'tap'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

// A clock that moves only when told: an update that wrote would show the later time in updated_at.
let now = new Date('2026-11-22T10:00:00.000Z')
const later = () => { now = new Date(now.getTime() + 60_000) }
const { app } = await buildTestApp(t, { clock: () => now })

t.test('a known path with another method: 405, Allow lists its methods, the {error} body, the request id', async (t) => {
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const cases: Array<[string, string, string]> = [
    ['PUT', '/api/v1/monitors', 'GET, HEAD, POST'],
    ['DELETE', '/api/v1/monitors', 'GET, HEAD, POST'],
    ['POST', `/api/v1/monitors/${monitor.id}`, 'GET, HEAD, PATCH, DELETE'],
    ['PUT', `/api/v1/monitors/${monitor.id}/`, 'GET, HEAD, PATCH, DELETE'],
    ['POST', `/api/v1/monitors/${monitor.id}/checks?limit=5`, 'GET, HEAD'],
    ['GET', '/api/v1/deliveries/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/retry', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/api/v1/openapi.json', 'GET, HEAD'],
  ]
  for (const [method, url, allow] of cases) {
    const res = await request(app, auth, { method: method as 'GET', url })
    t.equal(res.statusCode, 405, `${method} ${url}`)
    t.equal(res.headers.allow, allow, `${method} ${url}: Allow`)
    t.same(res.json(), { error: `Method not allowed: use ${allow}` })
    t.match(res.headers['content-type'], /^application\/json/)
    t.ok(res.headers['x-request-id'], 'a request id')
  }
  const head = await request(app, auth, { method: 'HEAD', url: '/api/v1/deliveries/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/retry' })
  t.equal(head.statusCode, 405, 'HEAD where only POST exists')
  t.equal(head.headers.allow, 'POST')
  t.equal(head.body, '', 'no body to a HEAD')
  // The API's rate limit counts it, like any answer.
  const counted = await request(app, auth, { method: 'PUT', url: '/api/v1/monitors' })
  t.ok(counted.headers['x-ratelimit-remaining'], 'rate-limit headers')
})

t.test('an unknown path is still 404, whatever the method', async (t) => {
  const { auth } = await makeUser(app)
  for (const [method, url] of [['GET', '/api/v1/nothing'], ['POST', '/api/v1/monitors/x/y/z'], ['PUT', '/docs/static/nothing.js']]) {
    const res = await request(app, auth, { method: method as 'GET', url })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.notOk(res.headers.allow)
    t.same(res.json(), { error: 'Not found' })
  }
})

t.test('Content-Type: application/json with no body is accepted where the route takes no body', async (t) => {
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const json = { 'content-type': 'application/json' }
  const deleted = await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}`, headers: json })
  t.equal(deleted.statusCode, 204, 'DELETE with Content-Type and no body')
  t.equal((await request(app, auth, { method: 'GET', url: `/api/v1/monitors/${monitor.id}` })).statusCode, 404, 'it is deleted')
  const again = await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}`, headers: { ...json, 'content-length': '0' } })
  t.equal(again.statusCode, 404, 'Content-Length: 0 too; the monitor is gone')

  const channel = await request(app, auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'Hook', type: 'webhook', config: { url: 'https://example.com/hook' } },
  })
  t.equal(channel.statusCode, 201)
  const channelId = channel.json().data.id
  const rotated = await request(app, auth, { method: 'POST', url: `/api/v1/notification-channels/${channelId}/rotate-secret`, headers: json })
  t.equal(rotated.statusCode, 200, 'a POST that takes no body, with Content-Type and no body')
  const removed = await request(app, auth, { method: 'DELETE', url: `/api/v1/notification-channels/${channelId}`, headers: json })
  t.equal(removed.statusCode, 204)

  // A route that takes a body still needs one.
  const other = await makeMonitor(app, auth)
  const empty = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${other.id}`, headers: json })
  t.equal(empty.statusCode, 400)
  t.same(empty.json(), { error: 'Body must not be empty when Content-Type is application/json' })
  const broken = await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${other.id}`, headers: json, payload: '{' })
  t.equal(broken.statusCode, 400, 'a body that is there is still parsed')
})

t.test('PATCH {} changes nothing, not even updated_at; a real change moves it', async (t) => {
  const { auth } = await makeUser(app)
  const created = await makeMonitor(app, auth, { interval_minutes: 10 })
  later()
  const url = `/api/v1/monitors/${created.id}`
  const noop = await request(app, auth, { method: 'PATCH', url, payload: {} })
  t.equal(noop.statusCode, 200)
  t.strictSame(noop.json().data, created, 'the answer is the monitor as it was')
  later()
  const same = await request(app, auth, { method: 'PATCH', url, payload: { name: ` ${created.name} `, interval_minutes: 10, is_active: true, notification_channel_ids: [] } })
  t.strictSame(same.json().data, created, 'values it has already change nothing either')
  t.strictSame((await request(app, auth, { method: 'GET', url })).json().data, created, 'stored as it was')

  later()
  const changed = await request(app, auth, { method: 'PATCH', url, payload: { interval_minutes: 15 } })
  t.equal(changed.json().data.interval_minutes, 15)
  t.equal(changed.json().data.updated_at, now.toISOString(), 'a change sets updated_at')
})

t.test('a channel\'s PATCH {} changes nothing either', async (t) => {
  const { auth } = await makeUser(app)
  const created = await request(app, auth, {
    method: 'POST',
    url: '/api/v1/notification-channels',
    payload: { name: 'Team', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/T0/B0/abc' }, events: ['incident.opened', 'incident.resolved'] },
  })
  t.equal(created.statusCode, 201, created.body)
  const { secret: _none, ...channel } = created.json().data
  const url = `/api/v1/notification-channels/${channel.id}`
  later()
  const noop = await request(app, auth, { method: 'PATCH', url, payload: {} })
  t.equal(noop.statusCode, 200)
  t.strictSame(noop.json().data, channel, '{}')
  later()
  const same = await request(app, auth, {
    method: 'PATCH', url, payload: { name: 'Team', events: ['incident.resolved', 'incident.opened'], is_active: true, config: { webhook_url: channel.config.webhook_url } },
  })
  t.strictSame(same.json().data, channel, 'its own values, the masked secret sent back, the events in another order')
  later()
  const changed = await request(app, auth, { method: 'PATCH', url, payload: { name: 'Team 2' } })
  t.equal(changed.json().data.updated_at, now.toISOString())
})
