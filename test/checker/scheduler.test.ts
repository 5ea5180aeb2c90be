// The checker against real local HTTP servers, with an injected clock: schedule, status and incidents.
import t, { type Test } from 'tap'
import { eq } from 'drizzle-orm'
import { Checker, START_TICK_MS } from '../../src/checker/scheduler.ts'
import { monitors } from '../../src/db/schema.ts'
import { createProber } from '../../src/checker/probe.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

async function setup (t: Test) {
  const start = new Date('2026-11-21T10:00:00.000Z')
  let now = start
  const { app } = await buildTestApp(t, { clock: () => now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const checker = new Checker({
    db: app.db, clock: () => now, log: app.log, prober: createProber({ allowPrivateTargets: true }), concurrency: 10, confirmDelayMs: 30_000,
  })
  t.teardown(() => checker.stop())
  const { auth } = await makeUser(app)
  const at = (seconds: number) => { now = new Date(start.getTime() + seconds * 1000) }
  const get = async (path: string) => (await request(app, auth, { url: `/api/v1/monitors/${path}` })).json().data
  return { app, auth, checker, at, get, iso: (seconds: number) => new Date(start.getTime() + seconds * 1000).toISOString() }
}

t.test('status moves pending -> up -> down -> up with an incident opened and resolved at the right checks', async (t) => {
  let status = 200
  const { url } = await targetServer(t, (_req, res) => { res.statusCode = status; res.end('ok') })
  const { app, auth, checker, at, get, iso } = await setup(t)
  at(0)
  const m = await makeMonitor(app, auth, { url, interval_minutes: 1, failure_threshold: 2, recovery_threshold: 2 })
  t.equal(m.status, 'pending')

  t.equal(await checker.runOnce(), 1, 'a new monitor is due at once')
  t.match(await get(m.id), { status: 'up', last_checked_at: iso(0) })
  at(59)
  t.equal(await checker.runOnce(), 0, 'not due before its interval')

  status = 503
  at(60)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'up' }, 'one failure is below the threshold')
  t.same(await get(`${m.id}/incidents`), [])
  at(89)
  t.equal(await checker.runOnce(), 0)
  at(90)
  t.equal(await checker.runOnce(), 1, 'the failure is confirmed after the confirmation delay')
  t.match(await get(m.id), { status: 'down', last_checked_at: iso(90) })
  const [open] = await get(`${m.id}/incidents`)
  t.same(open, {
    id: open.id,
    monitor_id: m.id,
    status: 'open',
    kind: 'down',
    cause: 'expected status 200, got 503',
    status_code: 503,
    started_at: iso(60),
    resolved_at: null,
    duration_seconds: null,
    acknowledged_at: null,
    acknowledged_by: null,
    during_maintenance: false,
    suppressed_by: null,
  })

  at(150)
  t.equal(await checker.runOnce(), 1, 'a down monitor is checked every interval')
  t.equal((await get(`${m.id}/incidents`)).length, 1, 'still one incident')

  status = 200
  at(210)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'down' }, 'one success is below the recovery threshold')
  at(240)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'up', last_checked_at: iso(240) })
  const [resolved] = await get(`${m.id}/incidents`)
  t.match(resolved, { id: open.id, status: 'resolved', resolved_at: iso(240), duration_seconds: 180 })

  const checks = await get(`${m.id}/checks`)
  t.same(checks.map((c: { checked_at: string, is_up: boolean, status_code: number }) => [c.checked_at, c.is_up, c.status_code]), [
    [iso(240), true, 200], [iso(210), true, 200], [iso(150), false, 503], [iso(90), false, 503], [iso(60), false, 503], [iso(0), true, 200],
  ])
  t.equal(checks[2].error_message, 'expected status 200, got 503')
  t.equal(checks[0].error_message, null)
  t.ok(checks.every((c: { response_time_ms: number }) => Number.isInteger(c.response_time_ms) && c.response_time_ms >= 0))
})

