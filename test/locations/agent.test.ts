// Probe agents (api-contract section 17): an agent location's monitors as its assignments (secrets included, only its
// own), a long poll with ETag, results posted in batches and recorded once per location and slot however often they are
// sent, late ones kept in the history only; and a real agent that checks a real target and keeps its results across a
// lost connection, and across a stop with its results file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { startAgent } from '../../src/agent/agent.ts'
import { openDatabase, rowsOf } from '../../src/db/client.ts'
import { upsertBuiltin } from '../../src/locations/repository.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { createMonitor, updateMonitor } from '../../src/monitors/service.ts'
import { CHANGES_CHANNEL } from '../../src/plugins/changes.ts'
import { PINGWARD_VERSION } from '../../src/runtime/version.ts'
import { buildTestApp, makeUser, request, testAudit, until, usingPostgres, type Teardown } from '../helper.ts'
import { signedIn } from '../dashboard/dashboard-helper.ts'
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.ts'
import { countStatements } from '../support/statements.ts'
import { listen } from '../support/target-server.ts'
import { tcpProxy } from '../support/tcp-proxy.ts'

const METRICS_TOKEN = 'metrics-token-for-the-test-0123'
const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent' } as never

async function setUp (tt: Teardown, clock?: { now: Date }) {
  const { app, DATABASE_URL } = await buildTestApp(tt, { ...(clock && { clock: () => clock.now }), env: { ALLOW_PRIVATE_TARGETS: 'true', METRICS_TOKEN } })
  const seen: Array<string | undefined> = []
  const target = { status: 200, hold: undefined as Promise<void> | undefined }
  const { url } = await listen(tt, http.createServer(async (req, res) => {
    seen.push(req.headers.authorization)
    await target.hold
    res.writeHead(req.headers.authorization === 'Bearer s3cret' ? target.status : 401).end('ok')
  }))
  const owner = await makeUser(app)
  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
    request(app, owner.auth, { method, url: `/api/v1${path}`, ...(payload && { payload }) })
  const agentLocation = async (code: string) => (await api('POST', '/locations', { code, name: code })).json().data.agent_token as string
  const agentCall = (token: string, method: 'GET' | 'POST', path: string, options: { payload?: object, headers?: Record<string, string> } = {}) =>
    app.inject({ method, url: `/api/v1/agent${path}`, headers: { authorization: `Bearer ${token}`, ...options.headers }, ...(options.payload && { payload: options.payload }) })
  return { app, DATABASE_URL, url, target, seen, owner, api, agentLocation, agentCall }
}

/** The assignments' read, as the driver sees it. */
const ASSIGNMENT_READS = /"maintenance_paused" = .* = any\("monitors"."locations"\)\) order by/

/** A long poll of the assignments by the agent of `token`, returned once the server has read those it holds it on. */
async function heldPoll ({ app, agentCall }: Awaited<ReturnType<typeof setUp>>, token: string, etag: string) {
  const reads = countStatements(app.db, ASSIGNMENT_READS)
  try {
    const answer = agentCall(token, 'GET', '/assignments?wait=25', { headers: { 'if-none-match': etag } })
    await until(() => reads.count > 0, 10)
    return { answer }
  } finally {
    reads.stop()
  }
}

const checksOf = async (app: Awaited<ReturnType<typeof setUp>>['app'], monitorId: string) =>
  rowsOf<{ location: string, is_up: boolean, checked_at: string, slot_at: string }>(await app.db.execute(sql`
    select location, is_up, checked_at, slot_at from checks where monitor_id = ${monitorId} order by checked_at`))

