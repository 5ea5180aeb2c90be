// Object-level authorization: another user's monitor is a 404 on every id route and nothing changes, and no
// response of any route carries a key, a key hash or anything of another user.
import t from 'tap'
import { eq, sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { apiKeys, checks, incidents, locations } from '../../src/db/schema.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { openIncident } from '../../src/repositories/incidents.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { buildTestApp, makeKey, makeMonitor, makeUser, request } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

t.test('two users never see or touch each other\'s monitors', async (t) => {
  const { app } = await buildTestApp(t)
  const alice = await makeUser(app)
  const bob = await makeUser(app)
  const aliceMonitor = await makeMonitor(app, alice.auth, { name: 'alice' })
  const bobMonitor = await makeMonitor(app, bob.auth, { name: 'bob' })
  await insertChecks(app.db, [{ monitorId: aliceMonitor.id, isUp: true, statusCode: 200, responseTimeMs: 9, checkedAt: new Date() }])
  await openIncident(app.db, aliceMonitor.id, { cause: 'expected status 200, got 500', statusCode: 500, startedAt: new Date() })

  const snapshot = async () => ({
    monitor: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}` })).json(),
    checks: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}/checks` })).json(),
    incidents: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}/incidents` })).json(),
  })
  const before = await snapshot()
  t.equal(before.checks.data.length, 1)
  t.equal(before.incidents.data.length, 1)

  const id = aliceMonitor.id
  for (const route of [
    { method: 'GET', url: `/api/v1/monitors/${id}` },
    { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: { name: 'stolen', is_active: false } },
    { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: {} },
    { method: 'DELETE', url: `/api/v1/monitors/${id}` },
    { method: 'GET', url: `/api/v1/monitors/${id}/checks` },
    { method: 'GET', url: `/api/v1/monitors/${id}/incidents` },
  ] as const) {
    const res = await request(app, bob.auth, route)
    t.equal(res.statusCode, 404, `${route.method} ${route.url}`)
    t.same(res.json(), { error: 'Monitor not found' }, 'the same answer as for a monitor that does not exist')
  }
  t.same(await snapshot(), before, 'alice\'s monitor, checks and incidents are unchanged')

  const bobList = (await request(app, bob.auth, { url: '/api/v1/monitors' })).json().data
  t.same(bobList.map((m: { id: string }) => m.id), [bobMonitor.id])
  const aliceList = (await request(app, alice.auth, { url: '/api/v1/monitors' })).json().data
  t.same(aliceList.map((m: { id: string }) => m.id), [aliceMonitor.id])
  t.notOk(JSON.stringify(bobList).includes(aliceMonitor.id))
})

/** Valid bodies for the status routes, so that another organization's page or report is refused as unknown, not as malformed. */
const STATUS_BODIES: Record<string, object> = {
  'PATCH /api/v1/status-pages/{id}': { title: 'stolen' },
  'POST /api/v1/status-pages/{id}/components': { name: 'probe', manual_status: 'operational' },
  'PATCH /api/v1/status-pages/{id}/components/{component_id}': { name: 'stolen' },
  'PATCH /api/v1/status-reports/{id}': { title: 'stolen' },
  'POST /api/v1/status-reports/{id}/updates': { status: 'identified', message: 'probe' },
}

t.test('no response of any documented route carries a key, a key hash, a channel secret or the other user\'s data', async (t) => {
  // Private targets allowed: the channels' webhooks go to a local receiver (the test route sends).
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const receiver = await targetServer(t, (_req, res) => { res.writeHead(204).end() })
  const people = await Promise.all(['alice', 'bob'].map(async (who) => {
    const write = await makeUser(app)
    const read = await makeKey(app, write.user.id, 'read')
    const monitor = await makeMonitor(app, write.auth, { name: `${who}-monitor-name-${write.user.id.slice(0, 8)}`, url: `https://${who}-private-host.example.com/secret-path` })
    await insertChecks(app.db, [{ monitorId: monitor.id, isUp: false, statusCode: 500, responseTimeMs: 9, checkedAt: new Date(), errorMessage: `${who}-check-error` }])
    const incident = (await openIncident(app.db, monitor.id, { cause: `${who}-incident-cause`, statusCode: 500, startedAt: new Date() }))!
    const botToken = `${who.length}123456:${who}-bot-token-${write.user.id.slice(0, 8)}`
    await request(app, write.auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name: `${who}-telegram`, type: 'telegram', config: { bot_token: botToken, chat_id: '-100123' } },
    })
    const hook = (await request(app, write.auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name: `${who}-channel-name`, type: 'webhook', config: { url: `${receiver.url}/${who}-hook-path` } },
    })).json().data
    const at = new Date()
    const { eventId } = await enqueueEvent(app.db, {
      orgId: write.user.id, monitorId: null, incidentId: null, channelId: hook.id, at, payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
    })
    const [delivery] = rowsOf<{ id: string }>(await app.db.execute(sql`select id from notification_deliveries where event_id = ${eventId}`))
    const window = (await request(app, write.auth, {
      method: 'POST', url: '/api/v1/maintenance-windows', payload: { title: `${who}-window-title`, monitor_ids: [monitor.id], ends_at: new Date(Date.now() + 3_600_000).toISOString() },
    })).json().data
    const page = (await request(app, write.auth, {
      method: 'POST', url: '/api/v1/status-pages', payload: { slug: `${who}-page-${write.user.id.slice(0, 8)}`, title: `${who}-page-title`, published: true },
    })).json().data
    const component = (await request(app, write.auth, {
      method: 'POST', url: `/api/v1/status-pages/${page.id}/components`, payload: { name: `${who}-component-name`, monitor_id: monitor.id },
    })).json().data
    const report = (await request(app, write.auth, {
      method: 'POST', url: '/api/v1/status-reports', payload: { status_page_ids: [page.id], component_ids: [component.id], title: `${who}-report-title`, message: `${who}-report-message` },
    })).json().data
    const location = (await request(app, write.auth, {
      method: 'POST', url: '/api/v1/locations', payload: { code: `${who}-${write.user.id.slice(0, 8)}`, name: `${who}-location-name` },
    })).json().data
    return { who, write, read, monitor, incident, channel: hook, delivery, window, page, component, report, location, channelSecrets: [botToken, hook.secret as string, location.agent_token as string] }
  }))
  /** The id a route's path takes, of this person: their monitor's, incident's, webhook channel's, delivery's, maintenance window's, status page's, report's or location's code. */
  const idOf = (path: string, p: typeof people[number]) =>
    path.includes('/locations/')
      ? p.location.code
      : path.includes('/notification-channels/')
        ? p.channel.id
        : path.includes('/deliveries/')
          ? p.delivery.id
          : path.includes('/incidents/')
            ? p.incident.id
            : path.includes('/maintenance-windows/')
              ? p.window.id
              : path.includes('/status-pages/') ? p.page.id : path.includes('/status-reports/') ? p.report.id : p.monitor.id
  // Everything that identifies a user's data, read from the database itself.
  const hashes = (await app.db.select({ hash: apiKeys.keyHash }).from(apiKeys)).map((row) => row.hash)
  t.equal(hashes.length, 4)
  const tokenHashes = (await app.db.select({ hash: locations.tokenHash }).from(locations)).map((row) => row.hash!)
  t.equal(tokenHashes.length, 2)
  const traces = async (p: typeof people[number]) => [
    p.monitor.id, p.monitor.name, p.monitor.url, p.write.user.id, p.write.user.email, `${p.who}-check-error`, `${p.who}-incident-cause`,
    p.channel.id, `${p.who}-channel-name`, `${p.who}-hook-path`, `${p.who}-telegram`, p.delivery.id, p.window.id, `${p.who}-window-title`,
    p.page.id, p.page.slug, `${p.who}-page-title`, p.component.id, `${p.who}-component-name`, p.report.id, `${p.who}-report-title`, `${p.who}-report-message`,
    p.location.code, `${p.who}-location-name`,
    ...(await app.db.select({ id: checks.id }).from(checks).where(eq(checks.monitorId, p.monitor.id))).map((row) => row.id),
    ...(await app.db.select({ id: incidents.id }).from(incidents).where(eq(incidents.monitorId, p.monitor.id))).map((row) => row.id),
  ]
  const secrets = [...hashes, ...tokenHashes, ...people.flatMap((p) => [p.write.key, p.read.key, ...p.channelSecrets])]

  const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json()
  const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })))
  t.ok(routes.length >= 9, `${routes.length} documented routes`)
  let scanned = 0
  const leaks: string[] = []
  const notFound: string[] = []
  for (const caller of people) {
    const other = people.find((p) => p !== caller)!
    const foreign = await traces(other)
    for (const auth of [caller.write.auth, caller.read.auth, {}]) {
      for (const { method, path } of routes) {
        for (const id of [idOf(path, caller), idOf(path, other)]) {
          const own = id === idOf(path, caller)
          // The caller's own monitor is left as it is, so every later round still has the same data to leak.
          if (own && (method === 'DELETE' || method === 'PATCH')) continue
          const payload = path.startsWith('/api/v1/incidents/') && method === 'POST'
            ? (path.endsWith('/notes') ? { body: 'probe' } : {})
            : path.startsWith('/api/v1/maintenance-windows/') && method !== 'GET' && method !== 'DELETE'
              ? (method === 'PATCH' ? { title: 'stolen' } : {})
              : STATUS_BODIES[`${method} ${path}`] ?? (method === 'POST' ? { name: 'probe', url: 'https://example.com' } : method === 'PATCH' ? { name: 'stolen', is_active: false } : undefined)
          const componentId = (own ? caller : other).component.id
          const res = await app.inject({
            method: method as 'GET', url: path.replace('{id}', id).replace('{code}', id).replace('{component_id}', componentId), headers: auth, ...(payload ? { payload } : {}),
          })
          scanned++
          const where = `${method} ${path} by ${caller.who} on ${own ? 'own' : 'other'} monitor -> ${res.statusCode}`
          for (const text of [...secrets, ...foreign]) if (res.body.includes(text)) leaks.push(`${where} contains ${text}`)
          if (!own && /\{(id|code)\}/.test(path) && Object.keys(auth).length > 0 && (method === 'GET' || auth === caller.write.auth) && res.statusCode !== 404) {
            notFound.push(where)
          }
        }
      }
    }
  }
  // Every surface of the process itself, without a key.
  const everything = [...secrets, ...(await traces(people[0])), ...(await traces(people[1]))]
  for (const url of ['/healthz', '/readyz', '/api/v1/openapi.json', '/docs', '/docs/json', '/', '/api/v1/monitors']) {
    const res = await app.inject({ url })
    scanned++
    for (const text of everything) if (res.body.includes(text)) leaks.push(`GET ${url} without a key contains ${text}`)
  }
  t.ok(scanned > 100, `${scanned} responses scanned`)
  t.same(leaks, [], 'no key, key hash or other user\'s data in any response')
  t.same(notFound, [], 'another user\'s monitor, channel or delivery is a 404 on every id route, for read and write keys')
  t.same(await Promise.all(people.map(async (p) => (await request(app, p.read.auth, { url: `/api/v1/monitors/${p.monitor.id}` })).json().data)),
    people.map((p) => p.monitor), 'both monitors are unchanged')
})
