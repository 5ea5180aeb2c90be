// Dashboard monitor pages through app.inject: the API's validation messages next to the field, create, edit,
// pause, resume, delete, the monitor page's numbers, other users' monitors as 404, and 1,000 monitors.
import type { FastifyInstance } from 'fastify'
import { withMonitorDefaults } from '../../../src/schemas/monitor.ts'
import t from 'tap'
import { insertChecks } from '../../../src/repositories/checks.ts'
import { openIncident, resolveOpenIncident } from '../../../src/repositories/incidents.ts'
import { createMonitor, findMonitor, listMonitors } from '../../../src/repositories/monitors.ts'
import { monitors } from '../../../src/db/schema.ts'
import { buildTestApp, makeKey, request } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

t.test('the monitor forms use the API\'s rules and messages', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const valid = { name: 'Homepage', url: 'https://example.com/', is_active: 'on' }

  const cases: Array<[Record<string, string>, string, string]> = [
    [{ name: '   ' }, 'name', 'Name must be 1-255 characters and not blank'],
    [{ url: 'ftp://example.com' }, 'url', 'URL must be an absolute http or https URL of at most 2048 characters'],
    [{ url: 'https://user:pw@example.com' }, 'url', 'URL must not contain credentials'],
    [{ url: 'http://127.0.0.1:8080/' }, 'url', 'URL: 127.0.0.1 is not a public address'],
    [{ interval_minutes: 'abc' }, 'interval_minutes', 'Check every (minutes) must be integer'],
    [{ interval_minutes: '1.5' }, 'interval_minutes', 'Check every (minutes) must be integer'],
    [{ interval_minutes: '1441' }, 'interval_minutes', 'Check every (minutes) must be &lt;= 1440'],
    [{ expected_status: '99' }, 'expected_status', 'Expected status must be &gt;= 100'],
    [{ timeout_seconds: '61' }, 'timeout_seconds', 'Timeout (seconds) must be &lt;= 60'],
    [{ failure_threshold: '0' }, 'failure_threshold', 'Failures before down must be &gt;= 1'],
    [{ recovery_threshold: '11' }, 'recovery_threshold', 'Successes before up must be &lt;= 10'],
    [{ method: 'TRACE' }, 'method', 'Method must be one of: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
  ]
  for (const [fields, field, message] of cases) {
    const res = await browser.post('/monitors', { ...valid, ...fields })
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    const id = `new-monitor-${field}`
    // The message sits right after the field it names, which points to it and is marked invalid.
    t.match(res.body, new RegExp(`<(input|select) id="${id}"[^>]*aria-describedby="[^"]*${id}-error"[^>]* aria-invalid="true" autofocus>` +
      `(<option.*</select>)?(<p class="hint"[^<]*</p>)?<p class="error" id="${id}-error">${message.replace(/[()]/g, '\\$&')}`), message)
    t.match(res.body, `<a href="#${id}">${message}`, 'and in the summary at the top, linking to it')
    const typed = Object.values(fields)[0]
    if (field !== 'method' && field !== 'name') t.match(res.body, `value="${typed.replace(/&/g, '&amp;')}"`, 'what was typed is kept')
  }
  t.match((await browser.post('/monitors', { ...valid, url: 'http://127.0.0.1/' })).body, 'ALLOW_PRIVATE_TARGETS',
    'the same private-target rule and hint as the API')
  t.same(await listMonitors(app.db, { userId: browser.user.id }), [], 'nothing was created')

  const res = await browser.post('/monitors', {
    name: '  Shop  ',
    url: ' https://shop.example.com/health ',
    method: 'HEAD',
    expected_status: '204',
    interval_minutes: '1',
    timeout_seconds: '5',
    failure_threshold: '3',
    recovery_threshold: '2',
    is_active: 'on',
  })
  t.equal(res.statusCode, 303)
  const id = UUID.exec(res.headers.location as string)![0]
  t.equal(res.headers.location, `/monitors/${id}?notice=monitor-created`)
  const { auth } = await makeKey(app, browser.user.id, 'read')
  t.match((await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data, {
    name: 'Shop',
    url: 'https://shop.example.com/health',
    method: 'HEAD',
    expected_status: 204,
    interval_minutes: 1,
    timeout_seconds: 5,
    failure_threshold: 3,
    recovery_threshold: 2,
    is_active: true,
    status: 'pending',
  }, 'the API sees what the form made, typed')

  const defaults = await browser.post('/monitors', { name: 'Defaults', url: 'https://example.org' })
  const paused = await findMonitor(app.db, { userId: browser.user.id }, UUID.exec(defaults.headers.location as string)![0])
  t.match(paused, { method: 'GET', expected_status: 200, interval_minutes: 5, is_active: false, status: 'paused' },
    'empty fields take the API defaults; an unticked box is false')
})

t.test('edit, pause, resume and delete, only for the owner', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const other = await signedIn(app)
  const monitor = await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'Mine <b>', url: 'https://example.com' }), new Date())

  const edit = await browser.get(`/monitors/${monitor.id}/edit`)
  t.equal(edit.statusCode, 200)
  t.match(edit.body, '<h1>Edit Mine &lt;b&gt;</h1>', 'names are escaped')
  t.match(edit.body, 'id="edit-monitor-interval_minutes" name="interval_minutes" type="number" value="5"')

  const bad = await browser.post(`/monitors/${monitor.id}/edit`, { name: 'Mine', url: 'https://example.com', interval_minutes: '0', is_active: 'on' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, '<p class="error" id="edit-monitor-interval_minutes-error">Check every (minutes) must be &gt;= 1</p>')
  const saved = await browser.post(`/monitors/${monitor.id}/edit`, { name: 'Renamed', url: 'https://example.com/x', interval_minutes: '10', is_active: 'on' })
  t.equal(saved.statusCode, 303)
  t.equal(saved.headers.location, `/monitors/${monitor.id}?notice=monitor-saved`)
  t.match(await findMonitor(app.db, { userId: browser.user.id }, monitor.id), { name: 'Renamed', url: 'https://example.com/x', interval_minutes: 10 })

  const pause = await browser.post(`/monitors/${monitor.id}/pause`, { back: '/?status=up' })
  t.equal(pause.headers.location, '/?status=up&notice=monitor-paused')
  t.equal((await findMonitor(app.db, { userId: browser.user.id }, monitor.id))!.status, 'paused')
  const resume = await browser.post(`/monitors/${monitor.id}/resume`, { back: 'https://evil.example/' })
  t.equal(resume.headers.location, '/?notice=monitor-resumed', 'back is a local path or home')
  t.equal((await findMonitor(app.db, { userId: browser.user.id }, monitor.id))!.status, 'pending')

  // Another user: every page and form of this monitor is a 404 page, exactly like a missing monitor.
  for (const res of [
    await other.get(`/monitors/${monitor.id}`),
    await other.get(`/monitors/${monitor.id}/edit`),
    await other.post(`/monitors/${monitor.id}/edit`, { name: 'Stolen', url: 'https://example.com' }),
    await other.post(`/monitors/${monitor.id}/pause`),
    await other.post(`/monitors/${monitor.id}/delete`),
    await browser.get('/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'),
  ]) {
    t.equal(res.statusCode, 404)
    t.match(res.body, '<h1>Not found</h1>')
    t.match(res.body, 'There is no such monitor, or it is not yours.')
  }
  t.match(await findMonitor(app.db, { userId: browser.user.id }, monitor.id), { name: 'Renamed', status: 'pending' }, 'untouched')
  t.notMatch((await other.get('/')).body, 'Renamed', 'not in the other user\'s list')
  const badId = await browser.get('/monitors/not-a-uuid')
  t.equal(badId.statusCode, 400)
  t.match(badId.body, 'params/id must be a valid uuid')

  const deleted = await browser.post(`/monitors/${monitor.id}/delete`)
  t.equal(deleted.headers.location, '/?notice=monitor-deleted')
  t.equal(await findMonitor(app.db, { userId: browser.user.id }, monitor.id), undefined)
  t.equal((await browser.get(`/monitors/${monitor.id}`)).statusCode, 404)
})

