// Two checker processes on one PostgreSQL: 500 due monitors, every one checked exactly once for its slot.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { count, sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { checks } from '../../src/db/schema.ts'
import { createMonitor } from '../../src/repositories/monitors.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase, spawnPingward, usingPostgres } from '../helper.ts'

t.test('two workers never check a monitor twice for one slot and never skip one', { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)' }, async (t) => {
  const { handle, DATABASE_URL } = await createTestDatabase(t)
  const hits = new Map<string, number>()
  const server = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1)
    res.end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const port = (server.address() as AddressInfo).port

  const user = await createUser(handle.db, 'workers@example.com')
  // All due a few seconds from now, when both workers are up.
  const dueAt = new Date(Date.now() + 6000)
  for (let i = 0; i < 500; i++) {
    await createMonitor(handle.db, user.id, { name: `m${i}`, url: `http://127.0.0.1:${port}/m${i}`, interval_minutes: 1 }, dueAt)
  }

  const workers = [0, 1].map(() => {
    const worker = spawnPingward('src/worker.ts', [], { DATABASE_URL, ALLOW_PRIVATE_TARGETS: 'true', CHECK_CONCURRENCY: '40', LOG_LEVEL: 'warn' })
    worker.stderr.pipe(process.stderr)
    return worker
  })
  const exits = workers.map((w) => new Promise<number | null>((resolve) => w.on('exit', (code) => resolve(code))))
  t.teardown(() => { for (const w of workers) w.kill('SIGKILL') })

  const recorded = async () => (await handle.db.select({ n: count() }).from(checks))[0].n
  const deadline = Date.now() + 45_000
  while (await recorded() < 500 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
  // A little longer, so that a double check would have had time to happen (the next slot is a minute away).
  await new Promise((resolve) => setTimeout(resolve, 1500))
  for (const w of workers) w.kill('SIGTERM')
  t.same(await Promise.all(exits), [0, 0], 'both workers stop cleanly on SIGTERM')

  t.equal(await recorded(), 500)
  const perMonitor = await handle.db.execute(sql`select count(*)::int as n from ${checks} group by monitor_id having count(*) <> 1`)
  t.equal(rowsOf(perMonitor).length, 0, 'exactly one check per monitor')
  t.equal(hits.size, 500)
  t.ok([...hits.values()].every((n) => n === 1), 'the target saw each monitor once')
})
