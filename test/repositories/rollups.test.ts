// Uptime rollups: time-weighted uptime (not a count of checks), paused time left out, percentiles within 5%,
// the same answer from raw rows and from built rows, idempotent rebuilds and incremental builds.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { runRollups } from '../../src/checker/rollups.ts'
import { insertChecks, type NewCheck } from '../../src/repositories/checks.ts'
import { buildNextRollup, DAY_MS, HOUR_MS, rebuildRollups } from '../../src/repositories/rollups.ts'
import { monitorUptime, uptimeReport } from '../../src/repositories/uptime.ts'
import { parseCommand } from '../../src/cli/args.ts'
import { runCommand, type CliCommand } from '../../src/cli/commands.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { seededRandom } from '../support/seeded-random.ts'

/** The report of monitorUptime's series, as the API's schema shapes it. */
async function uptime (...args: Parameters<typeof monitorUptime>) {
  const series = await monitorUptime(...args)
  return series && uptimeReport(series)
}

const T0 = Date.parse('2026-11-01T00:00:00.000Z')
const MINUTE = 60_000

/** Nearest-rank percentile of the exact values. */
const exact = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]

async function rollupRows (app: { db: any }) {
  return rowsOf(await app.db.execute(sql`select monitor_id, granularity, start::text, checks, failed_checks, tracked_ms, downtime_ms,
    hist_buckets::text, hist_counts::text from monitor_rollups order by granularity, start, monitor_id`))
}

