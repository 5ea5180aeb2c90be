// A deleted key is refused (401) on every route of the API, although the process still remembers it. The
// routes come from the app's own route table, so a route added later is covered without anyone listing it.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { deleteApiKey } from '../../src/repositories/api-keys.ts'
import { listIncidents } from '../../src/repositories/incidents.ts'
import { MonitorIdParams } from '../../src/schemas/common.ts'
import { buildTestApp, createTestDatabase, makeKey, makeTeam, makeUser, request, testConfig, validMonitor, type Teardown } from '../helper.ts'
import {
  bodyFor, documented, exampleBody, isOrganizationDelete, keyedRoutes, makeTarget, needsKey, openApi, operation, organizationState, type Owner, urlOf,
  walkedAppEnv,
} from '../support/api-routes.ts'
import { targetServer } from '../support/target-server.ts'

const ownerState = (app: FastifyInstance, owner: Owner) => organizationState(app, owner.orgId)

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
    const send = async (auth: Record<string, string>, id: string, payload: object | undefined) =>
      app.inject({ method: route.method as 'GET', url: urlOf(route, id), headers: auth, ...(payload ? { payload } : {}) })
    const key = await makeKey(app, owner.user.id, 'write', undefined, owner.orgId)
    // The organization's deletion would leave nothing to refuse: the key is remembered by a read of it instead.
    const used = isOrganizationDelete(route)
      ? await app.inject({ url: '/api/v1/organization', headers: key.auth })
      : await send(key.auth, await makeTarget(app, owner, route, receiver.url), await bodyFor(app, doc, route, owner, owner.user.email))
    // Data for every read to return, so that a read that skipped the key check answers 200 with it.
    const target = await makeTarget(app, owner, route, receiver.url)
    const payload = await bodyFor(app, doc, route, owner, owner.user.email)
    const before = await ownerState(app, owner)
    if (!await deleteApiKey(app.db, key.keyId)) throw new Error('the key was not deleted')
    const res = await send(key.auth, target, payload)
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
  const { app } = await buildTestApp(t, { env: await walkedAppEnv(t) })
  // A team, whose owner may delete it.
  const owner = await makeTeam(app)
  const doc = await openApi(app)
  const routes = keyedRoutes(app).map((r) => `${r.method} ${r.path}`)
  t.same(documented(doc).filter((route) => route.includes(' /api/v1/') && needsKey(route)).filter((route) => !routes.includes(route)), [],
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
      schema: { params: MonitorIdParams }, config: { role: 'viewer', keyCheckedByQuery: true },
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
