// A deleted key is refused (401) on every route of the API, although the process still remembers it. The
// routes come from the app's own route table, so a route added later is covered without anyone listing it.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { deleteApiKey } from '../../src/repositories/api-keys.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { listIncidents, openIncident } from '../../src/repositories/incidents.ts'
import { listMonitors } from '../../src/monitors/repository.ts'
import { listChannels } from '../../src/notifications/repository.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { MonitorIdParams } from '../../src/schemas/common.ts'
import { buildTestApp, createTestDatabase, makeKey, makeMonitor, makeUser, request, testConfig, validMonitor, type Teardown } from '../helper.ts'
import { routeTable, type Route } from '../support/route-table.ts'
import { targetServer } from '../support/target-server.ts'

// The API routes that need no key; every other route under /api/v1 must refuse a deleted one.
const PUBLIC = new Set(['GET /api/v1/openapi.json', 'HEAD /api/v1/openapi.json'])

type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>> }
type Owner = Awaited<ReturnType<typeof makeUser>>

const openApi = async (app: FastifyInstance): Promise<OpenApi> => (await app.inject({ url: '/api/v1/openapi.json' })).json()
const documented = (doc: OpenApi): string[] => Object.entries(doc.paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))

const operation = (doc: OpenApi, route: Route) => doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]

/** The example the OpenAPI document gives of the route's request body, if it has one. */
function exampleBody (doc: OpenApi, route: Route): unknown {
  return operation(doc, route)?.requestBody?.content['application/json']?.example
}

/** The routes under /api/v1 that need a key. */
const keyedRoutes = (app: FastifyInstance): Route[] =>
  routeTable(app).filter((r) => r.path.startsWith('/api/v1/') && !PUBLIC.has(`${r.method} ${r.path}`))

/**
 * A fresh resource of the owner for a route's `:id`, by the resource the path names: a monitor, a
 * notification channel (sending to a local receiver) or a delivery; made with data for every read to return.
 */
async function makeTarget (app: FastifyInstance, owner: Owner, route: Route, receiverUrl: string): Promise<string> {
  if (route.path.startsWith('/api/v1/monitors')) {
    const id = (await makeMonitor(app, owner.auth)).id
    await insertChecks(app.db, [{ monitorId: id, isUp: false, statusCode: 500, responseTimeMs: 9, checkedAt: new Date() }])
    await openIncident(app.db, id, { cause: 'expected status 200, got 500', statusCode: 500, startedAt: new Date() })
    return id
  }
  const channel = await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: receiverUrl } },
  })
  const channelId = channel.json().data.id as string
  const at = new Date()
  const { eventId } = await enqueueEvent(app.db, {
    userId: owner.user.id, monitorId: null, incidentId: null, channelId, at, payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
  })
  if (route.path.startsWith('/api/v1/notification-channels')) return channelId
  if (!route.path.startsWith('/api/v1/deliveries')) throw new Error(`no resource known for ${route.path}`)
  return rowsOf<{ id: string }>(await app.db.execute(sql`select id from notification_deliveries where event_id = ${eventId}`))[0].id
}

/** Everything of the owner a route could change: monitors, channels, deliveries. */
async function ownerState (app: FastifyInstance, owner: Owner): Promise<string> {
  const deliveries = await app.db.execute(sql`select d.* from notification_deliveries d join notification_channels c on c.id = d.channel_id
    where c.user_id = ${owner.user.id} order by d.id`)
  return JSON.stringify([
    await listMonitors(app.db, { userId: owner.user.id }), await listChannels(app.db, owner.user.id), rowsOf(deliveries),
  ])
}

interface Outcome {
  route: string
  /** The status of the route with the key, before it was deleted: a success. */
  used: number
  /** The status with the deleted key: 401. */
  refused: number
  /** The 401's WWW-Authenticate header and body. */
  challenge: unknown
  body: unknown
  /** Whether the owner's monitors, channels or deliveries changed. */
  changed: boolean
}

/**
 * Sends each API route once with a fresh key of `owner` (the key is then remembered), deletes the key as
 * the CLI and the dashboard do, then sends the route again with it, on another real resource of the owner
 * (monitor, channel or delivery) so that no 404 can stand in for the 401. Write routes get the example
 * body of the OpenAPI document.
 */
async function withDeletedKeys (t: Teardown, app: FastifyInstance, owner: Owner): Promise<Outcome[]> {
  const doc = await openApi(app)
  // Where the owner's channels send (the test route makes an attempt).
  const receiver = await targetServer(t, (_req, res) => { res.writeHead(204).end() })
  const outcomes: Outcome[] = []
  for (const route of keyedRoutes(app)) {
    const payload = exampleBody(doc, route) as object | undefined
    const send = async (auth: Record<string, string>, id: string) => app.inject({
      method: route.method as 'GET', url: route.path.replace(/:\w+/g, id), headers: auth, ...(payload ? { payload } : {}),
    })
    const key = await makeKey(app, owner.user.id, 'write')
    const used = await send(key.auth, await makeTarget(app, owner, route, receiver.url))
    // Data for every read to return, so that a read that skipped the key check answers 200 with it.
    const target = await makeTarget(app, owner, route, receiver.url)
    const before = await ownerState(app, owner)
    if (!await deleteApiKey(app.db, key.keyId)) throw new Error('the key was not deleted')
    const res = await send(key.auth, target)
    outcomes.push({
      route: `${route.method} ${route.path}`,
      used: used.statusCode,
      refused: res.statusCode,
      challenge: res.headers['www-authenticate'],
      body: route.method === 'HEAD' ? undefined : res.json(),
      changed: await ownerState(app, owner) !== before,
    })
  }
  return outcomes
}