t.test('two days of a monitor: time-weighted uptime, pauses, percentiles, live and built alike', async (t) => {
  let now = T0
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const next = seededRandom(42)
  // Two days of checks every minute, long-tailed response times; paused from 30:00 to 32:00 (no checks then).
  const pause = { from: T0 + 30 * HOUR_MS, to: T0 + 32 * HOUR_MS }
  const rows: NewCheck[] = []
  for (let at = T0 + 30_000; at < T0 + 2 * DAY_MS; at += MINUTE) {
    if (at >= pause.from && at < pause.to) continue
    const ms = Math.round(20 + 200 * Math.exp(2 * next()) * next())
    rows.push({ monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: ms, checkedAt: new Date(at) })
  }
  // Down for 10 minutes between two checks: two failed checks, 600 s of downtime.
  const down = { from: T0 + 5 * HOUR_MS + 10 * MINUTE + 30_000, to: T0 + 5 * HOUR_MS + 20 * MINUTE + 30_000 }
  for (const row of rows) if ((row.checkedAt as Date).getTime() === down.from || (row.checkedAt as Date).getTime() === down.from + MINUTE) row.isUp = false
  for (let i = 0; i < rows.length; i += 500) await insertChecks(app.db, rows.slice(i, i + 500))
  await app.db.execute(sql`insert into incidents (monitor_id, status, kind, cause, started_at, resolved_at)
    values (${monitor.id}, 'resolved', 'down', 'expected status 200, got 503', ${new Date(down.from).toISOString()}, ${new Date(down.to).toISOString()})`)
  // A degraded incident is not downtime.
  await app.db.execute(sql`insert into incidents (monitor_id, status, kind, cause, started_at, resolved_at)
    values (${monitor.id}, 'resolved', 'degraded', 'slow', ${new Date(T0 + 40 * HOUR_MS).toISOString()}, ${new Date(T0 + 41 * HOUR_MS).toISOString()})`)
  now = pause.from
  t.equal((await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })).statusCode, 200)
  now = pause.to
  t.equal((await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: true } })).statusCode, 200)

  now = T0 + 2 * DAY_MS + 30 * MINUTE
  const query = { from: new Date(T0), to: new Date(T0 + 2 * DAY_MS), granularity: 'day' as const }
  const owner = { orgId: user.id }
  const live = await uptime(app.db, owner, monitor.id, query, new Date(now))
  const hourlyLive = await uptime(app.db, owner, monitor.id, { ...query, granularity: 'hour' }, new Date(now))
  t.ok(live)
  const [day1, day2] = live!.buckets
  t.equal(live!.buckets.length, 2)
  t.match(day1, { start: '2026-11-01T00:00:00.000Z', end: '2026-11-02T00:00:00.000Z', downtime_seconds: 600, checks: 1440, failed_checks: 2 })
  t.equal(day1.uptime_percent, Math.floor(1e4 * 100 * (86_400 - 600) / 86_400) / 1e4, 'time-weighted: 10 minutes of a day, not 2 checks of 1440')
  t.match(day2, { downtime_seconds: 0, uptime_percent: 100, checks: 1440 - 120 }, 'paused hours are neither up nor down')
  t.equal(live!.summary.uptime_percent, Math.floor(1e4 * 100 * (2 * 86_400 - 7200 - 600) / (2 * 86_400 - 7200)) / 1e4)

  // Percentiles within 5% of the exact ones, per day and in all.
  const times = (from: number, to: number) => rows.filter((r) => (r.checkedAt as Date).getTime() >= from && (r.checkedAt as Date).getTime() < to)
    .map((r) => r.responseTimeMs).sort((a, b) => a - b)
  for (const [figures, sorted] of [[day1, times(T0, T0 + DAY_MS)], [day2, times(T0 + DAY_MS, T0 + 2 * DAY_MS)], [live!.summary, times(T0, T0 + 2 * DAY_MS)]] as const) {
    for (const p of ['p50', 'p95', 'p99'] as const) {
      const want = exact(sorted, Number(p.slice(1)) / 100)
      const got = figures.response_time_ms[p]!
      t.ok(Math.abs(got - want) <= 0.05 * want, `${p} ${got} within 5% of ${want}`)
    }
  }

  // Built: the same answers from the rows; one row per hour and per day.
  t.equal(await runRollups(app.db, () => new Date(now)), 48 + 2)
  t.equal(await buildNextRollup(app.db, new Date(now)), 'idle', 'nothing more is due')
  const built = await rollupRows(app)
  t.equal(built.filter((r) => r.granularity === 'hour').length, 48 - 2, 'no row for the hours paused throughout')
  t.equal(built.filter((r) => r.granularity === 'day').length, 2)
  t.same(await uptime(app.db, owner, monitor.id, query, new Date(now)), live, 'built rows give what raw rows gave')
  t.same(await uptime(app.db, owner, monitor.id, { ...query, granularity: 'hour' }, new Date(now)), hourlyLive)

  // Idempotent: rebuilding gives the same rows.
  t.same(await rebuildRollups(app.db, { from: T0, to: T0 + DAY_MS, keptSince: 0 }), { hours: 24, days: 1 })
  t.same(await rebuildRollups(app.db, { from: T0 + 5 * HOUR_MS + MINUTE, to: T0 + 5 * HOUR_MS + 2 * MINUTE, keptSince: 0 }), { hours: 1, days: 1 })
  t.same(await rollupRows(app), built, 'a rebuild gives the same rows')

  // Incremental: the next hour is built from its own rows; an old hour is not read again.
  await insertChecks(app.db, [{ monitorId: monitor.id, isUp: false, statusCode: 500, responseTimeMs: 5, checkedAt: new Date(T0 + HOUR_MS) }])
  await insertChecks(app.db, [{ monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 50, checkedAt: new Date(T0 + 2 * DAY_MS + MINUTE) }])
  now = T0 + 2 * DAY_MS + HOUR_MS + 15 * MINUTE
  t.equal(await runRollups(app.db, () => new Date(now)), 1)
  const after = await rollupRows(app)
  t.same(after.filter((r) => r.start !== '2026-11-03 00:00:00+00'), built, 'older rows untouched (the late check is not seen)')
  t.match(after.find((r) => r.start === '2026-11-03 00:00:00+00'), { granularity: 'hour', checks: 1, tracked_ms: HOUR_MS })

  // The CLI's rebuild sees the late check: its hour and its day, not the hours past the range, not what is not built.
  const rebuild = parseCommand(['rollups', 'rebuild', '--from', '2026-11-01T01:00:00Z', '--to', '2026-11-01T02:00:00Z'])
  t.equal(rebuild.kind, 'run')
  const output = await runCommand(app.db, (rebuild as { command: CliCommand }).command, new Date(now))
  t.match(output.stderr, /^Rebuilt 1 hour\(s\) and 1 day\(s\)/)
  const rebuilt = await rollupRows(app)
  const hourRow = (rows: typeof built, start: string, granularity = 'hour') => rows.find((r) => r.start === start && r.granularity === granularity)
  t.match(hourRow(rebuilt, '2026-11-01 01:00:00+00'), { checks: hourRow(built, '2026-11-01 01:00:00+00')!.checks as number + 1, failed_checks: 1 })
  t.match(hourRow(rebuilt, '2026-11-01 00:00:00+00', 'day'), { checks: hourRow(built, '2026-11-01 00:00:00+00', 'day')!.checks as number + 1 })
  const others = (rows: typeof built) => rows.filter((r) => r.start !== '2026-11-01 01:00:00+00' && !(r.granularity === 'day' && r.start === '2026-11-01 00:00:00+00'))
  t.same(others(rebuilt), others(after), 'nothing else changed')
  t.same(await runCommand(app.db, { name: 'rollups rebuild', from: T0, to: T0 + DAY_MS, retentionDays: 1 }, new Date(now)),
    { stdout: '', stderr: 'Rebuilt 0 hour(s) and 0 day(s) of uptime rollups from 2026-11-02T01:15:00.000Z (none is built there yet, or its checks are past their retention)\n' },
    'no hour whose checks are past their retention')
  t.throws(() => parseCommand(['rollups', 'rebuild', '--from', 'yesterday']), /--from as an ISO time/)
})

