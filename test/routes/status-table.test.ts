// Every row of the contract's status table, on every route it applies to, with the exact {error} body.
import http from 'node:http'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { buildApp } from '../../src/app.ts'
import { buildTestApp, createTestDatabase, makeMonitor, makeUser, request, testConfig } from '../helper.ts'

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
const MONITOR = 'Monitor not found'
const CHANNEL = 'Notification channel not found'
const DELIVERY = 'Delivery not found'
const INVALID_MONITOR = { payload: { name: 'x', url: 'https://example.com', interval_minutes: 0 }, error: 'body/interval_minutes must be >= 1' }
const INVALID_CHANNEL = { payload: { name: 'x', type: 'ntfy', config: { topic: 'no spaces' } }, error: 'body/config/topic must be 1-64 letters, digits, - or _' }
interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  payload?: object
  /** A body that breaks a rule, and the error naming it. */
  invalid?: { payload: object, error: string }
  /** The 404 message for an id of nothing of the caller's. */
  notFound?: string
}
const routes = (id: string): Route[] => [
  { method: 'GET', url: '/api/v1/monitors' },
  { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com' }, invalid: INVALID_MONITOR },
  { method: 'GET', url: `/api/v1/monitors/${id}`, notFound: MONITOR },
  { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: { name: 'y' }, invalid: INVALID_MONITOR, notFound: MONITOR },
  { method: 'DELETE', url: `/api/v1/monitors/${id}`, notFound: MONITOR },
  { method: 'GET', url: `/api/v1/monitors/${id}/checks`, notFound: MONITOR },
  { method: 'GET', url: `/api/v1/monitors/${id}/incidents`, notFound: MONITOR },
  { method: 'GET', url: '/api/v1/notification-channels' },
  { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'x', type: 'ntfy', config: { topic: 'x' } }, invalid: INVALID_CHANNEL },
  { method: 'GET', url: `/api/v1/notification-channels/${id}`, notFound: CHANNEL },
  { method: 'PATCH', url: `/api/v1/notification-channels/${id}`, payload: { name: 'y' }, invalid: { payload: { config: { topic: '' } }, error: INVALID_CHANNEL.error }, notFound: CHANNEL },
  { method: 'DELETE', url: `/api/v1/notification-channels/${id}`, notFound: CHANNEL },
  { method: 'POST', url: `/api/v1/notification-channels/${id}/test`, notFound: CHANNEL },
  { method: 'POST', url: `/api/v1/notification-channels/${id}/rotate-secret`, notFound: CHANNEL },
  { method: 'GET', url: `/api/v1/notification-channels/${id}/deliveries`, notFound: CHANNEL },
  { method: 'GET', url: `/api/v1/deliveries/${id}`, notFound: DELIVERY },
  { method: 'POST', url: `/api/v1/deliveries/${id}/retry`, notFound: DELIVERY },
]
const idRoutes = (id: string) => routes(id).filter((r) => r.url.includes(id))
/** Every route on real resources of the caller's: a monitor's id on the monitor routes, a channel's on the others. */
const routesOn = (monitorId: string, channelId: string) =>
  [...routes(monitorId).filter((r) => r.url.includes('/monitors')), ...routes(channelId).filter((r) => !r.url.includes('/monitors'))]

