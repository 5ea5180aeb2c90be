// The agents' ingestion benchmark (issue 46): one API process on PostgreSQL, an agent location whose monitors are
// inserted in SQL, and batches of 100 results, each result a fresh check of its own slot: first as fast as concurrent
// senders go (the capacity), then paced at the target's rate (a batch's latency under that load). Every acknowledged
// result must be a check row afterwards, exactly once: the first batches are sent again and must all be duplicates.
import { join } from 'node:path'
import { generateAgentToken, hashApiKey, keyPrefix } from '../src/auth/keys.ts'
import { freePort } from '../test/support/target-server.ts'
import type { Runner } from './database.ts'
import { machineCpu, processStats, startNode, waitForHttp } from './processes.ts'

export interface AgentBenchOptions {
  databaseUrl: string
  db: Runner
  /** The user whose organization owns the agent location (the API benchmark's writer). */
  userId: string
  monitors: number
  senders: number
  batchSize: number
  /** The share of the batches sent before the measurement starts. */
  warmupShare: number
  /** The paced half's rate, in results per second. */
  pacedResultsPerSecond: number
  logDir: string
  log: (line: string) => void
}

export interface AgentResults {
  monitors: number
  senders: number
  batchSize: number
  /** As fast as the senders go. */
  resultsPerSecond: number
  /** Each batch's time from its send to its answer, paced at `pacedResultsPerSecond`. */
  pacedResultsPerSecond: number
  batchMs: { p50: number, p99: number, max: number }
  acknowledged: number
  recorded: number
  /** Of the batches sent again, the results the API recorded a second time (must be 0). */
  recordedAgain: number
  failedBatches: number
  serverCpuUsPerResult: number
  machineBusyPercent: number
}

const CODE = 'bench-agent'
const INTERVAL_MINUTES = 60

