// The uptime history benchmark (issue 16), on a PostgreSQL database of its own: a year of day rollups and 35 days
// of hour rollups for many monitors (their bytes per monitor), GET /monitors/{id}/uptime of a year by day from one
// API process (req/s), and one day of rollups built from raw checks at 1/min (database time).
import { join } from 'node:path'
import { freePort } from '../test/support/target-server.ts'
import { generateApiKey, hashApiKey, keyPrefix } from '../src/auth/keys.ts'
import { openDatabase } from '../src/db/client.ts'
import { rebuildRollups } from '../src/repositories/rollups.ts'
import { createPostgresDatabase, databaseUrl, postgresRunner, type Runner } from './database.ts'
import { processStats, runLoad, startNode, waitForHttp } from './processes.ts'
import type { LoadResult } from './load.ts'
import { measureLatenessDuringBuild, type BuildLateness } from './rollup-lateness.ts'

export interface RollupBenchOptions {
  adminUrl: string
  /** Monitors with a year of rollups (read by the API) and monitors checked every minute for a day (built). */
  monitors: number
  builtMonitors: number
  connections: number
  warmupSeconds: number
  durationSeconds: number
  logDir: string
  /** Keep a database seeded by an earlier run with as many monitors on the same day (the year's seed takes minutes). */
  reuse?: boolean
  /** The checker's lateness before and while its job builds the day (no measurement without). */
  lateness?: { warmupSeconds: number, baselineSeconds: number }
  /** Directory for a --cpu-prof profile of the API server, when profiling. */
  cpuProfDir?: string
  log: (line: string) => void
}

export interface RollupResults {
  monitors: number
  bytesPerMonitor: number
  read: LoadResult
  serverCpuUsPerRequest: number
  builtMonitors: number
  builtChecks: number
  buildSeconds: number
  lateness?: BuildLateness
}

const DAY_MS = 86_400_000
const DB_NAME = 'pingward_bench_rollups'

export async function runRollupBench (options: RollupBenchOptions): Promise<RollupResults> {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  const iso = (at: number) => new Date(at).toISOString()
  const seed = `${options.monitors}+${options.builtMonitors} ${iso(today)}`
  const reused = options.reuse ? await seededBefore(options.adminUrl, seed) : undefined
  const url = reused?.url ?? await createPostgresDatabase(options.adminUrl, DB_NAME)
  const db = postgresRunner(url)
  try {
    const { key, readIds, builtIds } = reused ?? await seedRollups(db, today, seed, options)
    const [size] = await db.query("select pg_total_relation_size('monitor_rollups')::float8 as bytes")
    const bytesPerMonitor = Math.round(size.bytes / options.monitors)
    options.log(`  rollups: ${Math.round(bytesPerMonitor / 1024)} KiB per monitor (a year of days, 35 days of hours, indexes included)`)

    const read = await measureReads(url, key, readIds, today, options)

    // One day of checks at 1/min for builtMonitors, then its 24 hours and the day built as the job builds them.
    const day = today - 2 * DAY_MS
    let buildSeconds = 0
    let lateness: BuildLateness | undefined
    if (builtIds.length > 0) {
      options.log(`  rollups: inserting ${(options.builtMonitors * 1440).toLocaleString('en-US')} checks`)
      await db.query('delete from checks')
      await db.query(`insert into checks (monitor_id, is_up, status_code, response_time_ms, checked_at)
        select m, random() > 0.001, 200, (20 + 400 * random() * random())::int, $2::timestamptz + g * interval '1 minute' + random() * interval '50 seconds'
        from generate_series(0, 1439) g cross join unnest($1::uuid[]) m`, [builtIds, iso(day)])
      await db.exec('vacuum analyze checks')
      const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'unused' })
      const started = process.hrtime.bigint()
      try {
        await rebuildRollups(handle.db, { from: day, to: day + DAY_MS, keptSince: 0 })
      } finally {
        await handle.close()
      }
      buildSeconds = Number(process.hrtime.bigint() - started) / 1e9
      options.log(`  rollups: one day of ${options.builtMonitors} monitors built in ${buildSeconds.toFixed(1)} s`)
      if (options.lateness) {
        options.log(`  rollups: one worker checking the ${options.builtMonitors} monitors, before and while its job builds the day`)
        lateness = await measureLatenessDuringBuild({ url, db, monitorIds: builtIds, day, ...options.lateness, logDir: options.logDir, log: options.log })
        const p95 = (l: BuildLateness['baseline']) => `p50/p95/p99 ${l.latenessMs.p50}/${l.latenessMs.p95}/${l.latenessMs.p99} ms (${l.n} checks)`
        options.log(`  rollups: lateness before ${p95(lateness.baseline)}, during the build ${p95(lateness.during)}; build ${lateness.buildWallSeconds.toFixed(1)} s of wall time`)
      }
    }
    return {
      monitors: options.monitors,
      bytesPerMonitor,
      ...read,
      builtMonitors: options.builtMonitors,
      builtChecks: options.builtMonitors * 1440,
      buildSeconds,
      lateness,
    }
  } finally {
    await db.close()
  }
}

