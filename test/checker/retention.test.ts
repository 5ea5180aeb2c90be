// Retention: old checks go in batches, each monitor always keeps its newest 100.
import t from 'tap'
import { count, eq } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import { recordChange } from '../../src/audit/service.ts'
import { auditEvents, checks } from '../../src/db/schema.ts'
import { pruneChecks, pruneExpired } from '../../src/checker/retention.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { buildTestApp, makeMonitor, makeUser, testAudit } from '../helper.ts'

t.test('checks older than the retention period are deleted, except each monitor\'s newest 100', async (t) => {
  const now = new Date('2026-11-21T10:00:00.000Z')
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const day = 86_400_000
  const seed = async (recent: number, old: number) => {
    const m = await makeMonitor(app, auth)
    const rows = [
      ...Array.from({ length: recent }, (_, i) => now.getTime() - (i + 1) * 60_000),
      ...Array.from({ length: old }, (_, i) => now.getTime() - 31 * day - i * 60_000),
    ].map((at) => ({ monitorId: m.id, isUp: true, statusCode: 200, responseTimeMs: 1, checkedAt: new Date(at) }))
    for (let i = 0; i < rows.length; i += 500) await insertChecks(app.db, rows.slice(i, i + 500))
    return m.id as string
  }
  const onlyOld = await seed(0, 1500)
  const fewOld = await seed(0, 50)
  const mixed = await seed(120, 80)
  const mostlyRecent = await seed(60, 70)
  const countOf = async (id: string) => (await app.db.select({ n: count() }).from(checks).where(eq(checks.monitorId, id)))[0].n

  const deleted = await pruneChecks(app.db, now, 30)
  t.equal(deleted, 1400 + 0 + 80 + 30)
  t.equal(await countOf(onlyOld), 100, 'an idle monitor keeps its newest 100')
  t.equal(await countOf(fewOld), 50)
  t.equal(await countOf(mixed), 120, 'every recent check stays')
  t.equal(await countOf(mostlyRecent), 100)
  t.equal(await pruneChecks(app.db, now, 30), 0, 'a second run finds nothing: storage stops growing')
})

t.test('audit events older than AUDIT_RETENTION_DAYS go; newer ones stay', async (t) => {
  const { app } = await buildTestApp(t)
  const user = await makeUser(app)
  const old = new Date(Date.now() - 401 * 86_400_000)
  const recent = new Date(Date.now() - 399 * 86_400_000)
  for (const [name, at] of [['old', old], ['recent', recent]] as const) {
    await recordChange(app.db, testAudit, { orgId: user.orgId, action: 'monitor.created', entityId: randomUUID(), before: null, after: { name }, fields: ['name'], at })
  }
  await pruneExpired({ db: app.db, clock: () => new Date(), log: app.log, retentionDays: 30, auditRetentionDays: 400 })
  const kept = await app.db.select({ occurredAt: auditEvents.occurredAt }).from(auditEvents).where(eq(auditEvents.orgId, user.orgId))
  t.same(kept.map((e) => e.occurredAt.getTime()), [recent.getTime()])
})