t.test('the monitor page: uptime over 24 hours and 7 days, the chart, incidents with durations, checks', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const monitor = await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'API', url: 'https://api.example.com' }), now)
  const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
  // Last 24 h: 3 up, 1 down. Before that, within 7 days: 4 down. Older than 7 days: ignored.
  await insertChecks(app.db, [
    ...[10, 20, 30].map((m) => ({ monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 100 + m, checkedAt: ago(m) })),
    { monitorId: monitor.id, isUp: false, statusCode: 503, responseTimeMs: 40, checkedAt: ago(40), errorMessage: 'expected status 200, got 503' },
    ...[2000, 3000, 4000, 5000].map((m) => ({ monitorId: monitor.id, isUp: false, statusCode: null, responseTimeMs: 10_000, checkedAt: ago(m), errorMessage: 'timeout after 10000 ms' })),
    { monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 5, checkedAt: ago(8 * 1440) },
  ])
  await openIncident(app.db, monitor.id, { cause: 'timeout after 10000 ms', statusCode: null, startedAt: ago(5000) })
  await resolveOpenIncident(app.db, monitor.id, ago(5000 - 95))
  await openIncident(app.db, monitor.id, { cause: 'expected status 200, got 503', statusCode: 503, startedAt: ago(40) })

  const res = await browser.get(`/monitors/${monitor.id}`)
  t.equal(res.statusCode, 200)
  const body = res.body
  t.match(body, /Last 24 hours<\/p><p class="stat-value">75\.00%<\/p>\s*<p class="muted">3 of 4 checks up<\/p>/)
  t.match(body, /Last 7 days<\/p><p class="stat-value">37\.50%<\/p>\s*<p class="muted">3 of 8 checks up<\/p>/)
  t.match(body, /<svg viewBox="0 0 640 220" role="img" aria-labelledby="rt-title rt-desc">/)
  t.match(body, '9 checks from 2026-11-13 12:00:00 UTC to 2026-11-21 11:50:00 UTC: response time 5 to 10000 ms, 5 down (drawn as squares).')
  t.equal(body.match(/<rect class="down"/g)?.length, 5)
  t.match(body, /<span class="st st-down">Ongoing<\/span><\/td>\s*<td>40 min so far<\/td><td>expected status 200, got 503 <span class="muted">\(HTTP 503\)<\/span>/)
  t.match(body, /<time datetime="2026-11-18T02:15:00.000Z">2026-11-18 02:15:00 UTC<\/time><\/td>\s*<td>1 h 35 min<\/td><td>timeout after 10000 ms<\/td>/)
  t.match(body, '<td>503</td><td>40 ms</td><td>expected status 200, got 503</td>')
  t.notMatch(body, 'Older checks', 'fewer checks than a page')

  const quiet = await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'Quiet', url: 'https://quiet.example.com' }), now)
  const empty = (await browser.get(`/monitors/${quiet.id}`)).body
  t.match(empty, 'No checks yet: the chart appears after the first check.')
  t.match(empty, 'No incidents: this monitor has not been down.')
  t.match(empty, /<p class="stat-value">No checks<\/p>/)
})