t.test('an agent\'s assignments: its location\'s monitors with their secrets, an ETag, a long poll, a token refused at once', async (t) => {
  const { app, api, url, agentLocation, agentCall, owner } = await setUp(t)
  const [lab, elsewhere] = [await agentLocation('lab'), await agentLocation('elsewhere')]
  const made = await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'], request_headers: { authorization: 'Bearer s3cret' }, interval_minutes: 5 })
  t.equal(made.statusCode, 201, made.body)
  const monitor = made.json().data
  t.not(monitor.request_headers.authorization, 'Bearer s3cret', 'the API masks the secret (precondition)')
  await api('POST', '/monitors', { name: 'Blog', url })

  const first = await agentCall(lab, 'GET', '/assignments')
  t.equal(first.statusCode, 200, first.body)
  t.match(first.headers.etag, /^W\/"[\w-]{22}"$/)
  t.same(first.json().data, [{
    monitor_id: monitor.id,
    monitor_type: 'site',
    url,
    interval_minutes: 5,
    slot_origin: monitor.created_at,
    method: 'GET',
    expected_status: 200,
    timeout_seconds: monitor.timeout_seconds,
    keyword: null,
    keyword_mode: 'contains',
    degraded_after_ms: null,
    request_headers: { authorization: 'Bearer s3cret' },
    secret_headers: [],
    request_body: null,
    dns_record_type: null,
    dns_expected: null,
  }], 'only the monitor of its location, the secret unmasked for it')
  t.same((await agentCall(elsewhere, 'GET', '/assignments')).json().data, [], 'another location\'s agent gets none of it')
  t.match((await api('GET', '/locations/lab')).json().data, { online: true, version: null }, 'asking for its work is a sign of the agent\'s life')

  const unchanged = await agentCall(lab, 'GET', '/assignments?wait=1', { headers: { 'if-none-match': first.headers.etag as string } })
  t.same([unchanged.statusCode, unchanged.body, unchanged.headers.etag], [304, '', first.headers.etag], 'unchanged within the wait: 304')
  const polling = agentCall(lab, 'GET', '/assignments?wait=25', { headers: { 'if-none-match': first.headers.etag as string } })
  t.equal((await api('PATCH', `/monitors/${monitor.id}`, { keyword: 'ok' })).statusCode, 200)
  const changed = await polling
  t.equal(changed.statusCode, 200, 'a change answers the long poll')
  t.not(changed.headers.etag, first.headers.etag)
  t.equal(changed.json().data[0].keyword, 'ok')

  t.equal((await agentCall(lab, 'GET', '/assignments?wait=26')).statusCode, 400, 'a wait beyond 25 s')
  t.equal((await request(app, owner.auth, { url: '/api/v1/agent/assignments' })).statusCode, 401, 'an API key is no agent token')
  t.equal((await api('POST', '/locations/lab/rotate-token')).statusCode, 200)
  t.equal((await agentCall(lab, 'GET', '/assignments')).statusCode, 401, 'a rotated token is refused at once')
})

t.test('a long poll waits on the change feed: no query while nothing changes; a change, a pause and a rotated token answer it', async (t) => {
  const setup = await setUp(t)
  const { app, api, url, agentLocation, agentCall, owner } = setup
  const lab = await agentLocation('lab')
  const shop = (await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'] })).json().data
  const etag = (await agentCall(lab, 'GET', '/assignments')).headers.etag as string
  // The notifications of earlier writes may still be on their way: one of our own, sent after them, comes after them.
  const drain = async () => {
    const drained = new Promise<void>((resolve) => {
      const stop = app.changes.subscribe(owner.orgId, (batch) => { if (batch.channels.includes('drained')) { stop(); resolve() } })
    })
    await app.db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify({ owner: owner.orgId, kind: 'channel', id: 'drained' })})`)
    await drained
  }
  await drain()
  const assignmentReads = countStatements(app.db, ASSIGNMENT_READS)
  const quiet = await agentCall(lab, 'GET', '/assignments?wait=2', { headers: { 'if-none-match': etag } })
  assignmentReads.stop()
  t.equal(quiet.statusCode, 304, 'nothing changed: 304 at the end of the wait')
  t.equal(assignmentReads.count, 1, 'the assignments read once, at the start, not again while nothing changed')

  const paused = await heldPoll(setup, lab, etag)
  await api('POST', '/maintenance-windows', { title: 'Pause', monitor_ids: [shop.id], mode: 'pause', ends_at: new Date(Date.now() + 3_600_000).toISOString() })
  const answer = await paused.answer
  t.same([answer.statusCode, answer.json().monitor_ids], [200, []], 'a pause by a maintenance window answers it: nothing to check')

  await drain()
  const rotated = await heldPoll(setup, lab, answer.headers.etag as string)
  t.equal((await api('POST', '/locations/lab/rotate-token')).statusCode, 200, 'the token is rotated')
  t.equal((await rotated.answer).statusCode, 401, 'a token rotated while its poll is held answers it: 401')
})

t.test('a long poll held on one instance is answered by a change made through another', { skip: !usingPostgres && 'PostgreSQL only: one PGlite is one process' }, async (t) => {
  const setup = await setUp(t)
  const { DATABASE_URL, api, url, agentLocation, agentCall, owner } = setup
  const database = await openDatabase({ DATABASE_URL, DATA_DIR: 'memory://' })
  t.teardown(() => database.close())
  const { app: other } = await buildTestApp(t, { database })
  const lab = await agentLocation('lab')
  const shop = (await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'] })).json().data
  const first = await agentCall(lab, 'GET', '/assignments')
  const polling = await heldPoll(setup, lab, first.headers.etag as string)
  t.equal((await request(other, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${shop.id}`, payload: { keyword: 'ok' } })).statusCode, 200)
  const changed = await polling.answer
  t.same([changed.statusCode, changed.json().data[0].keyword], [200, 'ok'], 'the other instance\'s change answers it')
})