interface Seeded { key: string, readIds: string[], builtIds: string[] }

/** The database of an earlier run of the same seed (`seed`: the monitors and the day), if there is one. */
async function seededBefore (adminUrl: string, seed: string): Promise<Seeded & { url: string } | undefined> {
  const url = databaseUrl(adminUrl, DB_NAME)
  let db: Runner | undefined
  try {
    db = postgresRunner(url)
    const [meta] = await db.query('select seed, key, read_ids, built_ids from bench_rollups_meta')
    if (meta?.seed !== seed) return undefined
    return { url, key: meta.key, readIds: meta.read_ids, builtIds: meta.built_ids }
  } catch {
    return undefined
  } finally {
    await db?.close()
  }
}

async function seedRollups (db: Runner, today: number, seed: string, options: RollupBenchOptions): Promise<Seeded> {
  const iso = (at: number) => new Date(at).toISOString()
  const [user] = await db.query("insert into users (email) values ('rollups@bench.example') returning id")
  const key = generateApiKey()
  await db.query('insert into api_keys (user_id, org_id, name, key_hash, prefix, scope) values ($1, $1, $2, $3, $4, $5)',
    [user.id, 'bench', hashApiKey(key), keyPrefix(key), 'read'])
  // Monitors created 400 days ago, not scheduled (the server's checker is off anyway).
  await db.query(`insert into monitors (org_id, name, url, status, next_check_at, created_at, updated_at)
    select $1, 'm' || i, 'https://example.com/' || i, 'up', null, $2::timestamptz, $2::timestamptz from generate_series(1, $3::int) i`,
  [user.id, iso(today - 400 * DAY_MS), options.monitors + options.builtMonitors])
  const ids = (await db.query('select id from monitors order by name')).map((row) => row.id as string)
  const [readIds, builtIds] = [ids.slice(0, options.monitors), ids.slice(options.monitors)]
  // Rows as the job writes them, a bucket of every monitor at a time; typical sparse histograms (12 and 5 buckets).
  options.log(`  rollups: seeding ${options.monitors} monitors x (365 days + 35 x 24 hours)`)
  await db.query(`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts)
    select m, 'day', $2::timestamptz - g * interval '24 hours', 1440, 2, 86400000, 120000,
      '{60,61,62,63,64,65,66,67,68,70,75,90}', '{80,200,310,290,220,150,90,50,30,15,4,1}'
    from generate_series(365, 1, -1) g cross join unnest($1::uuid[]) m`, [readIds, iso(today)])
  await db.query(`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts)
    select m, 'hour', $2::timestamptz - g * interval '1 hour', 60, 0, 3600000, 0, '{62,63,64,65,66}', '{10,20,15,10,5}'
    from generate_series(35 * 24, 1, -1) g cross join unnest($1::uuid[]) m`, [readIds, iso(today)])
  await db.query('insert into rollup_progress values (\'hour\', $1::timestamptz), (\'day\', $1::timestamptz)', [iso(today)])
  await db.exec('vacuum analyze monitor_rollups')
  // For --reuse: the key in clear (a bench database only).
  await db.exec('create table bench_rollups_meta (seed text, key text, read_ids text[], built_ids text[])')
  await db.query('insert into bench_rollups_meta values ($1, $2, $3, $4)', [seed, key, readIds, builtIds])
  return { key, readIds, builtIds }
}

