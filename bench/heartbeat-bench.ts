// The heartbeat ingestion benchmark: one API process on PostgreSQL, 10,000 heartbeat monitors, pings from
// autocannon rotating over their ping URLs; every acknowledged ping must be a check row afterwards.
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { freePort } from '../test/support/target-server.ts'
import type { Runner } from './database.ts'
import { machineCpu, processStats, runLoad, startNode, waitForHttp } from './processes.ts'
import type { LoadResult } from './load.ts'

export interface HeartbeatBenchOptions {
  databaseUrl: string
  db: Runner
  /** The user who owns the heartbeats (the API benchmark's writer). */
  userId: string
  monitors: number
  connections: number
  warmupSeconds: number
  durationSeconds: number
  logDir: string
  /** Directory for a --cpu-prof profile of the server, when profiling. */
  cpuProfDir?: string
  log: (line: string) => void
}

export interface HeartbeatResults {
  monitors: number
  connections: number
  measured: LoadResult
  /** 200 answers over the warm-up and the measured run, and the check rows of the heartbeats afterwards. */
  acknowledged: number
  recorded: number
  serverCpuUsPerPing: number
  machineBusyPercent: number
  rssMb: number
}

// The body a cron job's `curl --data-binary @-` might send: a line of its output.
const BODY = JSON.stringify({ job: 'nightly-backup', status: 'ok', bytes: 73_400_320 })

/** Inserts the heartbeats (a deadline a day away: none goes missing during the run); returns their tokens. */
async function seedHeartbeats (db: Runner, userId: string, count: number): Promise<string[]> {
  const tokens = Array.from({ length: count }, () => randomBytes(18).toString('base64url'))
  await db.query(`
    insert into monitors (org_id, name, url, monitor_type, interval_minutes, grace_minutes, ping_token, status, next_check_at)
    select $1, 'Heartbeat ' || t.i, null, 'heartbeat', 5, 1, t.token, 'pending', now() + interval '1 day'
    from unnest($2::text[]) with ordinality as t(token, i)`, [userId, tokens])
  await db.query('analyze monitors')
  return tokens
}

export async function runHeartbeatBench (options: HeartbeatBenchOptions): Promise<HeartbeatResults> {
  await options.db.query("delete from monitors where monitor_type = 'heartbeat'")
  const tokens = await seedHeartbeats(options.db, options.userId, options.monitors)
  const port = await freePort()
  const server = startNode('src/server.ts', {
    DATABASE_URL: options.databaseUrl, PORT: String(port), CHECKER: 'off', LOG_LEVEL: 'info', PING_RATE_LIMIT: '100000',
  }, { logFile: join(options.logDir, 'heartbeat-server.log'), nodeArgs: options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [] })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}/healthz`, server)
    const load = {
      url: base, method: 'POST' as const, headers: {}, body: BODY, connections: options.connections, paths: tokens.map((token) => `/ping/${token}`),
    }
    options.log(`  heartbeats: ${options.monitors} monitors, ${options.connections} connections, ${options.warmupSeconds} s warm-up`)
    const warmup = await runLoad({ ...load, durationSeconds: options.warmupSeconds })
    const cpu0 = processStats(server.pid).cpuSeconds
    const machine0 = machineCpu()
    const measured = await runLoad({ ...load, durationSeconds: options.durationSeconds })
    const cpu = processStats(server.pid).cpuSeconds - cpu0
    const machine1 = machineCpu()
    const rssMb = Math.round(processStats(server.pid).rssBytes / 2 ** 20)
    const [row] = await options.db.query(`select count(*)::int as n from checks c join monitors m on m.id = c.monitor_id
      where m.monitor_type = 'heartbeat'`)
    const acknowledged = (warmup.statusCodes['200'] ?? 0) + (measured.statusCodes['200'] ?? 0)
    const result: HeartbeatResults = {
      monitors: options.monitors,
      connections: options.connections,
      measured,
      acknowledged,
      recorded: row.n,
      serverCpuUsPerPing: 1e6 * cpu / Math.max(1, measured.requests),
      machineBusyPercent: Math.round(100 * (machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total)),
      rssMb,
    }
    options.log(`  heartbeats: ${Math.round(measured.rps)} pings/s, p50/p90/p99 ${measured.latencyMs.p50}/${measured.latencyMs.p90}/` +
      `${measured.latencyMs.p99} ms, non-2xx ${measured.non2xx}, acknowledged ${acknowledged}, recorded ${row.n}`)
    return result
  } finally {
    await server.stop()
    await options.db.query("delete from monitors where monitor_type = 'heartbeat'")
  }
}

const verdict = (ok: boolean) => ok ? 'met' : '**not met**'

/** The report's table: the targets, >= 5,000 pings/s with p99 <= 50 ms, every acknowledged ping recorded. */
export function heartbeatTable (r: HeartbeatResults): string[] {
  const m = r.measured
  return [
    '| pings/s | latency p50 / p90 / p99 / max ms | non-2xx | acknowledged / recorded (whole run) | server CPU µs per ping | RSS MB | machine busy | targets |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    `| ${Math.round(m.rps).toLocaleString('en-US')} | ${m.latencyMs.p50} / ${m.latencyMs.p90} / ${m.latencyMs.p99} / ${m.latencyMs.max} | ${m.non2xx} | ` +
      `${r.acknowledged.toLocaleString('en-US')} / ${r.recorded.toLocaleString('en-US')} | ${Math.round(r.serverCpuUsPerPing)} | ${r.rssMb} | ` +
      `${r.machineBusyPercent}% | >= 5,000 pings/s: ${verdict(m.rps >= 5000)}; p99 <= 50 ms: ${verdict(m.latencyMs.p99 <= 50)}; ` +
      `every acknowledged ping recorded: ${verdict(r.recorded >= r.acknowledged)} |`,
  ]
}
