// A backend terminated mid-query leaves postgres.js 3.4.9 holding its error, which it gives to the first query its
// connection makes once reconnected: that query (or transaction) is answered all the same, and the database stays up.
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import t from 'tap'
import { openDatabase, rowsOf, type Database } from '../../src/db/client.ts'
import { createTestDatabase, until, usingPostgres } from '../helper.ts'

const selected = async (result: Promise<unknown>) => rowsOf<{ n: number }>(await result)[0].n
const ways = {
  query: (db: Database, n: number) => selected(db.execute(sql`select ${n}::int as n`)),
  transaction: (db: Database, n: number) => db.transaction((tx) => selected(tx.execute(sql`select ${n}::int as n`))),
}

t.test('on PostgreSQL, what follows a backend terminated mid-query', { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)' }, async (t) => {
  const { DATABASE_URL } = await createTestDatabase(t)
  // Two connections: the health's probe takes the idle one, and only two at once reach the terminated one.
  const handle = await openDatabase({ DATABASE_URL, DATA_DIR: 'memory://', poolSize: 2 })
  t.teardown(() => handle.close())
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} })
  t.teardown(() => admin.end())
  const availability: boolean[] = []
  handle.watch((available) => availability.push(available))

  for (const [way, run] of Object.entries(ways)) {
    availability.length = 0
    const terminated = handle.db.execute(sql`select pg_sleep(30) as terminated_here`).then(() => undefined, (e: unknown) => e)
    await handle.db.execute(sql`select 1`) // on the other connection
    const pid = await until(async () =>
      (await admin<Array<{ pid: number }>>`select pid from pg_stat_activity where query like '%terminated_here%' and pid <> pg_backend_pid()`)[0]?.pid)
    await admin`select pg_terminate_backend(${pid})`
    t.ok(await terminated, `${way}: the terminated query fails`)
    await until(() => availability.includes(true))
    t.same(availability, [false, true], `${way}: its connection error marked the database down until the probe answered`)

    const answers = await Promise.all([1, 2].map((n) => run(handle.db, n).catch((e: unknown) => (e as { cause?: unknown }).cause ?? e)))
    t.same(answers, [1, 2], `${way}: two at once, one of them on the reconnected connection, are both answered`)
    t.same(availability, [false, true], `${way}: and the database is not taken for down again`)
  }
})