t.test('status table', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const { auth: readAuth } = await makeUser(app, 'read')
  const monitor = await makeMonitor(app, auth)
  const channel = (await request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'c', type: 'ntfy', config: { topic: 'c' } } })).json().data
  const bodyRoutes = routesOn(monitor.id, channel.id).filter((r) => r.payload)

  await t.test('400: a path id that is not a UUID, on every id route', async (t) => {
    for (const route of idRoutes('not-a-uuid')) {
      const res = await request(app, auth, route)
      t.equal(res.statusCode, 400, `${route.method} ${route.url}`)
      t.same(res.json(), { error: 'params/id must be a valid uuid' })
    }
  })

  await t.test('400: malformed JSON and invalid bodies on every body route', async (t) => {
    for (const route of bodyRoutes) {
      const broken = await request(app, auth, { ...route, payload: '{"name": ', headers: { 'content-type': 'application/json' } })
      t.equal(broken.statusCode, 400)
      t.same(broken.json(), { error: 'Body is not valid JSON' })
      const invalid = await request(app, auth, { ...route, payload: route.invalid!.payload })
      t.same([invalid.statusCode, invalid.json()], [400, { error: route.invalid!.error }], `${route.method} ${route.url}`)
    }
  })

  await t.test('401 on every route without a key', async (t) => {
    for (const route of routes(monitor.id)) {
      const res = await app.inject(route)
      t.equal(res.statusCode, 401, `${route.method} ${route.url}`)
      t.same(res.json(), { error: 'Unauthorized' })
      t.equal(res.headers['www-authenticate'], 'Bearer')
    }
  })

  await t.test('403 on every write route with a read key', async (t) => {
    for (const route of routes(monitor.id).filter((r) => r.method !== 'GET')) {
      const res = await request(app, readAuth, route)
      t.equal(res.statusCode, 403, `${route.method} ${route.url}`)
      t.same(res.json(), { error: 'API key does not have access to this resource' })
    }
  })

  await t.test('404 for an unknown monitor, channel or delivery on every id route, and for unknown routes', async (t) => {
    for (const route of idRoutes(UNKNOWN_ID)) {
      const res = await request(app, auth, route)
      t.equal(res.statusCode, 404, `${route.method} ${route.url}`)
      t.same(res.json(), { error: route.notFound })
    }
    for (const [method, url] of [['GET', '/nothing'], ['GET', '/api/v1/nothing'], ['GET', '/api/v2/monitors']] as const) {
      const res = await request(app, auth, { method, url })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      t.same(res.json(), { error: 'Not found' })
    }
    // A known path with a method it does not have: 405 naming the ones it has.
    const put = await request(app, auth, { method: 'PUT', url: `/api/v1/monitors/${monitor.id}` })
    t.equal(put.statusCode, 405)
    t.equal(put.headers.allow, 'GET, HEAD, PATCH, DELETE')
  })

  await t.test('413 for a body over 1 MiB, 415 for a body that is not JSON', async (t) => {
    for (const route of bodyRoutes) {
      const huge = await request(app, auth, { ...route, payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } })
      t.equal(huge.statusCode, 413)
      t.same(huge.json(), { error: 'Request body is too large' })
      for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
        const res = await request(app, auth, { ...route, payload: 'name=x', headers: { 'content-type': type } })
        t.equal(res.statusCode, 415, type)
        t.same(res.json(), { error: 'Unsupported media type' })
      }
    }
  })

  await t.test('every response carries x-request-id', async (t) => {
    const ids = new Set<string>()
    for (const route of routes(monitor.id)) {
      const res = await request(app, auth, { ...route, method: 'GET' })
      t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/)
      ids.add(String(res.headers['x-request-id']))
    }
    t.equal(ids.size, routes(monitor.id).length, 'one id per request')
  })
})

t.test('500: an unexpected failure reveals nothing of it, on every route', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const channel = (await request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'c', type: 'ntfy', config: { topic: 'c' } } })).json().data
  for (const table of ['monitors', 'notification_channels', 'notification_deliveries']) {
    await app.db.execute(sql.raw(`alter table ${table} rename to ${table}_moved`))
  }
  for (const route of routesOn(monitor.id, channel.id)) {
    const res = await request(app, auth, route)
    t.equal(res.statusCode, 500, `${route.method} ${route.url}`)
    t.same(res.json(), { error: 'Internal server error' })
    t.notMatch(res.body, /_moved|relation|select|stack/i)
  }
})

t.test('503: the database is unreachable, on every route and on /readyz', async (t) => {
  const { app, database } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  await database.close()
  for (const route of [...routes(monitor.id), { method: 'GET', url: '/readyz' }]) {
    const res = await request(app, auth, route)
    t.equal(res.statusCode, 503, `${route.method} ${route.url}`)
    t.same(res.json(), { error: 'Service unavailable' })
  }
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'the process itself is alive')
  t.equal((await request(app, auth, { url: '/healthz' })).statusCode, 200, 'also when the probe sends a key')
})

t.test('503 for requests that arrive while the server shuts down; new connections are refused', async (t) => {
  const { handle } = await createTestDatabase(t)
  const app = await buildApp({ config: testConfig(), database: handle, logger: false })
  const { auth } = await makeUser(app)
  // One keep-alive connection, opened before the shutdown: a request on it arrives during the shutdown.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const get = (via: http.Agent | false) => new Promise<{ status: number, connection?: string, body: unknown } | string>((resolve) => {
    http.get(`${address}/api/v1/monitors`, { agent: via, headers: auth }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }))
    }).on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
  })
  let duringShutdown: Awaited<ReturnType<typeof get>> | undefined
  let newConnection: Awaited<ReturnType<typeof get>> | undefined
  // preClose hooks run in order: this one after the app has marked itself as closing and stopped accepting
  // connections (plugins/errors.ts), before the connections it has are closed.
  app.addHook('preClose', async () => {
    duringShutdown = await get(agent)
    newConnection = await get(false)
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  t.match(await get(agent), { status: 200 })
  await app.close()
  t.same(duringShutdown, { status: 503, connection: 'close', body: { error: 'Service unavailable' } }, 'on a connection it has: 503, and the connection closes')
  t.equal(newConnection, 'ECONNREFUSED', 'a new connection is refused')
})