t.test('the monitors page: statuses as text, sparklines, filters, problems first', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const up = await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'b up', url: 'https://up.example.com' }), now)
  const down = await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'z down', url: 'https://down.example.com' }), now)
  await createMonitor(app.db, browser.user.id, withMonitorDefaults({ name: 'a paused', url: 'https://p.example.com', is_active: false }), now)
  await app.db.update(monitors).set({ status: 'down' }).where((await import('drizzle-orm')).eq(monitors.id, down.id))
  await insertChecks(app.db, Array.from({ length: 25 }, (_, i) => ({
    monitorId: up.id, isUp: i !== 20, statusCode: 200, responseTimeMs: 100 + i, checkedAt: new Date(now.getTime() - (25 - i) * 60_000),
  })))

  const body = (await browser.get('/')).body
  const order = [...body.matchAll(/<td class="name"><a href="\/monitors\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1])
  t.same(order, ['z down', 'b up', 'a paused'], 'down first, then up, then paused')
  t.match(body, '<span class="st st-down">Down</span>')
  t.match(body, '<span class="st st-paused">Paused</span>')
  t.match(body, /aria-label="Last 20 checks: 1 down, 105 to 124 ms"/, 'the newest 20 checks')
  t.match(body, '<span class="ms">124 ms</span>')
  t.match(body, '<a href="/?status=down">Down <span class="n">1</span></a>')
  t.match(body, 'aria-label="Resume a paused">Resume</button>')
  const filtered = (await browser.get('/?status=down')).body
  t.same([...filtered.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]), ['z down'])
  t.match(filtered, '<a href="/?status=down" aria-current="page">')
  t.equal((await browser.get('/?status=sideways')).statusCode, 400)
})

