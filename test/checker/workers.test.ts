// Two checker processes on one PostgreSQL: 500 due monitors, every one checked exactly once for its slot.
import { testAudit } from '../helper.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { checks, monitors } from '../../src/db/schema.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase, outputWaiter, spawnPingward, until, usingPostgres } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

t.test('two workers never check a monitor twice for one slot and never skip one', { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)' }, async (t) => {
  const { handle, DATABASE_URL } = await createTestDatabase(t)
  const hits = new Map<string, number>()
  const { url } = await targetServer(t, (req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1)
    res.end('ok')
  })

  const user = await createUser(handle.db, 'workers@example.com')
  // Not due before both workers are up (below); then all at once, and the two compete for every one.
  const dueAt = new Date(Date.now() + 3_600_000)
  for (let i = 0; i < 500; i++) {
    await createMonitor(handle.db, { orgId: user.id }, withMonitorDefaults({ name: `m${i}`, url: `${url}/m${i}`, interval_minutes: 1 }), { now: dueAt, audit: testAudit, allowPrivateTargets: true })
  }

  const workers = [0, 1].map(() => {
    const worker = spawnPingward('src/worker.ts', [], { DATABASE_URL, ALLOW_PRIVATE_TARGETS: 'true', CHECK_CONCURRENCY: '40', LOG_LEVEL: 'info' })
    worker.stderr.pipe(process.stderr)
    let out = ''
    const { wake, waitFor } = outputWaiter(worker, () => out, () => out)
    worker.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
    worker.on('close', wake)
    return Object.assign(worker, { started: waitFor(/"msg":"checker started"/) })
  })
  const exits = workers.map((w) => new Promise<number | null>((resolve) => w.on('exit', (code) => resolve(code))))
  t.teardown(() => { for (const w of workers) w.kill('SIGKILL') })
  await Promise.all(workers.map((w) => w.started))
  await handle.db.update(monitors).set({ nextCheckAt: new Date() })

  // Checks recorded, and monitors still claimed: a claim moves next_check_at to the lease's end (90 s on),
  // a recorded check moves it to one interval after the check.
  const progress = async () => rowsOf<{ recorded: number, claimed: number }>(await handle.db.execute(sql`select
    (select count(*)::int from ${checks}) as recorded,
    (select count(*)::int from ${monitors} where ${monitors.lastCheckedAt} is null
      or ${monitors.nextCheckAt} <> ${monitors.lastCheckedAt} + interval '1 minute') as claimed`))[0]
  // Every monitor checked and none claimed any more: no check is in flight, a double one included (the
  // next slot is a minute away). The workers' graceful stop then finishes anything claimed since.
  await until(async () => {
    const { recorded, claimed } = await progress()
    return recorded >= 500 && claimed === 0
  }, 250)
  for (const w of workers) w.kill('SIGTERM')
  t.same(await Promise.all(exits), [0, 0], 'both workers stop cleanly on SIGTERM')

  t.equal((await progress()).recorded, 500)
  const perMonitor = await handle.db.execute(sql`select count(*)::int as n from ${checks} group by monitor_id having count(*) <> 1`)
  t.equal(rowsOf(perMonitor).length, 0, 'exactly one check per monitor')
  t.equal(hits.size, 500)
  t.ok([...hits.values()].every((n) => n === 1), 'the target saw each monitor once')
})
