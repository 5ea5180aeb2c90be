// A PostgreSQL outage under steady load (~50 requests a second): the API fails fast. While the database is
// down, at least 95% of requests are answered 503 {error} within a second and /readyz is 503 within a second;
// when it is back, the API answers 200 again by itself.
import { setTimeout as outageLasting } from 'node:timers/promises'
import t from 'tap'
import { until } from '../helper.ts'
import { firstKey, get, SKIP_WITHOUT_POSTGRES, startPingward, startPrivatePostgres, steadyLoad, type Sent } from './support.ts'

/** How long PostgreSQL stays down: time passing on purpose, long enough for retries and backoffs to build up. */
const OUTAGE_MS = 12_000
const FAST_MS = 1000

const fast = (s: Sent) => s.status === 503 && s.at - s.sentAt < FAST_MS

t.test('an outage under ~50 requests a second', { skip: SKIP_WITHOUT_POSTGRES }, async (t) => {
  const pg = await startPrivatePostgres(t)
  const server = await startPingward(t, { DATABASE_URL: pg.url, CHECKER: 'on', RATE_LIMIT_MAX: '1000000' })
  const headers = { authorization: `Bearer ${await firstKey(server)}`, 'content-type': 'application/json' }
  const created = await fetch(`${server.base}/api/v1/monitors`, {
    method: 'POST', headers, body: JSON.stringify({ name: 'load', url: 'https://example.com', is_active: false }),
  })
  t.equal(created.status, 201)
  const monitor = (await created.json()).data
  const paths = ['/api/v1/monitors', `/api/v1/monitors/${monitor.id}`, `/api/v1/monitors/${monitor.id}/checks`]

  const load = steadyLoad(50, (n) => get(server.base, paths[n % paths.length], headers))
  await until(() => load.sent() >= 50, 100)

  const stopping = Date.now()
  await pg.stopAsync('fast')
  const downAt = Date.now()
  t.comment(`PostgreSQL stopped (pg_ctl took ${downAt - stopping} ms)`)
  // /readyz, asked now and then during the outage.
  const ready: Sent[] = []
  const readyTimer = setInterval(() => { get(server.base, '/readyz').then((r) => ready.push(r)) }, 700)
  await outageLasting(OUTAGE_MS)
  clearInterval(readyTimer)
  const upAt = Date.now()
  await pg.startAsync()
  t.comment('PostgreSQL started again')
  await until(async () => (await get(server.base, paths[0], headers)).status === 200, 200)
  const recoveredAt = Date.now()
  t.comment(`the API answers 200 again ${recoveredAt - upAt} ms after the restart began`)
  const sentAtRecovery = load.sent()
  await until(() => load.sent() >= sentAtRecovery + 25, 100)
  const sent = await load.stop()

  const before = sent.filter((s) => s.sentAt < stopping)
  t.ok(before.length > 0 && before.every((s) => s.status === 200), `before the outage every request is 200 (${before.length})`)
  const during = sent.filter((s) => s.sentAt >= downAt && s.sentAt < upAt)
  const answeredFast = during.filter(fast).length
  const waits = during.map((s) => s.at - s.sentAt).sort((a, b) => a - b)
  const statuses: Record<string, number> = {}
  for (const s of during) statuses[s.status] = (statuses[s.status] ?? 0) + 1
  t.comment(`during the outage: ${during.length} requests, ${JSON.stringify(statuses)}, ` +
    `wait median ${waits[waits.length >> 1]} ms, max ${waits[waits.length - 1]} ms`)
  t.ok(during.length >= OUTAGE_MS / 1000 * 40, 'the load went on during the outage')
  t.ok(answeredFast >= 0.95 * during.length, `at least 95% answered 503 within ${FAST_MS} ms (${answeredFast} of ${during.length})`)
  const wrong = during.filter((s) => s.status === 503 && JSON.parse(s.body).error !== 'Service unavailable')
  t.same(wrong, [], 'every 503 is {"error":"Service unavailable"}')
  t.same(during.filter((s) => s.status !== 503), [], 'no request during the outage is answered otherwise')
  t.ok(ready.length >= OUTAGE_MS / 700 - 2, `/readyz was asked during the outage (${ready.length} times)`)
  t.same(ready.filter((r) => !fast(r)).map((r) => ({ status: r.status, ms: r.at - r.sentAt })), [], `/readyz: 503 within ${FAST_MS} ms each time`)
  const after = sent.filter((s) => s.sentAt > recoveredAt)
  t.same(after.filter((s) => s.status !== 200), [], `after the recovery every request is 200 (${after.length})`)

  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'stops cleanly afterwards')
})
