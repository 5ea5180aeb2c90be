// QueryGate: at most `max` queries at once, the rest in arrival order; a failed query gives its slot back;
// a wait for a slot is bounded, and ends at once when the database goes down.
import t from 'tap'
import { QueryGate } from '../../src/db/driver-workarounds/query-gate.ts'
import { DatabaseUnavailableError, refusalCode } from '../../src/db/unavailable.ts'
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

t.test('a wait for a slot ends: after maxWaitMs (POOL_TIMEOUT), or at once with failWaiting; the admission is asked and told', async (t) => {
  const failures: unknown[] = []
  let down = false
  const gate = new QueryGate(1, {
    assertUp: () => { if (down) throw new DatabaseUnavailableError('DATABASE_DOWN', 'down') },
    observe: (err) => { failures.push(err) },
  }, 50)
  // These queries are bare promises, without the socket a real one keeps open: keep the process alive meanwhile.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  const running = deferred<number>()
  const first = gate.run(running.promise)
  const timedOut = await gate.run(Promise.resolve(1)).then(() => undefined, (e: unknown) => e)
  t.equal(refusalCode(timedOut), 'POOL_TIMEOUT', 'no slot within maxWaitMs')
  const waiting = gate.run(Promise.resolve(2)).then(() => 'ran', (e: unknown) => refusalCode(e))
  gate.failWaiting(new DatabaseUnavailableError('DATABASE_DOWN', 'down'))
  t.equal(await waiting, 'DATABASE_DOWN', 'failWaiting refuses the waiting query')
  running.reject(Object.assign(new Error('gone'), { code: 'CONNECTION_CLOSED' }))
  await first.catch(() => {})
  t.same(failures.map((e) => (e as Error).message), ['gone'], 'the failure of a query that ran is observed (refusals are not)')
  down = true
  t.equal(refusalCode(await gate.run(Promise.resolve(3)).catch((e: unknown) => e)), 'DATABASE_DOWN', 'refused before waiting when the admission says so')
  down = false
  t.equal(await gate.run(Promise.resolve(4)), 4, 'the slot came back through all of it')
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
