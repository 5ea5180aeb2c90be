// A flood of unknown ping tokens beside an authenticated reader: one API process on PostgreSQL (npm start's
// flags, the default RATE_LIMIT_MAX), a key's `GET /api/v1/monitors?limit=5` 10 times a second, alone and then
// while autocannon pings random tokens from the same address (FLOOD_RATE a second, 200 by default; 0: as fast
// as it can), from its 4th second on, once the address's budget of the minute is spent, as in a lasting flood.
// `DATABASE_URL=... [REDIS_URL=...] npx tsx bench/ping-flood.ts`
import { randomBytes } from 'node:crypto'
import { setTimeout as pause } from 'node:timers/promises'
import autocannon from 'autocannon'
import { freePort } from '../test/support/target-server.ts'
import { openDatabase } from '../src/db/client.ts'
import { createApiKey } from '../src/repositories/api-keys.ts'
import { createUser } from '../src/repositories/users.ts'
import { createPostgresDatabase, postgresRunner } from './database.ts'
import { ensureBuilt, startNode, waitForHttp } from './processes.ts'

const READS = 80
/** When the reads start, into the flood. */
const STEADY_MS = 3500
const FLOOD_RATE = Number(process.env.FLOOD_RATE ?? 200)

/** READS sequential reads, one every 100 ms: their latencies (ms) and statuses. */
async function reads (url: string, key: string): Promise<{ ms: number[], statuses: Record<number, number> }> {
  const ms: number[] = []
  const statuses: Record<number, number> = {}
  for (let i = 0; i < READS; i++) {
    const started = performance.now()
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
    await res.arrayBuffer()
    ms.push(performance.now() - started)
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
    await pause(Math.max(0, 100 - (performance.now() - started)))
  }
  return { ms, statuses }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const show = (name: string, r: { ms: number[], statuses: Record<number, number> }) => {
  const sorted = [...r.ms].sort((a, b) => a - b)
  return `${name}: p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, ` +
    `max ${sorted.at(-1)!.toFixed(1)} ms, statuses ${JSON.stringify(r.statuses)}`
}

async function main (): Promise<void> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('DATABASE_URL is required')
  ensureBuilt()
  const url = await createPostgresDatabase(adminUrl, 'pingward_ping_flood')
  const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'unused' })
  const user = await createUser(handle.db, 'reader@example.com')
  const { key } = await createApiKey(handle.db, { userId: user.id, orgId: user.id, name: 'reader', scope: 'write' })
  await handle.close()

  const port = await freePort()
  const server = startNode('src/server.ts', {
    DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', CHECKER: 'off', LOG_LEVEL: 'warn', REDIS_URL: process.env.REDIS_URL,
  }, { onLine: () => {} })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}/healthz`, server)
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${base}/api/v1/monitors`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `M${i}`, url: `https://m${i}.example.com/` }),
      })
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
    }
    const list = `${base}/api/v1/monitors?limit=5`
    // The database's own count of its transactions (its statistics lag by up to a second or so).
    const stats = postgresRunner(url)
    const transactions = async () => {
      await pause(1500)
      await stats.query('select pg_stat_clear_snapshot()')
      return Number((await stats.query('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()'))[0].n)
    }
    const before = await transactions()
    const alone = await reads(list, key)
    // Well-formed tokens that no monitor has, each sent once; the flood lasts as long as the reads.
    const tokens = Array.from({ length: 20_000 }, () => `/ping/${randomBytes(18).toString('base64url')}`)
    let next = 0
    const flood = autocannon({
      url: base,
      connections: 10,
      ...(FLOOD_RATE > 0 ? { overallRate: FLOOD_RATE } : {}),
      duration: STEADY_MS / 1000 + READS / 10 + 0.5,
      requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: tokens[next++ % tokens.length] }) }],
    })
    await pause(STEADY_MS)
    const during = await reads(list, key)
    const floodResult = await flood
    const after = await transactions()
    await stats.close()
    console.log(show('authenticated, alone', alone))
    console.log(show('authenticated, during the flood', during))
    const statuses = Object.fromEntries(Object.entries(floodResult.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]))
    console.log(`flood (rate ${FLOOD_RATE || 'unbounded'}): ${JSON.stringify(statuses)}, p50/p99 ${floodResult.latency.p50}/${floodResult.latency.p99} ms; ` +
      `database transactions during the flood and the reads: ${after - before}`)
  } finally {
    await server.stop()
  }
}

await main()
