// Two API processes on one PostgreSQL and one Redis: the rate limit is one budget across both, a key deleted (with the
// CLI) is refused by both on their very next request, and a status page built by one is the other's copy.
import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import { redisReachable, runCli } from '../helper.ts'
import { firstKey, SKIP_WITHOUT_POSTGRES, startPingward, startPrivatePostgres } from './support.ts'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

const skip = SKIP_WITHOUT_POSTGRES || (await redisReachable(REDIS_URL) ? false : `no Redis at ${REDIS_URL}`)

t.test('two API instances on one PostgreSQL and Redis', { skip }, async (t) => {
  const pg = await startPrivatePostgres(t)
  // Counters of this run only: requests with a deleted key count per address, a bucket other runs share.
  const REDIS_PREFIX = `pingward-test-${randomBytes(6).toString('hex')}:`
  const vars = { DATABASE_URL: pg.url, REDIS_URL, REDIS_PREFIX, CHECKER: 'off', RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW: '1 minute', METRICS_TOKEN: 'metrics-token-of-this-test' }
  const a = await startPingward(t, vars)
  const founderKey = await firstKey(a)
  const b = await startPingward(t, vars)
  t.not(a.base, b.base, `two processes: ${a.base} and ${b.base}`)
  const newKey = async (t: Test, name: string) => {
    const made = await runCli(['keys', 'create', 'admin@localhost', '--name', name], { DATABASE_URL: pg.url })
    t.equal(made.code, 0, `keys create: ${made.stderr}`)
    return { key: made.stdout.trim(), id: /key ([0-9a-f-]{36})/.exec(made.stderr)![1] }
  }
  const get = (server: typeof a, key: string) => fetch(`${server.base}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })

  await t.test('the rate limit is shared', async (t) => {
    const { key } = await newKey(t, 'shared limit')
    const seen: Array<[number, string | null]> = []
    for (let i = 0; i < 4; i++) {
      for (const server of [a, b]) {
        const res = await get(server, key)
        seen.push([res.status, res.headers.get('x-ratelimit-remaining')])
        if (res.status === 429) t.same(await res.json(), { error: 'Rate limit exceeded' })
      }
    }
    t.same(seen, [[200, '4'], [200, '3'], [200, '2'], [200, '1'], [200, '0'], [429, '0'], [429, '0'], [429, '0']],
      'five requests in all, alternating between the instances, then 429 on both')
  })

  await t.test('a deleted key is refused by both instances on the next request', async (t) => {
    const { key, id } = await newKey(t, 'to delete')
    t.equal((await get(a, key)).status, 200)
    t.equal((await get(b, key)).status, 200)
    const deleted = await runCli(['keys', 'delete', id], { DATABASE_URL: pg.url })
    t.equal(deleted.code, 0, `keys delete: ${deleted.stderr}`)
    for (const server of [b, a]) {
      const res = await get(server, key)
      t.equal(res.status, 401, `refused by ${server.base}`)
      t.same(await res.json(), { error: 'Unauthorized' })
    }
  })

  await t.test('a status page built by one instance is the copy the other answers with', async (t) => {
    const made = await fetch(`${a.base}/api/v1/status-pages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${founderKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'shared-page', title: 'Shared', published: true }),
    })
    t.equal(made.status, 201, await made.text())
    const fromA = await fetch(`${a.base}/status/shared-page`)
    const fromB = await fetch(`${b.base}/status/shared-page`)
    t.same([fromA.status, fromB.status], [200, 200])
    t.equal(fromB.headers.get('etag'), fromA.headers.get('etag'), 'the same ETag: one copy')
    t.equal(await fromB.text(), await fromA.text())
    const snapshots = async (server: typeof a) => {
      const text = await (await fetch(`${server.base}/metrics`, { headers: { authorization: 'Bearer metrics-token-of-this-test' } })).text()
      return [...text.matchAll(/^pingward_status_snapshots_total\{source="(\w+)"\} (\d+)$/gm)].map((m) => `${m[1]} ${m[2]}`)
    }
    t.same([await snapshots(a), await snapshots(b)], [['database 1', 'shared 0'], ['database 0', 'shared 1']])
  })

  for (const server of [a, b]) server.child.kill('SIGTERM')
  t.same(await Promise.all([a.exited, b.exited]), [{ code: 0, signal: null }, { code: 0, signal: null }], 'both stop cleanly')
})
