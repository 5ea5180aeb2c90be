// A transaction whose connection dies under it: it fails with a connection error, and the process lives on
// (postgres.js 3.4.9 would send its ROLLBACK to the closed socket from a setImmediate and crash the process).
import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import postgres from 'postgres'
import t from 'tap'
import { rowsOf } from '../../src/db/client.ts'
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts'
import { createTestDatabase, until, usingPostgres } from '../helper.ts'

t.test('on PostgreSQL, a transaction whose backend is terminated mid-query', { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)' }, async (t) => {
  const { handle, DATABASE_URL } = await createTestDatabase(t)
  const admin = postgres(DATABASE_URL!, { max: 1, onnotice: () => {} })
  t.teardown(() => admin.end())

  for (const ending of ['rejects', 'resolves'] as const) {
    let pid: number | undefined
    // Its failure is taken at once: the closed socket can be read before the terminate's answer, and a
    // rejection without a handler then is an unhandledRejection (tap failed the test on 1 run in 12).
    const failure = handle.db.transaction(async (tx) => {
      pid = rowsOf<{ pid: number }>(await tx.execute(sql`select pg_backend_pid() as pid`))[0].pid
      if (ending === 'rejects') await tx.execute(sql`select pg_sleep(30)`)
      // A callback that settles after its connection closed: postgres.js would then COMMIT on it.
      else await tx.execute(sql`select pg_sleep(30)`).catch(() => {})
      return 'finished'
    }).then(() => undefined, (e: unknown) => e)
    await until(() => pid)
    await admin`select pg_terminate_backend(${pid!})`
    const err = await failure
    t.ok(isDatabaseUnavailable(err), `${ending}: the transaction fails with a connection error (${(err as Error)?.message})`)
    // postgres.js's write to the closed socket would run from a setImmediate: let a few of those pass.
    for (let i = 0; i < 5; i++) await nextTurn()
    t.pass(`${ending}: the process is still here`)
    // The pool works again (after the health's probe: the dropped connection marked the database down).
    await until(() => handle.db.execute(sql`select 1`).then(() => true, () => false))
    const [row] = rowsOf<{ n: number }>(await handle.db.execute(sql`select 41 + 1 as n`))
    t.equal(row.n, 42, `${ending}: the pool answers again`)
  }
})
