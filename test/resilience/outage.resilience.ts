// PostgreSQL goes away under a running API + checker and comes back: 503 {error} fast (no 500, no hang),
// /readyz 503, the process and its checker survive, and after the restart everything recovers by itself
// with no check slot lost.
import { setTimeout as outageLasting } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { until } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'
import { firstKey, SKIP_WITHOUT_POSTGRES, startPingward, startPrivatePostgres } from './support.ts'

/** How long PostgreSQL stays down: time passing on purpose, for monitors to come due during the outage. */
const OUTAGE_MS = 9000

/** Waits until `read` holds, saying what for; a request that fails (the database or the API away) is a "not yet". */
function awaiting<T> (t: Test, what: string, read: () => Promise<T | undefined | false>): Promise<T> {
  t.comment(`waiting for ${what}`)
  return until(() => read().catch(() => undefined), 200) as Promise<T>
}

t.test('a PostgreSQL outage under a running API and checker', { skip: SKIP_WITHOUT_POSTGRES }, async (t) => {
  const pg = await startPrivatePostgres(t)
  // Two targets: a slow one (a probe is in flight when the database goes away) and a failing one, which is
  // re-checked every CHECK_CONFIRM_DELAY seconds and so is due again and again during the outage.
  const hits = { slow: [] as number[], failing: [] as number[] }
  let slowAnswered!: () => void
  const slowAnswer = new Promise<void>((resolve) => { slowAnswered = resolve })
  const { url: targetUrl } = await targetServer(t, (req, res) => {
    if (req.url === '/slow') { hits.slow.push(Date.now()); setTimeout(() => res.end('ok', slowAnswered), 4000) } else { hits.failing.push(Date.now()); res.writeHead(500).end() }
  })

  const server = await startPingward(t, { DATABASE_URL: pg.url, CHECKER: 'on', ALLOW_PRIVATE_TARGETS: 'true', CHECK_CONFIRM_DELAY: '2' })
  const headers = { authorization: `Bearer ${await firstKey(server)}`, 'content-type': 'application/json' }
  const api = (path: string, init: RequestInit = {}) => fetch(`${server.base}${path}`, { headers, signal: AbortSignal.timeout(20_000), ...init })
  const create = async (body: object) => (await (await api('/api/v1/monitors', { method: 'POST', body: JSON.stringify(body) })).json()).data
  const slow = await create({ name: 'slow', url: `${targetUrl}/slow`, interval_minutes: 60, timeout_seconds: 30 })
  const failing = await create({ name: 'failing', url: `${targetUrl}/failing`, interval_minutes: 60, failure_threshold: 10 })
  await awaiting(t, 'the slow probe to start', async () => hits.slow.length > 0)
  await awaiting(t, 'two checks of the failing monitor', async () => hits.failing.length >= 2)

  pg.stop()
  const stoppedAt = Date.now()
  t.comment('PostgreSQL stopped')
  for (const [method, path, body] of [
    ['GET', '/api/v1/monitors'], ['GET', `/api/v1/monitors/${slow.id}`], ['GET', `/api/v1/monitors/${slow.id}/checks`],
    ['PATCH', `/api/v1/monitors/${slow.id}`, '{"name":"renamed"}'], ['POST', '/api/v1/monitors', JSON.stringify({ name: 'x', url: targetUrl })],
    ['GET', '/readyz'],
  ] as const) {
    // Answered while the database is still down (it comes back only further on): no request waits for it.
    const started = Date.now()
    const res = await api(path, { method, ...(body ? { body } : {}) })
    t.equal(res.status, 503, `${method} ${path}: 503, answered in ${Date.now() - started} ms`)
    t.same(await res.json(), { error: 'Service unavailable' }, `${method} ${path}: {error}`)
  }
  t.equal((await fetch(`${server.base}/healthz`)).status, 200, 'the process itself is alive (/healthz)')
  t.equal((await api('/healthz')).status, 200, '/healthz does not depend on the database, even with a key')
  // The slow probe finishes during the outage: its result cannot be recorded, and the checker says it retries.
  await slowAnswer
  await server.waitFor(/checker: database unavailable, will retry recording a check/)
  // Stay down for the rest of the outage, for the failing monitor to come due a few times.
  await outageLasting(Math.max(0, stoppedAt + OUTAGE_MS - Date.now()))
  t.equal(server.child.exitCode, null, 'still running during the outage')
  t.match(server.output(), /checker: database unavailable/, 'the checker warns and keeps going')
  t.equal((await api('/api/v1/monitors')).status, 503, 'still 503 while the database is down')
  // A check claimed just before the stop may reach the target after it: at most one, as a claimed monitor is
  // not claimed again while its lease holds.
  const failingHitsDuringOutage = hits.failing.filter((at) => at > stoppedAt).length
  t.ok(failingHitsDuringOutage <= 1, `no checks are claimed while the database is down (${failingHitsDuringOutage} hit after the stop)`)

  const outputBeforeRestart = server.output().length
  pg.start()
  const restartedAt = Date.now()
  t.comment('PostgreSQL started again')
  await awaiting(t, 'the API to answer 200', async () => (await api('/api/v1/monitors')).status === 200)
  t.equal(server.child.exitCode, null, `the API recovered ${Date.now() - restartedAt} ms after the restart, with no process restart`)
  t.equal((await api('/readyz')).status, 200, '/readyz is 200 again')

  const slowChecks = await awaiting(t, 'the slow check to be recorded', async () => {
    const data = (await (await api(`/api/v1/monitors/${slow.id}/checks`)).json()).data
    return data.length > 0 && data
  })
  t.equal(slowChecks.length, 1, 'the check that finished during the outage is recorded, once')
  t.match(slowChecks[0], { is_up: true, status_code: 200 })
  t.ok(Date.parse(slowChecks[0].checked_at) < stoppedAt, 'at the time it started, before the outage')
  t.equal(hits.slow.length, 1, 'and the target was not probed twice for it')

  await awaiting(t, 'the failing monitor to be checked again', async () => hits.failing.some((at) => at > restartedAt))
  // The target answers before the check is recorded: wait for the record, not just the hit.
  const failingChecks = await awaiting(t, 'the check after the outage to be recorded', async () => {
    const data = (await (await api(`/api/v1/monitors/${failing.id}/checks`)).json()).data
    return data.length >= 3 && data
  })
  t.ok(failingChecks.length >= 3, `the failing monitor, due during the outage, was checked right after it (${failingChecks.length} checks)`)
  t.equal(server.output().slice(outputBeforeRestart).match(/"level":50.*checker/g), null, 'no checker errors after the restart')

  server.child.kill('SIGTERM')
  const exit = await server.exited
  t.same(exit, { code: 0, signal: null }, 'stops cleanly afterwards')
})