/**
 * Counts the statements the app sends to its database while `fn` runs, at the driver (PGlite's query,
 * postgres.js's unsafe), through which drizzle and the prepared hot reads both go.
 */
async function countStatements (app: FastifyInstance, fn: () => Promise<unknown>): Promise<number> {
  const client = (app.db as unknown as { $client: object }).$client as Record<string, unknown>
  const method = typeof client.unsafe === 'function' ? 'unsafe' : 'query'
  // The driver's own function: on PostgreSQL the client is a proxy (src/db/client.ts) whose `unsafe` wraps
  // the underlying one, which is what the counter must call and what must be put back.
  const own = Object.getOwnPropertyDescriptor(client, method)
  const raw = (own ? own.value : client[method]) as (...args: unknown[]) => unknown
  let count = 0
  client[method] = function (this: unknown, ...args: unknown[]) { count++; return raw.apply(this, args) }
  try {
    await fn()
  } finally {
    if (own) Object.defineProperty(client, method, own)
    else delete client[method]
  }
  return count
}

t.test('1,000 monitors: one page, as many queries as for one monitor', async (t) => {
  const now = new Date()
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    userId: browser.user.id,
    name: `Monitor ${String(i).padStart(4, '0')}`,
    url: `https://m${i}.example.com/health`,
    status: 'up' as const,
    lastCheckedAt: now,
    createdAt: new Date(now.getTime() - i * 1000),
  }))
  const addChecks = (monitorIds: string[]) => insertChecks(app.db, monitorIds.flatMap((monitorId) => Array.from({ length: 25 }, (_, k) => ({
    monitorId, isUp: true, statusCode: 200, responseTimeMs: 50 + k, checkedAt: new Date(now.getTime() - k * 60_000),
  }))))
  const page = () => app.inject({ url: '/', headers: { cookie: browser.cookie, 'accept-encoding': 'gzip' } })
  const ids = (await app.db.insert(monitors).values(rows.slice(0, 1)).returning({ id: monitors.id })).map((r) => r.id)
  await addChecks(ids)
  await page() // the session's last visit is recorded now, not during the counted requests
  await app.backgroundWrites.settled()
  const forOne = await countStatements(app, page)
  for (let i = 1; i < rows.length; i += 333) {
    const added = (await app.db.insert(monitors).values(rows.slice(i, i + 333)).returning({ id: monitors.id })).map((r) => r.id)
    ids.push(...added)
    await addChecks(added)
  }

  let res = await page()
  const forAll = await countStatements(app, async () => { res = await page() })
  t.equal(forAll, forOne, `the page's statements do not grow with its monitors (${forAll} for 1 and for 1,000)`)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  const { gunzipSync } = await import('node:zlib')
  const html = gunzipSync(res.rawPayload).toString()
  t.equal(html.match(/<svg class="spark"/g)?.length, 1000, 'every monitor has its sparkline')
  t.match(html, '<a href="/" aria-current="page">All <span class="n">1,000</span></a>')
  t.comment(`1,000 monitors: ${(html.length / 1024).toFixed(0)} KiB of HTML, ${(res.rawPayload.length / 1024).toFixed(0)} KiB sent`)
  t.ok(res.rawPayload.length < 200 * 1024, 'compressed to under 200 KiB')
})
