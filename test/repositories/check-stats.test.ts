// Dashboard check summaries: the newest checks of every monitor in one query (uptime: test/repositories/rollups.test.ts).
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import t from 'tap'
import { recentChecksByMonitor } from '../../src/repositories/check-stats.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { createMonitor, deleteMonitor } from '../../src/monitors/service.ts'
import { createUser } from '../../src/repositories/users.ts'
import { buildTestApp, testAudit } from '../helper.ts'

t.test('recent checks per monitor', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t)
  const user = await createUser(app.db, 'stats@example.com')
  const other = await createUser(app.db, 'other@example.com')
  const a = await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name: 'a', url: 'https://a.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const b = await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name: 'b', url: 'https://b.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const gone = await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name: 'gone', url: 'https://gone.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const theirs = await createMonitor(app.db, { orgId: other.id }, withMonitorDefaults({ name: 'x', url: 'https://x.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const at = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
  await insertChecks(app.db, [
    ...Array.from({ length: 30 }, (_, i) => ({ monitorId: a.id, isUp: i % 10 !== 0, statusCode: 200, responseTimeMs: i, checkedAt: at(30 - i) })),
    { monitorId: b.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
    { monitorId: gone.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
    { monitorId: theirs.id, isUp: true, statusCode: 200, responseTimeMs: 7, checkedAt: at(1) },
  ])
  await deleteMonitor(app.db, user.id, gone.id, now, testAudit)

  const recent = await recentChecksByMonitor(app.db, user.id)
  t.same([...recent.keys()].sort(), [a.id, b.id].sort(), 'only the user\'s live monitors')
  t.same(recent.get(a.id)!.map((p) => p.responseTimeMs), Array.from({ length: 20 }, (_, i) => i + 10), 'the newest 20, oldest first')
  t.same(recent.get(a.id)!.filter((p) => !p.isUp).length, 2)
  t.same(recent.get(b.id), [{ responseTimeMs: 7, isUp: true }])
  t.same((await recentChecksByMonitor(app.db, user.id, 3)).get(a.id)!.map((p) => p.responseTimeMs), [27, 28, 29])
})
