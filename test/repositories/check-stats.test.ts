// Dashboard check summaries: the newest checks of every monitor in one query, and uptime windows.
import { withMonitorDefaults } from '../../src/schemas/monitor.ts'
import t from 'tap'
import { recentChecksByMonitor, uptimeSummary } from '../../src/repositories/check-stats.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { createMonitor, deleteMonitor } from '../../src/repositories/monitors.ts'
import { createUser } from '../../src/repositories/users.ts'
import { buildTestApp } from '../helper.ts'

t.test('recent checks per monitor and uptime', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t)
  const user = await createUser(app.db, 'stats@example.com')
  const other = await createUser(app.db, 'other@example.com')
  const a = await createMonitor(app.db, user.id, withMonitorDefaults({ name: 'a', url: 'https://a.example.com' }), now)
  const b = await createMonitor(app.db, user.id, withMonitorDefaults({ name: 'b', url: 'https://b.example.com' }), now)
  const gone = await createMonitor(app.db, user.id, withMonitorDefaults({ name: 'gone', url: 'https://gone.example.com' }), now)
  const theirs = await createMonitor(app.db, other.id, withMonitorDefaults({ name: 'x', url: 'https://x.example.com' }), now)
  const at = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
  await insertChecks(app.db, [
    ...Array.from({ length: 30 }, (_, i) => ({ monitorId: a.id, isUp: i % 10 !== 0, statusCode: 200, responseTimeMs: i, checkedAt: at(30 - i) })),
    { monitorId: b.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
    { monitorId: gone.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
    { monitorId: theirs.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
  ])
  await deleteMonitor(app.db, user.id, gone.id, now)

  const recent = await recentChecksByMonitor(app.db, user.id)
  t.same([...recent.keys()].sort(), [a.id, b.id].sort(), 'only the user\'s live monitors')
  t.same(recent.get(a.id)!.map((p) => p.responseTimeMs), Array.from({ length: 20 }, (_, i) => i + 10), 'the newest 20, oldest first')
  t.same(recent.get(a.id)!.filter((p) => !p.isUp).length, 2)
  t.same(recent.get(b.id), [{ responseTimeMs: 7, isUp: true }])
  t.same((await recentChecksByMonitor(app.db, user.id, 3)).get(a.id)!.map((p) => p.responseTimeMs), [27, 28, 29])

  await insertChecks(app.db, [
    { monitorId: b.id, isUp: false, statusCode: 500, responseTimeMs: 7, checkedAt: at(60 * 25) },
    { monitorId: b.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(60 * 24 * 7 + 1) },
  ])
  t.same(await uptimeSummary(app.db, b.id, now), {
    day: { checks: 1, up: 1, percent: 100 },
    week: { checks: 2, up: 1, percent: 50 },
  })
  t.same((await uptimeSummary(app.db, a.id, now)).day, { checks: 30, up: 27, percent: 90 })
  t.same(await uptimeSummary(app.db, theirs.id, new Date('2027-01-01T00:00:00.000Z')), {
    day: { checks: 0, up: 0, percent: null }, week: { checks: 0, up: 0, percent: null },
  })
})