/** The monitors of the agent location, made an interval and a minute ago: their previous slot and the current are fresh. */
async function seed (db: Runner, userId: string, count: number): Promise<{ token: string, ids: string[], origin: Date }> {
  await db.query('delete from monitors where $1 = any(locations)', [CODE])
  await db.query('delete from locations where code = $1 and org_id = $2', [CODE, userId])
  const token = generateAgentToken()
  await db.query('insert into locations (org_id, code, name, kind, token_hash, token_prefix) values ($1, $2, $2, \'agent\', $3, $4)',
    [userId, CODE, hashApiKey(token), keyPrefix(token)])
  const origin = new Date(Date.now() - (INTERVAL_MINUTES + 1) * 60_000)
  const rows = await db.query(`
    insert into monitors (org_id, name, url, interval_minutes, status, locations, location_states, created_at, updated_at)
    select $1, 'Agent target ' || i, 'https://example.com/' || i, $2, 'up', array[$3::text],
      jsonb_build_array(jsonb_build_object('location', $3::text, 'status', 'pending', 'last_checked_at', null, 'error_message', null)), $4, $4
    from generate_series(1, $5) as i
    returning id`, [userId, INTERVAL_MINUTES, CODE, origin.toISOString(), count])
  await db.query('analyze monitors')
  return { token, ids: rows.map((row) => row.id as string), origin }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0

export async function runAgentBench (options: AgentBenchOptions): Promise<AgentResults> {
  const { token, ids, origin } = await seed(options.db, options.userId, options.monitors)
  const port = await freePort()
  const server = startNode('src/server.ts', {
    DATABASE_URL: options.databaseUrl, PORT: String(port), CHECKER: 'off', LOG_LEVEL: 'info', RATE_LIMIT_MAX: '1000000',
  }, { logFile: join(options.logDir, 'agent-server.log') })
  const base = `http://127.0.0.1:${port}`
  // Every monitor's previous slot, then its current one: each result is counted toward its quorum, none is late.
  const intervalMs = INTERVAL_MINUTES * 60_000
  const batches: string[] = []
  for (const slot of [0, 1]) {
    const slotAt = new Date(origin.getTime() + slot * intervalMs)
    for (let i = 0; i < ids.length; i += options.batchSize) {
      const results = ids.slice(i, i + options.batchSize).map((id, j) => ({
        monitor_id: id,
        slot_at: slotAt.toISOString(),
        checked_at: new Date(slotAt.getTime() + 1000 + j).toISOString(),
        is_up: true,
        status_code: 200,
        response_time_ms: 40 + (j % 50),
        error_message: null,
      }))
      batches.push(JSON.stringify({ results }))
    }
  }
  const post = async (body: string) => {
    const res = await fetch(`${base}/api/v1/agent/results`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
    const text = await res.text()
    return res.status === 200 ? JSON.parse(text).data as { recorded: number, duplicates: number } : undefined
  }
  const tally = { acknowledged: 0, failed: 0, times: [] as number[] }
  const sendOne = async (body: string) => {
    const startedAt = performance.now()
    const receipt = await post(body)
    tally.times.push(performance.now() - startedAt)
    if (receipt) tally.acknowledged += receipt.recorded
    else tally.failed++
  }
  /** Sends `list` with the senders side by side, each as soon as its previous batch is answered. */
  const send = async (list: string[]) => {
    let next = 0
    await Promise.all(Array.from({ length: options.senders }, async () => {
      while (next < list.length) await sendOne(list[next++])
    }))
  }
  /** Sends `list` at `perSecond` batches a second, whatever the answers (an open loop, as many agents would). */
  const pace = async (list: string[], perSecond: number) => {
    const startedAt = performance.now()
    const sent: Array<Promise<void>> = []
    for (const [i, body] of list.entries()) {
      const waitMs = startedAt + 1000 * i / perSecond - performance.now()
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs))
      sent.push(sendOne(body))
    }
    await Promise.all(sent)
  }
  try {
    await waitForHttp(`${base}/healthz`, server)
    const warmupCount = Math.round(batches.length * options.warmupShare)
    const capacityEnd = warmupCount + Math.floor((batches.length - warmupCount) / 2)
    options.log(`  agents: ${options.monitors} monitors, ${batches.length} batches of ${options.batchSize}, ${options.senders} senders, ${warmupCount} batches of warm-up`)
    await send(batches.slice(0, warmupCount))
    const cpu0 = processStats(server.pid).cpuSeconds
    const machine0 = machineCpu()
    const startedAt = performance.now()
    await send(batches.slice(warmupCount, capacityEnd))
    const seconds = (performance.now() - startedAt) / 1000
    const cpu = processStats(server.pid).cpuSeconds - cpu0
    const machine1 = machineCpu()
    tally.times = []
    await pace(batches.slice(capacityEnd), options.pacedResultsPerSecond / options.batchSize)
    const sorted = tally.times.sort((a, b) => a - b)
    const acknowledged = tally.acknowledged
    const failedBefore = tally.failed
    tally.acknowledged = 0
    await send(batches.slice(0, Math.min(20, batches.length)))
    const [row] = await options.db.query('select count(*)::int as n from checks where location = $1 and slot_at is not null', [CODE])
    const results = (capacityEnd - warmupCount) * options.batchSize
    const result: AgentResults = {
      monitors: options.monitors,
      senders: options.senders,
      batchSize: options.batchSize,
      resultsPerSecond: results / seconds,
      pacedResultsPerSecond: options.pacedResultsPerSecond,
      batchMs: { p50: Math.round(percentile(sorted, 0.5)), p99: Math.round(percentile(sorted, 0.99)), max: Math.round(sorted.at(-1) ?? 0) },
      acknowledged,
      recorded: row.n,
      recordedAgain: tally.acknowledged,
      failedBatches: tally.failed,
      serverCpuUsPerResult: 1e6 * cpu / Math.max(1, results),
      machineBusyPercent: Math.round(100 * (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total)),
    }
    if (failedBefore > 0) options.log(`  agents: ${failedBefore} batches failed before the resend`)
    options.log(`  agents: ${Math.round(result.resultsPerSecond)} results/s, at ${result.pacedResultsPerSecond}/s a batch's p50/p99 ${result.batchMs.p50}/${result.batchMs.p99} ms, ` +
      `acknowledged ${result.acknowledged}, recorded ${result.recorded}, recorded again ${result.recordedAgain}, failed batches ${result.failedBatches}`)
    return result
  } finally {
    await server.stop()
    await options.db.query('delete from monitors where $1 = any(locations)', [CODE])
    await options.db.query('delete from locations where code = $1 and org_id = $2', [CODE, options.userId])
  }
}

const verdict = (ok: boolean) => ok ? 'met' : '**not met**'

/** The report's table: issue 46's targets, >= 2,000 results/s, p99 of a 100-result batch <= 100 ms at that rate, each recorded once. */
export function agentTable (r: AgentResults): string[] {
  const once = r.recorded === r.acknowledged && r.recordedAgain === 0 && r.failedBatches === 0
  return [
    `| results/s (${r.senders} senders) | batch p50 / p99 / max ms at ${r.pacedResultsPerSecond.toLocaleString('en-US')} results/s | acknowledged / recorded | recorded again (resent) | server CPU µs per result | machine busy | targets |`,
    '|---:|---:|---:|---:|---:|---:|---|',
    `| ${Math.round(r.resultsPerSecond).toLocaleString('en-US')} | ${r.batchMs.p50} / ${r.batchMs.p99} / ${r.batchMs.max} | ` +
      `${r.acknowledged.toLocaleString('en-US')} / ${r.recorded.toLocaleString('en-US')} | ${r.recordedAgain} | ${Math.round(r.serverCpuUsPerResult)} | ` +
      `${r.machineBusyPercent}% | >= 2,000 results/s: ${verdict(r.resultsPerSecond >= 2000)}; p99 of a ${r.batchSize}-result batch <= 100 ms: ` +
      `${verdict(r.batchMs.p99 <= 100)}; every acknowledged result recorded once: ${verdict(once)} |`,
  ]
}
