// The database's health on PostgreSQL, through a proxy that goes away, hangs and comes back: a failure for
// want of the database marks it down, queries are then refused at once (no connect, no wait), a database
// that hangs holds nothing (the connect timeout), and the first probe that answers brings it back.
import { sql } from 'drizzle-orm'
import t, { type Test } from 'tap'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts'
import { isDatabaseUnavailable, refusalCode } from '../../src/db/unavailable.ts'
import { createTestDatabase, until, usingPostgres } from '../helper.ts'
import { tcpProxy } from '../support/tcp-proxy.ts'

const skip = usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL)'

async function throughProxy (t: Test) {
  const { DATABASE_URL } = await createTestDatabase(t)
  const direct = new URL(DATABASE_URL!)
  const proxy = await tcpProxy(t, { host: direct.hostname, port: Number(direct.port || 5432) })
  const url = new URL(direct)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const handle = await openDatabase({ DATABASE_URL: url.href, DATA_DIR: 'memory://' })
  t.teardown(() => handle.close())
  const changes: boolean[] = []
  handle.watch((available) => { changes.push(available) })
  return { proxy, handle, changes }
}

const errorOf = (promise: PromiseLike<unknown>) => Promise.resolve(promise).then(() => undefined, (err: unknown) => err)
const select1 = (handle: DatabaseHandle) => handle.db.execute(sql`select 1`)

t.test('on PostgreSQL: down when it goes away, refused at once while down, up when it is back', { skip }, async (t) => {
  const { proxy, handle, changes } = await throughProxy(t)
  await select1(handle)
  await handle.ping()
  t.same(changes, [], 'up: nothing to report')

  await proxy.refuse()
  t.ok(isDatabaseUnavailable(await errorOf(select1(handle))), 'the first query fails for want of the database')
  t.same(changes, [false], 'the database is down')
  t.equal(refusalCode(await errorOf(select1(handle))), 'DATABASE_DOWN', 'a query is then refused without asking it')
  t.equal(refusalCode(await errorOf(handle.ping())), 'DATABASE_DOWN', 'so is the readiness ping')
  t.equal(refusalCode(await errorOf(handle.db.transaction(async (tx) => tx.execute(sql`select 1`)))), 'DATABASE_DOWN', 'and a transaction')

  await proxy.forward()
  await until(() => changes.length === 2)
  t.same(changes, [false, true], 'a probe found it back')
  await select1(handle)
  await handle.ping()
  t.pass('queries and the ping answer again')
})

t.test('on PostgreSQL: a database that accepts connections and never answers', { skip }, async (t) => {
  const { proxy, handle, changes } = await throughProxy(t)
  await proxy.hang()
  // The pool's connection is cut; a new one is accepted and never answered: the query fails, it does not
  // wait for ever (the connect timeout, or the cut connection, whichever postgres.js sees first).
  const err = await errorOf(select1(handle)) as { cause?: { code?: string } }
  t.match(err?.cause?.code, /^(CONNECT_TIMEOUT|CONNECTION_CLOSED|ECONNRESET)$/, `the query fails (${err?.cause?.code})`)
  t.same(changes, [false], 'the database is down')
  // The probes hang too (each ends at its timeout): requests are refused at once meanwhile.
  t.equal(refusalCode(await errorOf(select1(handle))), 'DATABASE_DOWN', 'later queries are refused at once')
  t.equal(refusalCode(await errorOf(handle.ping())), 'DATABASE_DOWN', 'and the ping')
  await proxy.forward()
  await until(() => changes.length === 2)
  await select1(handle)
  t.pass('back when it answers')
})

t.test('on PostgreSQL: opening a database that accepts connections and never answers fails with the connect timeout', { skip }, async (t) => {
  const { DATABASE_URL } = await createTestDatabase(t)
  const direct = new URL(DATABASE_URL!)
  const proxy = await tcpProxy(t, { host: direct.hostname, port: Number(direct.port || 5432) })
  await proxy.hang()
  const url = new URL(direct)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  const err = await errorOf(openDatabase({ DATABASE_URL: url.href, DATA_DIR: 'memory://' })) as { code?: string }
  t.equal(err?.code, 'CONNECT_TIMEOUT')
})