t.test('results: a location\'s check of a slot recorded once, its status from them, a late one in the history only', async (t) => {
  const created = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  const clock = { now: created }
  const { app, api, url, agentLocation, agentCall } = await setUp(t, clock)
  const lab = await agentLocation('lab')
  const monitor = (await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'], interval_minutes: 5 })).json().data
  const other = (await api('POST', '/monitors', { name: 'Blog', url })).json().data
  const at = (ms: number) => new Date(created.getTime() + ms).toISOString()
  const result = (slotMs: number, checkedMs: number, isUp: boolean, monitorId = monitor.id) => ({
    monitor_id: monitorId, slot_at: at(slotMs), checked_at: at(checkedMs), is_up: isUp, status_code: isUp ? 200 : 503, response_time_ms: 12, error_message: isUp ? null : 'HTTP 503',
  })
  const post = async (...results: object[]) => {
    const res = await agentCall(lab, 'POST', '/results', { payload: { results } })
    t.equal(res.statusCode, 200, res.body)
    return res.json().data
  }
  const shown = async () => (await api('GET', `/monitors/${monitor.id}`)).json().data

  clock.now = new Date(created.getTime() + 3000)
  // The slot is the one that holds slot_at: an agent's clock a little off still names the same slot.
  t.same(await post(result(1500, 1000, true)), { recorded: 1, late: 0, duplicates: 0, unassigned: 0 })
  t.match(await shown(), { status: 'up', location_states: [{ location: 'lab', status: 'up', last_checked_at: at(1000) }] })
  t.same(await post(result(1500, 1000, true)), { recorded: 0, late: 0, duplicates: 1, unassigned: 0 }, 'the same batch again: recorded once')
  t.same(await post(result(200, 2000, false), result(0, 900, true, other.id)), { recorded: 0, late: 0, duplicates: 1, unassigned: 1 },
    'another check of the same slot, and a monitor the location does not check')
  t.same((await checksOf(app, monitor.id)).map((c) => [c.location, c.is_up, c.slot_at === null ? null : new Date(c.slot_at).toISOString()]), [['lab', true, at(0)]])

  clock.now = new Date(created.getTime() + 10 * 60_000 + 5000)
  t.same(await post(result(10 * 60_000, 10 * 60_000 + 1000, false)), { recorded: 1, late: 0, duplicates: 0, unassigned: 0 })
  t.match(await shown(), { status: 'down', location_states: [{ location: 'lab', status: 'down', last_checked_at: at(10 * 60_000 + 1000) }] })
  t.same(await post(result(40 * 60_000, 10 * 60_000 + 2000, false)), { recorded: 0, late: 0, duplicates: 1, unassigned: 0 },
    'a slot that starts after the check ran is read as the check\'s own: it cannot take a later slot\'s place')
  const incidents = (await api('GET', `/monitors/${monitor.id}/incidents`)).json().data
  t.match(incidents, [{ status: 'open', cause: /lab/ }], 'the quorum of its one location opens the incident')

  t.same(await post(result(5 * 60_000, 5 * 60_000 + 1000, true)), { recorded: 1, late: 1, duplicates: 0, unassigned: 0 },
    'a slot sent late, older than the location\'s latest check')
  t.match(await shown(), { status: 'down', location_states: [{ status: 'down', last_checked_at: at(10 * 60_000 + 1000) }] }, 'it does not move the status')
  const listed = (await api('GET', `/monitors/${monitor.id}/checks?location=lab`)).json().data
  t.same(listed.map((c: { is_up: boolean }) => c.is_up), [false, true, true], 'every recorded check is in the history, newest first')
  t.same(Object.keys(listed[0]).sort(), ['checked_at', 'error_message', 'id', 'is_up', 'monitor_id', 'response_time_ms', 'status_code'],
    'the specification\'s seven fields, no slot')

  const scraped = parsePrometheusText((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body)
  t.same(['counted', 'late', 'duplicate', 'unassigned'].map((result) => sampleValue(scraped, 'pingward_agent_results_total', { location: 'lab', result })), [2, 1, 3, 1],
    '/metrics counts the location\'s results by what became of them')
  const bad = await agentCall(lab, 'POST', '/results', { payload: { results: [{ ...result(0, 0, true), response_time_ms: -1 }] } })
  t.same([bad.statusCode, bad.json().error], [400, 'body/results/0/response_time_ms must be >= 0'])
  t.equal((await agentCall(lab, 'POST', '/results', { payload: { results: [] } })).statusCode, 400, 'an empty batch')
  t.equal((await api('DELETE', '/locations/lab')).statusCode, 204)
  t.equal((await agentCall(lab, 'POST', '/results', { payload: { results: [result(15 * 60_000, 15 * 60_000, true)] } })).statusCode, 401, 'a deleted location\'s token')
})

t.test('an agent checks its monitors with their secrets and keeps its results across a lost connection', async (t) => {
  const { app, api, url, target, seen, agentLocation } = await setUp(t)
  const server = await app.listen({ host: '127.0.0.1', port: 0 })
  const proxy = await tcpProxy(t, { host: '127.0.0.1', port: Number(new URL(server).port) })
  const token = await agentLocation('lab')
  const agent = startAgent({ server: `http://127.0.0.1:${proxy.port}/api/v1`, token, log: silent, allowPrivateTargets: true, sendEveryMs: 20 })
  t.teardown(() => agent.stop())

  const first = (await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'], request_headers: { authorization: 'Bearer s3cret' } })).json().data
  await until(async () => (await checksOf(app, first.id)).length === 1)
  t.equal(seen.at(-1), 'Bearer s3cret', 'the probe sent the secret header')
  t.match((await api('GET', `/monitors/${first.id}`)).json().data, { status: 'up', location_states: [{ location: 'lab', status: 'up' }] })
  t.match((await api('GET', '/locations/lab')).json().data, { online: true, version: /^\d+\.\d+\.\d+/ }, 'the agent said hello')

  // A check under way when the connection goes: its result waits, then is sent once the API is back.
  let release!: () => void
  target.hold = new Promise((resolve) => { release = resolve })
  const count = seen.length
  const second = (await api('POST', '/monitors', { name: 'Cart', url, locations: ['lab'], request_headers: { authorization: 'Bearer s3cret' } })).json().data
  await until(() => seen.length > count)
  await proxy.refuse()
  release()
  await until(() => agent.pending === 1)
  await agent.flush()
  t.equal(agent.pending, 1, 'kept while the API cannot be reached')
  t.equal((await checksOf(app, second.id)).length, 0)
  await proxy.forward()
  await until(async () => {
    await agent.flush()
    return agent.pending === 0
  })
  t.match(await checksOf(app, second.id), [{ location: 'lab', is_up: true }], 'sent when the API is back, recorded once')
  await agent.stop()
})

t.test('an agent stopped before it could send writes its results to its results file; the next one sends them', async (t) => {
  const { app, api, url, target, seen, agentLocation } = await setUp(t)
  const server = await app.listen({ host: '127.0.0.1', port: 0 })
  const proxy = await tcpProxy(t, { host: '127.0.0.1', port: Number(new URL(server).port) })
  const token = await agentLocation('lab')
  const resultsFile = join(t.testdir(), 'results.json')
  const start = () => startAgent({ server: `http://127.0.0.1:${proxy.port}/api/v1`, token, log: silent, allowPrivateTargets: true, sendEveryMs: 20, resultsFile })

  const first = start()
  t.teardown(() => first.stop())
  let release!: () => void
  target.hold = new Promise((resolve) => { release = resolve })
  const monitor = (await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'], request_headers: { authorization: 'Bearer s3cret' } })).json().data
  await until(() => seen.length > 0)
  await proxy.refuse()
  release()
  await until(() => first.pending === 1)
  await first.stop()
  const written = JSON.parse(readFileSync(resultsFile, 'utf8'))
  t.match(written, [{ result: { monitor_id: monitor.id, is_up: true }, queuedAt: Number }], 'the unsent result, written at the stop')
  t.equal((await checksOf(app, monitor.id)).length, 0, 'nothing recorded yet')

  // The next agent's own probe of that slot is held, so that the check recorded can only be the one written.
  target.hold = new Promise((resolve) => { release = resolve })
  t.teardown(() => release())
  await proxy.forward()
  const next = start()
  t.teardown(() => next.stop())
  t.notOk(existsSync(resultsFile), 'read and removed at the start')
  await until(async () => (await checksOf(app, monitor.id)).length > 0)
  const recorded = (await checksOf(app, monitor.id)).map((row) => ({ ...row, checked_at: new Date(row.checked_at).toISOString() }))
  t.match(recorded, [{ location: 'lab', is_up: true, checked_at: written[0].result.checked_at }], 'sent by the next agent')
  release()
  await next.stop()
  t.notOk(existsSync(resultsFile), 'nothing left to write')

  writeFileSync(resultsFile, '{"not": "results"}')
  const third = start()
  t.equal(third.pending, 0, 'a file of something else is ignored')
  await third.stop()
})

t.test('a private address is the agents\' to refuse when only agents check it, the server\'s otherwise, by API and dashboard', async (t) => {
  const { app } = await buildTestApp(t)
  await upsertBuiltin(app.db, 'default', { at: new Date(), version: PINGWARD_VERSION })
  const owner = await makeUser(app)
  const api = (method: 'POST' | 'PATCH', path: string, payload: object) => request(app, owner.auth, { method, url: `/api/v1${path}`, payload })
  t.equal((await api('POST', '/locations', { code: 'office', name: 'Office' })).statusCode, 201)
  const intranet = 'http://10.20.30.40/health'

  const refused = await api('POST', '/monitors', { name: 'Intranet', url: intranet })
  t.equal(refused.statusCode, 400, 'checked by the server\'s own checkers: its policy')
  t.match(refused.json().error, /^body\/url: 10\.20\.30\.40 is not a public address; .*; or check it from agent locations only/)
  t.equal((await api('POST', '/monitors', { name: 'Intranet', url: intranet, locations: ['office', 'default'] })).statusCode, 400, 'a built-in location among them')

  const made = await api('POST', '/monitors', { name: 'Intranet', url: intranet, locations: ['office'] })
  t.equal(made.statusCode, 201, `only the office's agent checks it: ${made.body}`)
  const id = made.json().data.id
  const widened = await api('PATCH', `/monitors/${id}`, { locations: ['office', 'default'] })
  t.equal(widened.statusCode, 400, 'a built-in location added to it later')
  t.match(widened.json().error, /^body\/url: 10\.20\.30\.40 is not a public address/)
  t.equal((await api('PATCH', `/monitors/${id}`, { url: 'http://10.20.30.41/health' })).statusCode, 200, 'another private address, still only agents')

  // The rule is the monitors' service's, in the write's transaction: no caller can skip it.
  const policy = { now: new Date(), audit: testAudit, allowPrivateTargets: false }
  await t.rejects(createMonitor(app.db, { orgId: owner.orgId }, withMonitorDefaults({ name: 'Direct', url: intranet }), policy), { message: /^url: 10\.20\.30\.40 is not a public address/ })
  await t.rejects(updateMonitor(app.db, owner.orgId, id, { locations: ['default'] }, policy), { message: /^url: 10\.20\.30\.41 is not a public address/ }, 'an update below HTTP')
  t.ok(await createMonitor(app.db, { orgId: owner.orgId }, withMonitorDefaults({ name: 'Direct', url: intranet, locations: ['office'] }), policy))
  await t.rejects(updateMonitor(app.db, owner.orgId, id, { url: 'http://user:pw@10.20.30.41/' }, { ...policy, allowPrivateTargets: true }),
    { message: /^url must not contain credentials/ }, 'an allowed private address is still a URL without credentials')

  const browser = await signedIn(app)
  const form = await browser.post('/monitors', { name: 'Intranet 2', url: intranet })
  t.equal(form.statusCode, 400, 'the dashboard\'s form: the same rule')
  t.match(form.body, /is not a public address/)
  t.equal((await browser.post('/locations', { code: 'branch', name: 'Branch' })).statusCode, 303, 'an agent location made in the dashboard')
  const agentsOnly = await browser.post('/monitors', { name: 'Intranet 2', url: intranet, locations_shown: 'on', 'location:branch': 'on' })
  t.equal(agentsOnly.statusCode, 303, 'and only the branch\'s agent checks it')
})

t.test('an agent probes at most its concurrency at once; the others wait their turn', async (t) => {
  const { app, api, agentLocation } = await setUp(t)
  let inFlight = 0
  let most = 0
  const waiting: Array<() => void> = []
  const { url } = await listen(t, http.createServer((_req, res) => {
    most = Math.max(most, ++inFlight)
    waiting.push(() => { inFlight--; res.writeHead(200).end('ok') })
  }))
  const server = await app.listen({ host: '127.0.0.1', port: 0 })
  const token = await agentLocation('lab')
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await api('POST', '/monitors', { name: `m${i}`, url: `${url}/${i}`, locations: ['lab'] })).json().data.id)
  const agent = startAgent({ server, token, log: silent, allowPrivateTargets: true, sendEveryMs: 20, concurrency: 2 })
  t.teardown(() => agent.stop())
  for (let answered = 0; answered < 5; answered++) {
    await until(() => waiting.length > 0)
    t.ok(inFlight <= 2, `${inFlight} in flight`)
    waiting.shift()!()
  }
  t.equal(most, 2, 'two at a time, never more')
  for (const id of ids) await until(async () => (await checksOf(app, id)).length === 1)
  await agent.stop()
})

t.test('assignments by delta: since an answer\'s as_of, only what changed, every id; an agent asks again for what it lacks', async (t) => {
  const created = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  const clock = { now: created }
  const { app, api, url, agentLocation, agentCall } = await setUp(t, clock)
  const lab = await agentLocation('lab')
  const shop = (await api('POST', '/monitors', { name: 'Shop', url: `${url}/shop`, locations: ['lab'] })).json().data
  const blog = (await api('POST', '/monitors', { name: 'Blog', url: `${url}/blog`, locations: ['lab'] })).json().data
  clock.now = new Date(created.getTime() + 5 * 60_000)
  const whole = (await agentCall(lab, 'GET', '/assignments')).json()
  t.same([whole.data.length, whole.monitor_ids.sort(), whole.as_of], [2, [shop.id, blog.id].sort(), clock.now.toISOString()])

  clock.now = new Date(created.getTime() + 7 * 60_000)
  await api('PATCH', `/monitors/${shop.id}`, { keyword: 'ok' })
  const delta = (await agentCall(lab, 'GET', `/assignments?since=${encodeURIComponent(whole.as_of)}`)).json()
  t.same(delta.data.map((a: { monitor_id: string }) => a.monitor_id), [shop.id], 'only the monitor changed since')
  t.same(delta.monitor_ids.sort(), [shop.id, blog.id].sort(), 'and every id')
  t.equal((await agentCall(lab, 'GET', '/assignments?since=yesterday')).statusCode, 400, 'since must be a date-time')

  await app.db.execute(sql`update monitors set maintenance_paused = true where id = ${blog.id}`)
  t.same((await agentCall(lab, 'GET', `/assignments?since=${encodeURIComponent(delta.as_of)}`)).json().monitor_ids, [shop.id], 'a paused monitor is no longer assigned')
  await app.db.execute(sql`update monitors set maintenance_paused = false where id = ${blog.id}`)
  const back = (await agentCall(lab, 'GET', `/assignments?since=${encodeURIComponent(delta.as_of)}`)).json()
  t.same([back.data.map((a: { monitor_id: string }) => a.monitor_id), back.monitor_ids.length], [[shop.id], 2],
    'out of the pause: assigned again, unchanged, so not in the delta (the shop is: a delta reaches a minute back)')
})

t.test('a real agent follows deltas: a monitor out of a pause window, unchanged, is asked for whole and checked', async (t) => {
  const { app, api, url, seen, agentLocation } = await setUp(t)
  const paths: string[] = []
  const { url: counted } = await listen(t, http.createServer((req, res) => { paths.push(req.url!); res.writeHead(200).end('ok') }))
  const server = await app.listen({ host: '127.0.0.1', port: 0 })
  const token = await agentLocation('lab')
  const blog = (await api('POST', '/monitors', { name: 'Blog', url: `${counted}/blog`, locations: ['lab'] })).json().data
  const agent = startAgent({ server, token, log: silent, allowPrivateTargets: true, sendEveryMs: 20 })
  t.teardown(() => agent.stop())
  await until(() => paths.length === 1)
  await app.db.execute(sql`update monitors set maintenance_paused = true where id = ${blog.id}`)
  await api('POST', '/monitors', { name: 'Shop', url, locations: ['lab'], request_headers: { authorization: 'Bearer s3cret' } })
  await until(() => seen.length === 1)
  // Out of the pause and changed long ago: the delta that answers the long poll lists its id without its assignment.
  await app.db.execute(sql`update monitors set maintenance_paused = false, updated_at = now() - interval '1 hour' where id = ${blog.id}`)
  await until(() => paths.length === 2)
  t.same(paths, ['/blog', '/blog'], 'checked again once assigned again')
  await agent.stop()
})