t.test('assertions end to end: the request as configured, degraded while slow, up when fast, down when the keyword is missing', async (t) => {
  let delayMs = 600
  let page = '<h1>Welcome</h1>'
  const seen: Array<{ method?: string, headers: Record<string, unknown>, body: string }> = []
  const { url } = await targetServer(t, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() })
      // The headers come after the delay: that is the response time the check measures.
      setTimeout(() => res.end(page), delayMs)
    })
  })
  const { app, auth, checker, at, get, iso } = await setup(t)
  at(0)
  const m = await makeMonitor(app, auth, {
    url,
    method: 'POST',
    interval_minutes: 1,
    failure_threshold: 1,
    keyword: 'Welcome',
    degraded_after_ms: 500,
    request_headers: { Authorization: 'Bearer 3f9c2a7b1e5d4c8a', 'X-Probe': 'pingward' },
    request_body: '{"ping":true}',
  })
  t.equal(await checker.runOnce(), 1)
  t.match(seen.splice(0), [{ method: 'POST', headers: { authorization: 'Bearer 3f9c2a7b1e5d4c8a', 'x-probe': 'pingward' }, body: '{"ping":true}' }])
  t.match(await get(m.id), { status: 'degraded', last_checked_at: iso(0) })
  const [slow] = await get(`${m.id}/checks`)
  t.match(slow, { is_up: true, status_code: 200, error_message: /^response took \d+ ms, degraded after 500 ms$/ })
  t.ok(slow.response_time_ms >= 600)
  t.equal(slow.error_message, `response took ${slow.response_time_ms} ms, degraded after 500 ms`)
  t.match(await get(`${m.id}/incidents`), [{ kind: 'degraded', status: 'open', cause: slow.error_message, status_code: 200, started_at: iso(0) }],
    'failure_threshold 1: one slow check opens a degraded incident')

  delayMs = 0
  at(60)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'up', last_checked_at: iso(60) })
  t.match((await get(`${m.id}/checks`))[0], { is_up: true, error_message: null })
  t.match(await get(`${m.id}/incidents`), [{ kind: 'degraded', status: 'resolved', resolved_at: iso(60) }], 'a fast check resolves it')

  page = '<h1>Down for maintenance</h1>'
  at(120)
  t.equal(await checker.runOnce(), 1)
  t.match(await get(m.id), { status: 'down' })
  t.match((await get(`${m.id}/checks`))[0], { is_up: false, status_code: 200, error_message: 'keyword "Welcome" not found in the first 1 MiB' })
  t.match(await get(`${m.id}/incidents`), [
    { kind: 'down', status: 'open', cause: 'keyword "Welcome" not found in the first 1 MiB', status_code: 200, started_at: iso(120) },
    { kind: 'degraded', status: 'resolved' },
  ])
})

t.test('timeouts and refused connections are failed checks; threshold 1 opens at once', async (t) => {
  const { url: hanging } = await targetServer(t, () => {})
  const { app, auth, checker, at, get, iso } = await setup(t)
  at(0)
  const slow = await makeMonitor(app, auth, { url: hanging, timeout_seconds: 1, failure_threshold: 1 })
  const refused = await makeMonitor(app, auth, { url: 'http://127.0.0.1:1/', failure_threshold: 1 })
  t.equal(await checker.runOnce(), 2)
  const [slowCheck] = await get(`${slow.id}/checks`)
  t.match(slowCheck, { is_up: false, status_code: null, error_message: 'timeout after 1000 ms' })
  t.ok(slowCheck.response_time_ms >= 900)
  const [refusedCheck] = await get(`${refused.id}/checks`)
  t.match(refusedCheck, { is_up: false, status_code: null, error_message: /refused/ })
  for (const m of [slow, refused]) {
    t.match(await get(m.id), { status: 'down' })
    t.match(await get(`${m.id}/incidents`), [{ status: 'open', started_at: iso(0), status_code: null }])
  }
})

