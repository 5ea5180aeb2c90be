// The probe's pools per origin: one kept per origin from check to check, the least recently used closed past
// the cap, the idle ones swept, all closed by close(); requests through them reach real local servers.
import http from 'node:http'
import t from 'tap'
import { originPools } from '../../src/checker/origin-pools.ts'
import { listen } from '../support/target-server.ts'
import { until } from '../helper.ts'

/** A server answering "ok" that counts the connections it accepted. */
async function countingServer (t: Parameters<typeof listen>[0]) {
  let connections = 0
  const server = http.createServer((_req, res) => res.end('ok'))
  server.on('connection', () => connections++)
  const { url } = await listen(t, server)
  return { url, connections: () => connections }
}

async function getOk (pool: ReturnType<ReturnType<typeof originPools>['get']>): Promise<string> {
  const response = await pool.request({ path: '/', method: 'GET', reset: true })
  return response.body.text()
}

t.test('one pool per origin, kept across requests that each open and close a connection', async (t) => {
  const a = await countingServer(t)
  const b = await countingServer(t)
  const pools = originPools({})
  t.teardown(() => pools.close())
  const first = pools.get(a.url)
  t.equal(await getOk(first), 'ok')
  t.equal(await getOk(pools.get(a.url)), 'ok')
  t.equal(pools.get(a.url), first, 'the same pool after its connection closed')
  t.equal(first.closed, false)
  t.equal(a.connections(), 2, 'a new connection per request (reset)')
  t.not(pools.get(b.url), first, 'another origin, another pool')
  t.equal(await getOk(pools.get(b.url)), 'ok')
})

t.test('past the cap the least recently used pool is closed; a later use makes a new one', async (t) => {
  const servers = await Promise.all([countingServer(t), countingServer(t), countingServer(t)])
  const pools = originPools({}, { max: 2 })
  t.teardown(() => pools.close())
  const [a, b] = [pools.get(servers[0].url), pools.get(servers[1].url)]
  pools.get(servers[0].url) // a is now the most recently used
  const c = pools.get(servers[2].url)
  t.equal(b.closed, true, 'b was the least recently used')
  t.equal(a.closed, false)
  t.equal(c.closed, false)
  const again = pools.get(servers[1].url)
  t.not(again, b)
  t.equal(await getOk(again), 'ok')
  t.equal(a.closed, true, 'a is out now (c and b were used after it)')
})

t.test('a pool unused for idleMs is closed by the sweep; close() closes the rest', async (t) => {
  const server = await countingServer(t)
  const other = await countingServer(t)
  const pools = originPools({}, { idleMs: 40 })
  const idle = pools.get(server.url)
  t.equal(await getOk(idle), 'ok')
  // The sweep runs every idleMs / 2 on its own timer: wait for its effect (the test's timeout bounds the wait).
  t.equal(await until(() => idle.closed, 10), true, 'swept')
  const kept = pools.get(other.url)
  await pools.close()
  t.equal(kept.closed, true)
})
