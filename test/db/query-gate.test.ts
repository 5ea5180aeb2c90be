// QueryGate: at most `max` queries at once, the rest in arrival order; a failed query gives its slot back.
import t from 'tap'
import { QueryGate } from '../../src/db/query-gate.ts'
import { eq, sql } from 'drizzle-orm'
import { users } from '../../src/db/schema.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase, usingPostgres } from '../helper.ts'

function deferred<T> () {
  let settle!: { resolve: (value: T) => void, reject: (err: unknown) => void }
  const promise = new Promise<T>((resolve, reject) => { settle = { resolve, reject } })
  return { promise, ...settle }
}

t.test('runs at most max at once, the others in order, through failures', async (t) => {
  const gate = new QueryGate(2)
  const started: number[] = []
  const queries = [0, 1, 2, 3, 4].map(() => deferred<number>())
  // Each query starts (is awaited) only once the gate lets it through, as a lazy postgres.js query does.
  const lazy = (i: number): PromiseLike<number> => ({
    then: (ok, fail) => {
      started.push(i)
      return queries[i].promise.then(ok, fail)
    },
  })
  const results = queries.map((_, i) => gate.run(lazy(i)).then((v) => `ok ${v}`, (e: Error) => `failed ${e.message}`))
  const tick = () => new Promise((resolve) => setImmediate(resolve))
  await tick()
  t.same(started, [0, 1], 'two at once')
  queries[1].reject(new Error('boom'))
  await tick()
  t.same(started, [0, 1, 2], 'a failure gives its slot to the next')
  queries[0].resolve(0)
  queries[2].resolve(2)
  await tick()
  t.same(started, [0, 1, 2, 3, 4], 'in arrival order')
  queries[3].resolve(3)
  queries[4].resolve(4)
  t.same(await Promise.all(results), ['ok 0', 'failed boom', 'ok 2', 'ok 3', 'ok 4'])
  // Every slot came back: two more run at once.
  const again = [deferred<number>(), deferred<number>()]
  const runs = again.map((d) => gate.run(d.promise))
  again.forEach((d, i) => d.resolve(i))
  t.same(await Promise.all(runs), [0, 1])
})

t.test('on PostgreSQL, 200 queries at once through the gated pool all answer, raw rows and mapped rows', { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)' }, async (t) => {
  const { handle } = await createTestDatabase(t)
  const user = await createUser(handle.db, 'gate@example.com')
  const answers = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
    if (i % 2 === 0) return (await handle.db.execute(sql`select ${i}::int as i`) as unknown as Array<{ i: number }>)[0].i
    // The query builder reads rows with .values(), which goes through the gate too.
    const [row] = await handle.db.select({ email: users.email }).from(users).where(eq(users.id, user.id))
    return row.email === 'gate@example.com' ? i : -1
  }))
  t.same(answers, Array.from({ length: 200 }, (_, i) => i), 'every query answered, with its own value')
})
