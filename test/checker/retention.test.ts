// Retention: old checks go in batches, each monitor always keeps its newest 100.
import t from 'tap'
import { count, eq } from 'drizzle-orm'
import { checks } from '../../src/db/schema.ts'
import { pruneChecks } from '../../src/checker/retention.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { buildTestApp, makeMonitor, makeUser } from '../helper.ts'

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