/** GET /monitors/{id}/uptime of the last 365 days by day, rotating over the monitors, from one API process. */
async function measureReads (url: string, key: string, ids: string[], today: number, options: RollupBenchOptions) {
  const port = await freePort()
  const server = startNode('src/server.ts', { DATABASE_URL: url, PORT: String(port), CHECKER: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000' },
    { logFile: join(options.logDir, 'rollups-server.log'), nodeArgs: options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [] })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}/healthz`, server)
    const from = new Date(today - 364 * DAY_MS).toISOString()
    const load = {
      url: base,
      method: 'GET' as const,
      headers: { authorization: `Bearer ${key}` },
      connections: options.connections,
      paths: ids.map((id) => `/api/v1/monitors/${id}/uptime?from=${from}`),
    }
    await runLoad({ ...load, durationSeconds: options.warmupSeconds })
    const cpu0 = processStats(server.pid).cpuSeconds
    const measured = await runLoad({ ...load, durationSeconds: options.durationSeconds })
    const cpu = processStats(server.pid).cpuSeconds - cpu0
    options.log(`  rollups: GET uptime (365 days by day) ${Math.round(measured.rps)} req/s, p50/p99 ${measured.latencyMs.p50}/${measured.latencyMs.p99} ms, ` +
      `non-2xx ${measured.non2xx}`)
    return { read: measured, serverCpuUsPerRequest: 1e6 * cpu / Math.max(1, measured.requests) }
  } finally {
    await server.stop()
  }
}

function latenessLine (l: BuildLateness, monitors: number): string {
  const of = (x: BuildLateness['baseline']) => `${x.latenessMs.p50} / ${x.latenessMs.p95} / ${x.latenessMs.p99} / ${x.latenessMs.max} ms (${x.n.toLocaleString('en-US')} checks)`
  const change = Math.round(100 * (l.during.latenessMs.p95 / l.baseline.latenessMs.p95 - 1))
  const moved = l.baseline.latenessMs.p95 === 0 ? '' : `, p95 ${change >= 0 ? '+' : ''}${change}%`
  return `One checker worker at ${monitors.toLocaleString('en-US')} monitors a minute, lateness p50 / p95 / p99 / max: ${of(l.baseline)} before, ` +
    `${of(l.during)} while its rollups job built that day again (${l.buildWallSeconds.toFixed(1)} s of wall time, resting as long as it builds)${moved} ` +
    '(target: p95 moved by <= 10%).'
}

/** The report's lines of this part. */
export function rollupReport (r: RollupResults): string[] {
  return [
    `Uptime history: ${r.monitors.toLocaleString('en-US')} monitors with a year of day rollups and 35 days of hour rollups: ` +
      `${Math.round(r.bytesPerMonitor / 1024)} KiB per monitor (indexes included).`,
    `GET /monitors/{id}/uptime, 365 days by day: ${Math.round(r.read.rps).toLocaleString('en-US')} req/s (target >= 1,000), ` +
      `p50/p99 ${r.read.latencyMs.p50}/${r.read.latencyMs.p99} ms, non-2xx ${r.read.non2xx}, ${Math.round(r.serverCpuUsPerRequest)} µs of server CPU per request.`,
    `One day of rollups from ${r.builtChecks.toLocaleString('en-US')} checks (${r.builtMonitors.toLocaleString('en-US')} monitors at 1/min): ` +
      `${r.buildSeconds.toFixed(1)} s (target <= 60 s for 14.4 M).`,
    ...(r.lateness ? [latenessLine(r.lateness, r.builtMonitors)] : []),
  ]
}

// Run alone: DATABASE_URL=postgres://... node --import tsx bench/rollups-bench.ts [monitors] [builtMonitors] [seconds] [--reuse] [--cpu-prof]
// (builtMonitors 0: the read only).
if (import.meta.url === `file://${process.argv[1]}`) {
  const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'))
  const [monitors = 10_000, builtMonitors = 10_000, seconds = 10] = process.argv.slice(2).filter((arg) => !arg.startsWith('--')).map(Number)
  const { mkdtempSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { ensureBuilt } = await import('./processes.ts')
  ensureBuilt()
  const logDir = mkdtempSync(join(tmpdir(), 'pingward-bench-'))
  const results = await runRollupBench({
    adminUrl: process.env.DATABASE_URL!,
    monitors,
    builtMonitors,
    connections: 50,
    warmupSeconds: Math.max(1, Math.round(seconds / 3)),
    durationSeconds: seconds,
    logDir,
    reuse: flags.includes('--reuse'),
    cpuProfDir: flags.includes('--cpu-prof') ? join(logDir, 'profiles') : undefined,
    log: console.log,
  })
  if (flags.includes('--cpu-prof')) console.log(`profiles in ${join(logDir, 'profiles')}`)
  console.log(rollupReport(results).join('\n'))
}