t.test('the current hour and day come from raw rows, up to now; open incidents count up to now', async (t) => {
  let now = T0 + 10 * HOUR_MS
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  now = T0 + 12 * HOUR_MS
  await runRollups(app.db, () => new Date(now))
  await insertChecks(app.db, [{ monitorId: monitor.id, isUp: false, statusCode: 503, responseTimeMs: 100, checkedAt: new Date(T0 + 11 * HOUR_MS + 30 * MINUTE) }])
  await app.db.execute(sql`insert into incidents (monitor_id, cause, started_at) values (${monitor.id}, 'x', ${new Date(T0 + 11 * HOUR_MS + 30 * MINUTE).toISOString()})`)
  const report = await uptime(app.db, { orgId: user.id }, monitor.id, { from: new Date(now - DAY_MS), to: new Date(now), granularity: 'hour' }, new Date(now))
  t.equal(report!.buckets.length, 2, 'none before the monitor was created')
  t.match(report!.summary, { start: '2026-11-01T10:00:00.000Z', end: '2026-11-01T12:00:00.000Z', downtime_seconds: 1800, checks: 1, failed_checks: 1, uptime_percent: 75 })
  for (const value of Object.values(report!.summary.response_time_ms)) t.ok(Math.abs(value! - 100) <= 5, `${value} within 5% of 100`)
  const day = await uptime(app.db, { orgId: user.id }, monitor.id, { from: new Date(T0), to: new Date(T0 + DAY_MS), granularity: 'day' }, new Date(now))
  t.match(day!.buckets, [{ start: '2026-11-01T00:00:00.000Z', end: '2026-11-01T12:00:00.000Z', downtime_seconds: 1800, uptime_percent: 75 }])
  t.equal(await uptime(app.db, { orgId: user.id }, '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d', { from: new Date(T0), to: new Date(now), granularity: 'day' }, new Date(now)), undefined)
})

t.test('a monitor created paused counts from its resume', async (t) => {
  let now = T0
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { is_active: false })
  now = T0 + 2 * HOUR_MS + 30 * MINUTE
  t.equal((await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: true } })).statusCode, 200)
  now = T0 + 3 * HOUR_MS
  const report = await uptime(app.db, { orgId: user.id }, monitor.id, { from: new Date(T0), to: new Date(now), granularity: 'hour' }, new Date(now))
  t.same(report!.buckets.map((b) => b.uptime_percent), [null, null, 100], 'paused hours are not monitored')
  t.equal(report!.summary.uptime_percent, 100)
  await runRollups(app.db, () => new Date(now + HOUR_MS))
  t.same(rowsOf(await app.db.execute(sql`select tracked_ms from monitor_rollups where granularity = 'hour' order by start`)), [{ tracked_ms: 30 * MINUTE }],
    'no row for the hours paused throughout')
})

t.test('time in maintenance is neither up nor down: maintenance_seconds, live and built alike', async (t) => {
  let now = T0
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  // Down from 02:00 to 04:00; in maintenance from 03:00 to 05:00: one hour of downtime, two of maintenance.
  await app.db.execute(sql`insert into incidents (monitor_id, status, kind, cause, started_at, resolved_at)
    values (${monitor.id}, 'resolved', 'down', 'x', ${new Date(T0 + 2 * HOUR_MS).toISOString()}, ${new Date(T0 + 4 * HOUR_MS).toISOString()})`)
  await app.db.execute(sql`insert into monitor_maintenance (monitor_id, window_id, started_at, ended_at)
    values (${monitor.id}, gen_random_uuid(), ${new Date(T0 + 3 * HOUR_MS).toISOString()}, ${new Date(T0 + 5 * HOUR_MS).toISOString()})`)
  now = T0 + DAY_MS + 30 * MINUTE
  const query = { from: new Date(T0), to: new Date(T0 + DAY_MS), granularity: 'day' as const }
  const live = await uptime(app.db, { orgId: user.id }, monitor.id, query, new Date(now))
  const expected = { downtime_seconds: 3600, maintenance_seconds: 7200, uptime_percent: Math.floor(1e4 * 100 * (79_200 - 3600) / 79_200) / 1e4 }
  t.match(live!.buckets[0], expected, 'the hour down in maintenance is not downtime; the window is left out of uptime')
  const hours = await uptime(app.db, { orgId: user.id }, monitor.id, { ...query, granularity: 'hour' }, new Date(now))
  t.match(hours!.buckets[3], { downtime_seconds: 0, maintenance_seconds: 3600, uptime_percent: null }, 'an hour all in maintenance has no uptime')
  await runRollups(app.db, () => new Date(now))
  t.same(await uptime(app.db, { orgId: user.id }, monitor.id, query, new Date(now)), live, 'the built day says the same')
})
