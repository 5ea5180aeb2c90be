// GET /monitors/{id}/uptime: defaults, the time-weighted figures, 400s naming the field, 404s, read keys.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { runRollups } from '../../src/checker/rollups.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { buildTestApp, makeKey, makeMonitor, makeUser, request } from '../helper.ts'

const NOW = Date.parse('2026-11-21T10:30:00.000Z')
const DAY = 86_400_000

t.test('uptime of a monitor', async (t) => {
  let now = NOW - 40 * DAY
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  now = NOW
  const url = `/api/v1/monitors/${monitor.id}/uptime`
  // A check every 10 minutes over the last 40 days; down 10 minutes, between two checks, yesterday.
  const rows: Parameters<typeof insertChecks>[1] = []
  for (let at = NOW - 40 * DAY + 60_000; at < NOW; at += 600_000) {
    rows.push({ monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 80 + Math.floor(at / 600_000) % 40, checkedAt: new Date(at) })
  }
  for (let i = 0; i < rows.length; i += 1000) await insertChecks(app.db, rows.slice(i, i + 1000))
  const downAt = Date.parse('2026-11-20T12:05:00.000Z')
  await app.db.execute(sql`insert into incidents (monitor_id, status, kind, cause, started_at, resolved_at)
    values (${monitor.id}, 'resolved', 'down', 'timeout', ${new Date(downAt).toISOString()}, ${new Date(downAt + 600_000).toISOString()})`)

  await t.test('defaults: the last 30 days by day, today partial', async (t) => {
    const res = await request(app, auth, { url })
    t.equal(res.statusCode, 200)
    const { summary, buckets } = res.json().data
    t.equal(buckets.length, 30)
    t.match(buckets[0], { start: '2026-10-23T00:00:00.000Z', end: '2026-10-24T00:00:00.000Z', uptime_percent: 100, downtime_seconds: 0, checks: 144 })
    t.match(buckets[29], { start: '2026-11-21T00:00:00.000Z', end: '2026-11-21T10:30:00.000Z', checks: 63 })
    t.match(buckets[28], { start: '2026-11-20T00:00:00.000Z', downtime_seconds: 600, uptime_percent: 99.3055, failed_checks: 0 })
    t.match(summary, { start: '2026-10-23T00:00:00.000Z', end: '2026-11-21T10:30:00.000Z', downtime_seconds: 600 })
    t.same(Object.keys(summary).sort(), ['checks', 'downtime_seconds', 'end', 'failed_checks', 'maintenance_seconds', 'response_time_ms', 'start', 'uptime_percent'])
    // Within 5% of the exact median of the summary's checks (the histogram's promise, docs/architecture.md).
    const times = rows.filter((row) => row.checkedAt.getTime() >= Date.parse(summary.start)).map((row) => row.responseTimeMs).sort((x, y) => x - y)
    const median = (times[(times.length - 1) >> 1] + times[times.length >> 1]) / 2
    t.ok(Math.abs(summary.response_time_ms.p50 - median) <= median * 0.05, `p50 ${summary.response_time_ms.p50}, exact ${median}`)
  })

  await t.test('by hour, the last 24 hours', async (t) => {
    const res = await request(app, auth, { url: `${url}?granularity=hour&from=2026-11-20T10:30:00.000Z` })
    t.equal(res.statusCode, 200)
    const { summary, buckets } = res.json().data
    t.equal(buckets.length, 25, 'the hour of `from` whole, the current one partial')
    t.match(buckets.find((b: { start: string }) => b.start === '2026-11-20T12:00:00.000Z'), { downtime_seconds: 600, uptime_percent: 83.3333 })
    t.equal(summary.downtime_seconds, 600)
  })

  await t.test('a read key may read it; another user, a missing or deleted monitor: 404', async (t) => {
    const reader = await makeKey(app, user.id, 'read')
    t.equal((await request(app, reader.auth, { url })).statusCode, 200)
    const stranger = await makeUser(app)
    const res = await request(app, stranger.auth, { url })
    t.equal(res.statusCode, 404)
    t.same(res.json(), { error: 'Monitor not found' })
    t.equal((await request(app, auth, { url: '/api/v1/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/uptime' })).statusCode, 404)
    const gone = await makeMonitor(app, auth)
    await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${gone.id}` })
    t.equal((await request(app, auth, { url: `/api/v1/monitors/${gone.id}/uptime` })).statusCode, 404)
  })

  await t.test('bad parameters: 400 naming the field', async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['granularity=week', /querystring\/granularity/],
      ['from=yesterday', /querystring\/from/],
      ['to=2026-13-01', /querystring\/to/],
      ['from=2026-11-21T00:00:00.000Z&to=2026-11-20T00:00:00.000Z', /^querystring\/to must be after from$/],
      ['to=0001-01-01T00:00:00Z', /^querystring\/to must not be before 1970-01-01T00:00:00Z$/],
      ['from=0001-01-01T00:00:00Z&to=0001-01-02T00:00:00Z', /^querystring\/to must not be before 1970-01-01T00:00:00Z$/],
      ['from=0001-01-01T00:00:00Z', /^querystring\/from must not be before 1970-01-01T00:00:00Z$/],
      ['from=2025-10-01T00:00:00.000Z', /^querystring\/from must be at most 400 days before to when granularity is day$/],
      ['granularity=hour&from=2026-10-19T00:00:00.000Z', /^querystring\/from must be at most 31 days before to when granularity is hour$/],
      ['granularity=hour&from=2026-10-01T00:00:00.000Z&to=2026-10-02T00:00:00.000Z', /^querystring\/from must be within the last 35 days/],
      ['extra=1', /querystring/],
    ]
    for (const [query, message] of cases) {
      const res = await request(app, auth, { url: `${url}?${query}` })
      t.equal(res.statusCode, 400, query)
      t.match(res.json().error, message, query)
    }
    t.equal((await request(app, auth, { url: '/api/v1/monitors/nope/uptime' })).statusCode, 400)
  })

  await t.test('a year by day answers 366 buckets at most, from the creation on', async (t) => {
    const res = await request(app, auth, { url: `${url}?from=2025-11-21T10:30:00.000Z` })
    t.equal(res.statusCode, 200)
    t.equal(res.json().data.buckets.length, 41, 'the monitor is 40 days old')
    t.equal(res.json().data.buckets[0].start, '2026-10-12T00:00:00.000Z')
  })

  await t.test('the same answers once the rollups are built', async (t) => {
    const before = [(await request(app, auth, { url })).json(), (await request(app, auth, { url: `${url}?granularity=hour&from=2026-11-20T10:30:00.000Z` })).json()]
    let built = 0
    for (let run; (run = await runRollups(app.db, () => new Date(now))) > 0;) built += run
    t.equal(built, 40 * 24 + 40, 'every hour and day since the monitor was created')
    const after = [(await request(app, auth, { url })).json(), (await request(app, auth, { url: `${url}?granularity=hour&from=2026-11-20T10:30:00.000Z` })).json()]
    t.same(after, before)
  })
})