t.test('a deleted key gets 401 on every route of the API', async (t) => {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const owner = await makeUser(app)
  const doc = await openApi(app)
  const routes = keyedRoutes(app).map((r) => `${r.method} ${r.path}`)
  t.same(documented(doc).filter((route) => route.includes(' /api/v1/') && !PUBLIC.has(route)).filter((route) => !routes.includes(route)), [],
    'the route table holds every documented API route')
  for (const route of keyedRoutes(app).filter((r) => operation(doc, r)?.requestBody)) {
    t.ok(exampleBody(doc, route), `${route.method} ${route.path}: the document has an example of its body to send`)
  }
  t.ok(keyedRoutes(app).filter((r) => operation(doc, r)?.requestBody).length >= 4, 'the routes with a body')

  const outcomes = await withDeletedKeys(t, app, owner)
  t.same(outcomes.map((o) => o.route), routes)
  t.ok(outcomes.length >= 11, `${outcomes.length} routes: ${routes.join(', ')}`)
  for (const o of outcomes) {
    t.ok(o.used >= 200 && o.used < 300, `${o.route} succeeds with the key before its deletion (${o.used})`)
    t.equal(o.refused, 401, `${o.route} refuses the deleted key`)
    t.equal(o.challenge, 'Bearer', `${o.route}: WWW-Authenticate`)
    if (!o.route.startsWith('HEAD ')) t.same(o.body, { error: 'Unauthorized' }, `${o.route}: the body`)
    t.notOk(o.changed, `${o.route} with the deleted key changed nothing`)
  }
})

t.test('POST /monitors with channels or an Idempotency-Key refuses a deleted key too, and creates nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const channel = await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: 'https://hooks.example.com/x' } },
  })
  const bodies: Array<[string, Record<string, unknown>, Record<string, string>]> = [
    ['with a channel', validMonitor({ notification_channel_ids: [channel.json().data.id] }), {}],
    ['with an Idempotency-Key', validMonitor(), { 'idempotency-key': '"retry-1"' }],
    ['with both', validMonitor({ notification_channel_ids: [channel.json().data.id] }), { 'idempotency-key': '"retry-2"' }],
  ]
  for (const [what, payload, headers] of bodies) {
    const key = await makeKey(app, owner.user.id, 'write')
    const post = () => request(app, key.auth, { method: 'POST', url: '/api/v1/monitors', payload, headers })
    t.equal((await post()).statusCode, 201, `${what}: created with the key`)
    const before = await ownerState(app, owner)
    await deleteApiKey(app.db, key.keyId)
    // The same request again: a retry that would be a replay, or a new create.
    const res = await post()
    t.equal(res.statusCode, 401, `${what}: the deleted key is refused`)
    t.same(res.json(), { error: 'Unauthorized' })
    t.equal(await ownerState(app, owner), before, `${what}: nothing created`)
  }
})

/** An app with one route more, of the kind this test exists to catch: its read does not check the key. */
async function appWithUncheckedRoute (t: Teardown): Promise<FastifyInstance> {
  const { handle } = await createTestDatabase(t)
  const app = await buildApp({ config: testConfig({ ALLOW_PRIVATE_TARGETS: 'true' }), database: handle, logger: false })
  t.teardown(() => app.close())
  await app.register(async (api) => {
    api.addHook('preParsing', app.requireApiKey)
    // Marked as reading through keyOwner(), but its read goes straight to the monitor's incidents.
    api.get<{ Params: { id: string } }>('/monitors/:id/unchecked-incidents', {
      schema: { params: MonitorIdParams }, config: { keyCheckedByQuery: true },
    }, async (request) => ({ data: await listIncidents(app.db, request.params.id, {}) }))
  }, { prefix: '/api/v1' })
  await app.ready()
  return app
}

t.test('the test catches a route whose read trusts a remembered key', async (t) => {
  const app = await appWithUncheckedRoute(t)
  const outcomes = await withDeletedKeys(t, app, await makeUser(app))
  t.same(outcomes.filter((o) => o.refused !== 401).map((o) => [o.route, o.used, o.refused]), [
    ['GET /api/v1/monitors/:id/unchecked-incidents', 200, 200],
    ['HEAD /api/v1/monitors/:id/unchecked-incidents', 200, 200],
  ], 'only the unchecked route accepts the deleted key')
})