t.test('paused and deleted monitors are never checked; re-activation is checked at once', async (t) => {
  let hits = 0
  const { url } = await targetServer(t, (_req, res) => { hits++; res.end() })
  const { app, auth, checker, at, get } = await setup(t)
  at(0)
  const paused = await makeMonitor(app, auth, { url, is_active: false })
  const pausedLater = await makeMonitor(app, auth, { url })
  const deleted = await makeMonitor(app, auth, { url })
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${pausedLater.id}`, payload: { is_active: false } })
  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${deleted.id}` })
  for (const seconds of [0, 3600, 86_400 * 2]) {
    at(seconds)
    t.equal(await checker.runOnce(), 0)
  }
  t.equal(hits, 0)
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${paused.id}`, payload: { is_active: true } })
  t.equal(await checker.runOnce(), 1)
  t.equal(hits, 1)
  t.match(await get(paused.id), { status: 'up', is_active: true })
  t.match(await get(pausedLater.id), { status: 'paused', last_checked_at: null })
})

t.test('a shorter interval takes effect from the last check', async (t) => {
  const { url } = await targetServer(t, (_req, res) => res.end())
  const { app, auth, checker, at } = await setup(t)
  at(0)
  const m = await makeMonitor(app, auth, { url, interval_minutes: 60 })
  t.equal(await checker.runOnce(), 1)
  at(120)
  t.equal(await checker.runOnce(), 0)
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { interval_minutes: 1 } })
  t.equal(await checker.runOnce(), 1, 'due since 60 s after the last check')
})

t.test('stop() abandons a hanging probe within the grace period and gives its slot back', async (t) => {
  const { url: hanging } = await targetServer(t, () => {})
  const { app, auth, at } = await setup(t)
  at(0)
  const m = await makeMonitor(app, auth, { url: hanging, timeout_seconds: 60 })
  // Two checkers in turn, as after a restart, with a short grace for stop().
  const newChecker = () => new Checker({
    db: app.db,
    clock: () => new Date('2026-11-21T10:00:00.000Z'),
    log: app.log,
    prober: createProber({ allowPrivateTargets: true }),
    concurrency: 5,
    confirmDelayMs: 30_000,
    stopGraceMs: 200,
  })
  const checker = newChecker()
  t.equal(await checker.tick(), 1)
  await checker.stop()
  // Had stop() waited for the probe, its 60 s timeout would have ended it and recorded a failed check.
  t.equal((await request(app, auth, { url: `/api/v1/monitors/${m.id}/checks` })).json().data.length, 0,
    'nothing recorded: stop() abandoned the probe instead of waiting for it')
  const again = newChecker()
  t.equal(await again.tick(), 1, 'the abandoned monitor is due again at once')
  await again.stop()
})

/** A checker on the wall clock that claims what is due in the next 10 s (stopped with its test). */
function aheadChecker (t: Test, app: Awaited<ReturnType<typeof buildTestApp>>['app']) {
  const checker = new Checker({
    db: app.db,
    clock: () => new Date(),
    log: app.log,
    prober: createProber({ allowPrivateTargets: true }),
    concurrency: 10,
    confirmDelayMs: 30_000,
    claimAheadMs: 10_000,
  })
  t.teardown(() => checker.stop())
  return checker
}

t.test('a monitor due within the claim-ahead time is claimed at once and probed at its due time, not before', async (t) => {
  const { url } = await targetServer(t, (_req, res) => { res.end('ok') })
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  const m = await makeMonitor(app, auth, { url })
  const due = new Date(Date.now() + 1000)
  await app.db.update(monitors).set({ nextCheckAt: due }).where(eq(monitors.id, m.id))
  const checker = aheadChecker(t, app)
  t.equal(await checker.runOnce(), 1, 'claimed a second before it is due')
  const [check] = (await request(app, auth, { url: `/api/v1/monitors/${m.id}/checks` })).json().data
  t.ok(new Date(check.checked_at).getTime() >= due.getTime(), `probed at ${check.checked_at}, due ${due.toISOString()}`)
})

t.test('monitors due within one tick start together, at the tick after their due times', async (t) => {
  const { url } = await targetServer(t, (_req, res) => { res.end('ok') })
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  // Three due 10, 40 and 70 ms into the same tick, a second from now; a fourth due on a tick's first millisecond.
  const tick = Math.ceil((Date.now() + 1000) / START_TICK_MS) * START_TICK_MS
  const dues = [tick + 10, tick + 40, tick + 70, tick + START_TICK_MS]
  const ids: string[] = []
  for (const [i, due] of dues.entries()) {
    const m = await makeMonitor(app, auth, { url: `${url}/${i}` })
    await app.db.update(monitors).set({ nextCheckAt: new Date(due) }).where(eq(monitors.id, m.id))
    ids.push(m.id)
  }
  const checker = aheadChecker(t, app)
  t.equal(await checker.runOnce(), 4)
  const startedAt: number[] = []
  for (const id of ids) {
    const [check] = (await request(app, auth, { url: `/api/v1/monitors/${id}/checks` })).json().data
    startedAt.push(new Date(check.checked_at).getTime())
  }
  for (const [i, due] of dues.entries()) {
    const startTick = Math.ceil(due / START_TICK_MS) * START_TICK_MS
    t.ok(startedAt[i] >= startTick, `due at +${due - tick} ms, started at +${startedAt[i] - tick} ms: not before the tick at +${startTick - tick}`)
  }
})
