// Background writes: a failure is logged, never thrown; settled() waits for what was tracked; and a write
// still running when the app closes finishes before the database does.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import t from 'tap'
import { buildApp } from '../../src/app.ts'
import { createTestDatabase, testConfig, usingPostgres } from '../helper.ts'

/** A promise and the function that resolves it. */
function gate () {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { open, opened }
}

t.test('track() logs a failed write at warn and never rejects; settled() waits for every tracked write', async (t) => {
  const { handle } = await createTestDatabase(t)
  const lines: string[] = []
  const app = await buildApp({ config: testConfig(), database: handle, logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } } })
  t.teardown(() => app.close())
  await app.ready()

  const slow = gate()
  let written = false
  app.backgroundWrites.track(slow.opened.then(() => app.db.execute(sql`select 1`)).then(() => { written = true }), 'record the slow one')
  app.backgroundWrites.track(Promise.reject(new Error('boom')), 'record the failing one')
  let settled = false
  const settling = app.backgroundWrites.settled().then(() => { settled = true })
  await nextTurn()
  t.equal(settled, false, 'not settled while a write waits')
  slow.open()
  await settling
  t.equal(written, true, 'settled once the write was done')
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]), { level: 40, msg: 'could not record the failing one', err: { message: 'boom' } })
  await app.backgroundWrites.settled()
  t.pass('settled() with nothing pending resolves')
})

t.test('a write still running when the app closes finishes before the database closes', async (t) => {
  // The app opens (and so closes) its own database here: the case where the order matters.
  const env: Record<string, string> = usingPostgres ? { DATABASE_URL: (await createTestDatabase(t)).DATABASE_URL! } : {}
  const app = await buildApp({ config: testConfig(env), logger: false })
  const events: string[] = []
  const closeDatabase = app.database.close
  app.database.close = async () => {
    events.push('database closing')
    await closeDatabase()
  }
  await app.ready()
  // A slow write (a statement that takes a moment), still running when close() is called.
  app.backgroundWrites.track((async () => {
    await app.db.execute(sql`select pg_sleep(0.2)`)
    events.push('write done')
  })(), 'record the test write')
  await app.close()
  t.same(events, ['write done', 'database closing'])
})
