// The change feed on a real database: what a page shows, committed by any connection, reaches its owner's
// subscribers (and no one else's) in batches at most once per COALESCE_MS; rolled-back work and a claim's
// scheduling columns tell nothing; a lost listening connection is made again and says everything may have changed.
import { performance } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { recordCheck, recordChecks } from '../../src/checks/record-check.ts'
import { openDatabase, rowsOf, type Database } from '../../src/db/client.ts'
import { CHANGES_CHANNEL, COALESCE_MS, type ChangeBatch } from '../../src/plugins/changes.ts'
import { buildTestApp, makeMonitor, makeUser, request, usingPostgres } from '../helper.ts'

const up = () => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt: new Date() })
const down = () => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt: new Date() })

/** An app, and a writer: another connection on PostgreSQL (the checker may be another process), else the same PGlite. */
async function setup (t: Test) {
  const { app, DATABASE_URL } = await buildTestApp(t)
  let writer: Database = app.db
  if (DATABASE_URL) {
    const other = await openDatabase({ DATABASE_URL, DATA_DIR: 'memory://' })
    t.teardown(() => other.close())
    writer = other.db
  }
  return { app, writer }
}

/**
 * The batches an owner's subscriber hears from now on, each with when it came; `nth(n)` waits for the n-th. Changes
 * committed before (creating the test's monitors) may still be on their way: a notification of our own, committed
 * after them and so heard after them, marks where the test's batches start.
 */
async function subscriber (t: Test, app: FastifyInstance, writer: Database, owner: string) {
  const batches: Array<ChangeBatch & { at: number }> = []
  let heard: (() => void) | undefined
  t.teardown(app.changes.subscribe(owner, (batch) => {
    batches.push({ ...batch, at: performance.now() })
    heard?.()
  }))
  const nth = async (n: number) => {
    while (batches.length < n) await new Promise<void>((resolve) => { heard = resolve })
    return batches[n - 1]
  }
  await writer.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify({ owner, kind: 'channel', id: 'start' })})`)
  for (let n = 1; !(await nth(n)).channels.includes('start'); n++);
  const start = batches.splice(0).pop()!
  return {
    batches,
    /** When the batch that marked the start came. */
    startedAt: start.at,
    nth,
    /** Waits for a batch that `match` accepts. */
    async until (match: (batch: ChangeBatch) => boolean) {
      for (let n = 1; ; n++) {
        const batch = await nth(n)
        if (match(batch)) return batch
      }
    },
  }
}

t.test('a check recorded on another connection reaches its owner\'s subscribers, and only theirs', async (t) => {
  const { app, writer } = await setup(t)
  const [alice, bob] = [await makeUser(app), await makeUser(app)]
  const [a, b] = [await makeMonitor(app, alice.auth), await makeMonitor(app, bob.auth)]
  const [heardByAlice, heardByBob] = [await subscriber(t, app, writer, alice.user.id), await subscriber(t, app, writer, bob.user.id)]

  await recordCheck(writer, a.id, up(), 30_000)
  const { monitors, channels, everything } = await heardByAlice.nth(1)
  t.same({ monitors, channels, everything }, { monitors: [a.id], channels: [], everything: false }, 'Alice hears of her monitor')
  await recordCheck(writer, b.id, up(), 30_000)
  t.same((await heardByBob.nth(1)).monitors, [b.id], 'Bob hears of his monitor')
  t.equal(heardByBob.batches.length, 1, 'and not of Alice\'s')
  t.equal(heardByAlice.batches.length, 1, 'Alice does not hear of Bob\'s')
})

t.test('a rolled-back change and a claim\'s scheduling columns tell nothing', async (t) => {
  const { app, writer } = await setup(t)
  const { user, auth } = await makeUser(app)
  const [quiet, sentinel] = [await makeMonitor(app, auth), await makeMonitor(app, auth)]
  const heard = await subscriber(t, app, writer, user.id)

  await t.rejects(writer.transaction(async (tx) => {
    await tx.execute(sql`update monitors set status = 'down', updated_at = now() where id = ${quiet.id}`)
    throw new Error('rolled back by the test')
  }))
  await writer.execute(sql`update monitors set next_check_at = now() + interval '1 minute' where id = ${quiet.id}`)
  await recordCheck(writer, sentinel.id, up(), 30_000)
  t.same((await heard.nth(1)).monitors, [sentinel.id], 'the first batch holds only the change committed after them')
})

t.test('the changes of a window come as one batch, each monitor once, a window after the last batch', async (t) => {
  const { app, writer } = await setup(t)
  const { user, auth } = await makeUser(app)
  const [m1, m2] = [await makeMonitor(app, auth), await makeMonitor(app, auth)]
  const heard = await subscriber(t, app, writer, user.id)

  const check = (monitorId: string) => ({ monitorId, result: up(), confirmDelayMs: 30_000 })
  await recordChecks(writer, [check(m2.id), check(m1.id), check(m2.id)])
  const batch = await heard.nth(1)
  t.same(batch.monitors.sort(), [m1.id, m2.id].sort(), 'three checks of two monitors')
  // A listener hears a batch a moment after it was sent: a millisecond of slack for that.
  t.ok(batch.at - heard.startedAt >= COALESCE_MS - 1, `a window after the last batch (${batch.at - heard.startedAt} ms)`)
})

t.test('a failing check tells the monitor\'s page and the page of the channel it is delivered to', async (t) => {
  const { app, writer } = await setup(t)
  const { user, auth } = await makeUser(app)
  const created = await request(app, auth, {
    method: 'POST',
    url: '/api/v1/notification-channels',
    payload: { name: 'hook', type: 'webhook', config: { url: 'https://example.com/hook' }, all_monitors: true },
  })
  t.equal(created.statusCode, 201, 'a channel of every monitor')
  const channel = created.json().data
  const monitor = await makeMonitor(app, auth, { failure_threshold: 1 })
  const heard = await subscriber(t, app, writer, user.id)

  await recordCheck(writer, monitor.id, down(), 30_000)
  await heard.until((batch) => batch.monitors.includes(monitor.id))
  await heard.until((batch) => batch.channels.includes(channel.id))
  t.pass('both heard')
})

t.test('a lost listening connection is made again, and says everything may have changed', { skip: !usingPostgres && 'PostgreSQL only: PGlite has one connection' }, async (t) => {
  const { app, writer } = await setup(t)
  const { user, auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const heard = await subscriber(t, app, writer, user.id)

  const ended = rowsOf(await writer.execute(sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
    where datname = current_database() and query ilike 'listen %'`))
  t.equal(ended.length, 1, 'one listening connection')
  t.same((await heard.nth(1)).everything, true, 'everything may have changed')
  await recordCheck(writer, monitor.id, up(), 30_000)
  t.same((await heard.until((batch) => batch.monitors.length > 0)).monitors, [monitor.id], 'changes are heard again')
})
