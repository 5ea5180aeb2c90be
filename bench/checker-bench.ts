// The checker benchmark: real worker processes checking the seeded monitors (1-minute interval) against
// a local target, measured from the database (lateness = probe start minus due time) and from /proc.
import { join } from 'node:path'
import type { Runner } from './database.ts'
import { freePort } from '../test/support/target-server.ts'
import { machineCpu, processStats, startNode, waitForHttp, type Child } from './processes.ts'
import { runProbeAnchor, type ProbeAnchorResult } from './probe-anchor.ts'

export interface CheckerPhaseResult {
  label: string
  workers: number
  monitors: number
  /** Checks recorded per second in the measured window, and what 1-minute intervals offer. */
  checksPerSecond: number
  offeredPerSecond: number
  latenessMs: { p50: number, p95: number, p99: number, max: number }
  /** Highest resident memory of any worker in the window. */
  rssMb: number
  cpuSecondsPer1000: number
  /** Checks per worker, from each worker's debug stats lines. */
  perWorker: number[]
  /** Two checks of one monitor less than 30 s apart (a double check: the interval is a minute). */
  doubleChecks: number
  failedChecks: number
  /** Requests the target saw vs checks recorded, over the whole phase. */
  targetRequests: number
  recordedChecks: number
  machineBusyPercent: number
  windowSeconds: number
}

interface DrainResult {
  monitors: number
  seconds: number
  checksPerSecond: number
}

export interface CheckerBenchOptions {
  databaseUrl: string
  db: Runner
  monitors: number
  warmupSeconds: number
  measureSeconds: number
  logDir: string
  log: (line: string) => void
}

interface Worker { child: Child, stats: Array<{ time: number, checks: number }> }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function startWorker (options: CheckerBenchOptions, vars: Record<string, string> = {}): Worker {
  const worker: Worker = { child: undefined as unknown as Child, stats: [] }
  worker.child = startNode('src/worker.ts', {
    DATABASE_URL: options.databaseUrl, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'debug', ...vars,
  }, {
    // BENCH_CHECKER_CPU_PROF=<dir>: a --cpu-prof profile of each worker there (what a check costs, by function).
    nodeArgs: process.env.BENCH_CHECKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CHECKER_CPU_PROF}`] : [],
    onLine: (line) => {
      if (!line.includes('checker stats')) return
      const entry = JSON.parse(line) as { time: number, checks: number }
      worker.stats.push({ time: entry.time, checks: entry.checks })
    },
  })
  return worker
}

/**
 * The mixed run's kinds, by the monitor's index modulo 3: a site with a keyword and a degraded limit (the
 * target answers "ok" at once), a tcp monitor connecting to the target's port, a dns monitor asking the
 * benchmark's resolver for an A record it must contain. Otherwise every monitor is a plain site.
 */
function kindColumns (target: string, mixed: boolean): string {
  if (!mixed) return `monitor_type = 'site', url = '${target}/m' || b.idx, keyword = null, degraded_after_ms = null, dns_record_type = null, dns_expected = null`
  const port = new URL(target).port
  return `monitor_type = (array['site', 'tcp', 'dns'])[b.idx % 3 + 1],
      url = case b.idx % 3 when 0 then '${target}/m' || b.idx when 1 then 'tcp://127.0.0.1:${port}' else 'dns://m' || b.idx || '.bench.test' end,
      keyword = case when b.idx % 3 = 0 then 'ok' end, degraded_after_ms = case when b.idx % 3 = 0 then 2000 end,
      dns_record_type = case when b.idx % 3 = 2 then 'A' end, dns_expected = case when b.idx % 3 = 2 then array['192.0.2.1'] end`
}

/**
 * Points the first `monitors` seeded monitors at the target, 1-minute interval, all up; the rest (and
 * anything the API benchmark created) are removed or paused. Due times: all at `start` (drain), or spread
 * evenly over the minute after `start` (steady state). Returns the start.
 */
async function prepare (db: Runner, target: string, monitors: number, spread: boolean, mixed = false): Promise<Date> {
  await pointAtTarget(db, target, monitors, mixed)
  return schedule(db, monitors, spread)
}

/**
 * Everything of prepare() but the due times (none is due after it): the removal (the API benchmark's POSTs leave
 * some 100,000 monitors: 13 s on a slow machine) and the update, whose pause trigger runs per row.
 */
export async function pointAtTarget (db: Runner, target: string, monitors: number, mixed = false): Promise<void> {
  await db.exec(`
    delete from monitors where id not in (select id from bench_monitors);
    update monitors m set ${kindColumns(target, mixed)}, interval_minutes = 1, method = 'GET', expected_status = 200,
      timeout_seconds = 10, is_active = b.idx < ${monitors}, status = case when b.idx < ${monitors} then 'up' else 'paused' end,
      consecutive_failures = 0, consecutive_successes = 1, next_check_at = null
    from bench_monitors b
    where b.id = m.id;
  `)
}

/** The start and the due times of prepare() alone, a statement of a second, so that none has passed when a checker starts. */
export async function schedule (db: Runner, monitors: number, spread: boolean): Promise<Date> {
  const start = new Date(Date.now() + 3000)
  await db.exec(`
    drop table if exists bench_due;
    create table bench_due as
      select id as monitor_id, '${start.toISOString()}'::timestamptz
             + ${spread ? `(idx::float8 / ${monitors}) * interval '60 seconds'` : "interval '0 seconds'"} as due_at
      from bench_monitors where idx < ${monitors};
    update monitors m set next_check_at = d.due_at from bench_due d where d.monitor_id = m.id;
    analyze monitors;
  `)
  return start
}

/**
 * Adds monitors (no checks) until bench_monitors holds `total`, dealt round the seeded monitors' users, for a phase
 * beyond the seed's count; returns what removes them again (the other parts count the seeded monitors).
 */
async function addMonitors (db: Runner, total: number): Promise<() => Promise<void>> {
  const [{ n: seeded }] = await db.query('select count(*)::int as n from bench_monitors')
  const remove = () => db.exec(`
    delete from monitors where id in (select id from bench_monitors where idx >= ${seeded});
    delete from bench_monitors where idx >= ${seeded};`)
  if (seeded >= total) return async () => {}
  await db.exec(`
    with added as (
      insert into monitors (org_id, name, url, interval_minutes, status, is_active, consecutive_successes, next_check_at, created_at, updated_at)
      select b.org_id, 'Added monitor ' || g, 'http://127.0.0.1:9/a' || g, 1, 'paused', false, 0, now() + interval '1 day', now(), now()
      from generate_series(${seeded}, ${total - 1}) g join bench_monitors b on b.idx = g % ${seeded}
      returning id, org_id, name)
    insert into bench_monitors (id, org_id, idx) select id, org_id, split_part(name, ' ', 3)::int from added;
    analyze monitors;`)
  return remove
}

/**
 * 500 maintenance windows over the checked monitors, 20 each, all `mute` (checks go on): a third recurring daily; the
 * first 100 under way from the start, the next 100 beginning in the measured window and ending 60 s later, the rest
 * tomorrow; the workers' sweep acts on their edges. And 2,000 dependency edges, a monitor on the next of its organization.
 */
async function addMaintenance (db: Runner, start: Date, options: CheckerBenchOptions): Promise<void> {
  const at = (ms: number) => `'${new Date(start.getTime() + ms).toISOString()}'::timestamptz`
  const inWindow = (options.warmupSeconds + 30) * 1000
  await db.query(`
    insert into maintenance_windows (org_id, title, monitor_ids, starts_at, ends_at, rrule, mode, next_starts_at, next_ends_at)
    select o.org_id, 'bench window ' || g, o.ids, s.a, s.z, case when g % 3 = 0 then 'FREQ=DAILY' end, 'mute', s.a, s.z
    from generate_series(0, 499) g
    join bench_monitors first on first.idx = (g * 20) % ${options.monitors}
    cross join lateral (select first.org_id, array(select b.id from bench_monitors b where b.org_id = first.org_id and b.idx < ${options.monitors}
      order by md5(b.id::text || g) limit 20) as ids) o
    cross join lateral (select case when g < 100 then ${at(-60_000)} when g < 200 then ${at(inWindow)} else ${at(86_400_000)} end as a) s0
    cross join lateral (select s0.a as a, case when g < 100 then ${at(3_600_000)} else s0.a + interval '60 seconds' end as z) s
    ;
    with ranked as (
      select id, idx, lead(id) over (partition by org_id order by idx) as parent from bench_monitors where idx < ${options.monitors}
    ), edges as (select id, parent from ranked where parent is not null order by idx limit 2000)
    update monitors m set depends_on = array[e.parent] from edges e where m.id = e.id;`)
}

async function removeMaintenance (db: Runner): Promise<void> {
  await db.query(`
    delete from maintenance_windows where title like 'bench window %';
    delete from monitor_maintenance;
    update monitors set depends_on = '{}', in_maintenance = false, maintenance_paused = false where in_maintenance or depends_on <> '{}';`)
}

async function targetRequests (target: string): Promise<number> {
  return ((await (await fetch(`${target}/__stats`)).json()) as { requests: number }).requests
}

/** All monitors due at once: how fast one worker works through the backlog (its capacity). */
async function drain (options: CheckerBenchOptions, target: string): Promise<DrainResult> {
  const start = await prepare(options.db, target, options.monitors, false)
  const worker = startWorker(options)
  try {
    const deadline = Date.now() + 180_000
    for (;;) {
      await sleep(1000)
      const [row] = await options.db.query('select count(distinct monitor_id)::int as n from checks where checked_at >= $1', [start.toISOString()])
      if (row.n >= options.monitors || Date.now() > deadline) break
    }
  } finally {
    await worker.child.stop()
  }
  const [row] = await options.db.query(`
    select count(*)::int as n, extract(epoch from max(checked_at) - min(checked_at))::float8 as seconds
    from (select monitor_id, min(checked_at) as checked_at from checks where checked_at >= $1 group by monitor_id) first`,
  [start.toISOString()])
  return { monitors: row.n, seconds: row.seconds, checksPerSecond: (row.n - 1) / row.seconds }
}

/**
 * `workerCount` workers checking the monitors, due spread over the minute, measured after a warm-up.
 * `afterPrepare` changes the prepared monitors before the workers start (the notification benchmark).
 */
export async function steady (
  options: CheckerBenchOptions, target: string, workerCount: number, afterPrepare?: (start: Date) => Promise<void>,
  mixed?: { dnsServer: string }
): Promise<CheckerPhaseResult> {
  const requests0 = await targetRequests(target)
  const start = await prepare(options.db, target, options.monitors, true, mixed !== undefined)
  await afterPrepare?.(start)
  const vars: Record<string, string> = mixed ? { DNS_SERVERS: mixed.dnsServer } : {}
  const workers = Array.from({ length: workerCount }, () => startWorker(options, vars))
  if (Date.now() > start.getTime()) options.log(`  (the workers started ${Date.now() - start.getTime()} ms after the first due time: the first minute is late)`)
  const windowStart = start.getTime() + options.warmupSeconds * 1000
  const windowEnd = windowStart + options.measureSeconds * 1000
  const watched = await watchWorkers(workers, windowStart, windowEnd)
  await sleep(500)
  const row = await latenessIn(options.db, start, new Date(windowStart), new Date(windowEnd))
  const windowSeconds = options.measureSeconds
  const { cpu, rssMax, machineBusyPercent } = watched
  const perWorker = workers.map((w) => w.stats.filter((s) => s.time > windowStart && s.time <= windowEnd + 5000).reduce((a, s) => a + s.checks, 0))
  return {
    label: `${workerCount} worker${workerCount === 1 ? '' : 's'}${mixed ? ', mixed kinds (site with assertions, tcp, dns)' : ''}`,
    workers: workerCount,
    monitors: options.monitors,
    checksPerSecond: row.n / windowSeconds,
    offeredPerSecond: options.monitors / 60,
    latenessMs: row.latenessMs,
    rssMb: Math.round(rssMax / 1024 / 1024),
    cpuSecondsPer1000: cpu / (row.n / 1000),
    perWorker,
    doubleChecks: row.doubles,
    failedChecks: row.failed,
    targetRequests: (await targetRequests(target)) - requests0,
    recordedChecks: row.recorded,
    machineBusyPercent,
    windowSeconds,
  }
}

/** Watches the workers until `windowEnd`, then stops them: their CPU seconds and highest RSS in the window, the machine's busy share. */
async function watchWorkers (workers: Worker[], windowStart: number, windowEnd: number) {
  let rssMax = 0
  let cpuStart: number[] = []
  let cpuEnd: number[] = []
  let machineStart = machineCpu()
  let machineEnd = machineStart
  try {
    while (Date.now() < windowEnd) {
      await sleep(1000)
      const now = Date.now()
      const stats = workers.map((w) => processStats(w.child.pid))
      if (now >= windowStart && cpuStart.length === 0) {
        cpuStart = stats.map((s) => s.cpuSeconds)
        machineStart = machineCpu()
      }
      if (cpuStart.length > 0) {
        cpuEnd = stats.map((s) => s.cpuSeconds)
        machineEnd = machineCpu()
        rssMax = Math.max(rssMax, ...stats.map((s) => s.rssBytes))
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.child.stop()))
  }
  return {
    cpu: cpuEnd.reduce((a, b) => a + b, 0) - cpuStart.reduce((a, b) => a + b, 0),
    rssMax,
    machineBusyPercent: Math.round(100 * (machineEnd.busy - machineStart.busy) / Math.max(1, machineEnd.total - machineStart.total)),
  }
}

/** The built-in locations of the located phase, one worker each. */
const BENCH_LOCATIONS = ['eu', 'us', 'ap']

export interface LocatedPhaseResult {
  monitors: number
  /** Per location: checks per second in the window, lateness (probe start minus the slot's start), slots without a check. */
  locations: Array<{ code: string, checksPerSecond: number, latenessMs: { p50: number, p95: number, p99: number, max: number }, missedSlots: number }>
  rssMb: number
  cpuSecondsPer1000: number
  failedChecks: number
  machineBusyPercent: number
  windowSeconds: number
}

/**
 * Issue 46: every monitor checked from three built-in locations, a worker each (CHECKER_LOCATION), slots spread over the
 * minute; lateness per location from the checks' slots. The monitors' locations and creation times are put back after.
 */
async function locatedSteady (options: CheckerBenchOptions, target: string): Promise<LocatedPhaseResult> {
  const n = options.monitors
  await pointAtTarget(options.db, target, n)
  const start = new Date(Date.now() + 3000)
  const slotOf = `'${start.toISOString()}'::timestamptz + (b.idx::float8 / ${n}) * interval '60 seconds'`
  const codes = `array[${BENCH_LOCATIONS.map((code) => `'${code}'`).join(', ')}]`
  const states = `jsonb_build_array(${BENCH_LOCATIONS.map((code) =>
    `jsonb_build_object('location', '${code}', 'status', 'pending', 'last_checked_at', null, 'error_message', null)`).join(', ')})`
  await options.db.exec(`
    drop table if exists bench_created;
    create table bench_created as select m.id, m.created_at from monitors m join bench_monitors b on b.id = m.id where b.idx < ${n};
    update monitors m set locations = ${codes}, location_states = ${states}, location_coverage = 'pending', next_check_at = null,
      created_at = ${slotOf} - interval '10 minutes'
    from bench_monitors b where b.id = m.id and b.idx < ${n};
    insert into monitor_schedules (monitor_id, location, next_check_at)
      select b.id, l, ${slotOf} from bench_monitors b cross join unnest(${codes}) l where b.idx < ${n};
    analyze monitors; analyze monitor_schedules;`)
  try {
    const workers = BENCH_LOCATIONS.map((code) => startWorker(options, { CHECKER_LOCATION: code }))
    const windowStart = start.getTime() + options.warmupSeconds * 1000
    const windowEnd = windowStart + options.measureSeconds * 1000
    const watched = await watchWorkers(workers, windowStart, windowEnd)
    await sleep(500)
    const rows = await options.db.query(`
      select location, count(*)::int as n, count(*) filter (where not is_up)::int as failed,
        percentile_cont(array[0.5, 0.95, 0.99]) within group (order by late_ms) as p, max(late_ms)::float8 as max
      from (select location, is_up, extract(epoch from checked_at - slot_at) * 1000 as late_ms from checks
            where slot_at >= $1 and slot_at < $2 and location = any($3)) k
      group by location`, [new Date(windowStart).toISOString(), new Date(windowEnd).toISOString(), BENCH_LOCATIONS])
    const expected = n * options.measureSeconds / 60
    const total = rows.reduce((sum, row) => sum + (row.n as number), 0)
    return {
      monitors: n,
      locations: BENCH_LOCATIONS.map((code) => {
        const row = rows.find((r) => r.location === code) ?? { n: 0, p: [0, 0, 0], max: 0 }
        const p = (row.p ?? [0, 0, 0]).map(Number)
        return {
          code,
          checksPerSecond: row.n / options.measureSeconds,
          latenessMs: { p50: Math.round(p[0]), p95: Math.round(p[1]), p99: Math.round(p[2]), max: Math.round(row.max ?? 0) },
          missedSlots: Math.max(0, Math.round(expected) - row.n),
        }
      }),
      rssMb: Math.round(watched.rssMax / 1024 / 1024),
      cpuSecondsPer1000: watched.cpu / (total / 1000),
      failedChecks: rows.reduce((sum, row) => sum + (row.failed as number), 0),
      machineBusyPercent: watched.machineBusyPercent,
      windowSeconds: options.measureSeconds,
    }
  } finally {
    await options.db.exec(`
      delete from monitor_schedules where location = any(${codes});
      update monitors m set locations = '{}', location_states = '[]', location_coverage = 'pending', created_at = c.created_at
      from bench_created c where c.id = m.id;
      drop table bench_created;`)
  }
}

/**
 * The lateness of the checks recorded from `from` to `to` (of monitors in bench_due, checked since `start`): each
 * check's due time is the previous check of the monitor plus the interval, or its prepared first due time. Also
 * the checks counted over the whole phase: those in the window, doubles (two within 30 s), failed and recorded.
 */
export async function latenessIn (db: Runner, start: Date, from: Date, to: Date) {
  const [row] = await db.query(`
    with c as (
      select k.monitor_id, k.checked_at, k.is_up,
             lag(k.checked_at) over (partition by k.monitor_id order by k.checked_at) as previous
      from checks k where k.checked_at >= $1
    ), l as (
      select c.*, extract(epoch from c.checked_at - coalesce(c.previous + interval '1 minute', d.due_at)) * 1000 as late_ms
      from c join bench_due d on d.monitor_id = c.monitor_id
    )
    select count(*) filter (where checked_at >= $2 and checked_at < $3)::int as n,
           percentile_cont(array[0.5, 0.95, 0.99]) within group (order by late_ms) filter (where checked_at >= $2 and checked_at < $3) as p,
           max(late_ms) filter (where checked_at >= $2 and checked_at < $3)::float8 as max,
           count(*) filter (where previous is not null and checked_at - previous < interval '30 seconds')::int as doubles,
           count(*) filter (where not is_up)::int as failed,
           count(*)::int as recorded
    from l`, [start.toISOString(), from.toISOString(), to.toISOString()])
  const p = (row.p ?? [0, 0, 0]).map(Number)
  return {
    n: row.n as number,
    latenessMs: { p50: Math.round(p[0]), p95: Math.round(p[1]), p99: Math.round(p[2]), max: Math.round(row.max ?? 0) },
    doubles: row.doubles as number,
    failed: row.failed as number,
    recorded: row.recorded as number,
  }
}

export interface CheckerResults {
  drain: DrainResult
  phases: CheckerPhaseResult[]
  located?: LocatedPhaseResult
  /** What one HTTP probe costs blackbox_exporter and Pingward's probe alone, against the same target (issue 17). */
  anchor?: ProbeAnchorResult
}

/**
 * The phases BENCH_CHECKER_PHASES names (comma-separated: drain, 1, 2, mixed, 30k, maintenance, locations, anchor; all when unset): a shorter run
 * that still gives the capacity (drain) and one worker's steady state (1), for before/after comparisons of one change.
 */
function phasesToRun (): Set<string> {
  const all = ['drain', '1', '2', 'mixed', '30k', 'maintenance', 'locations', 'anchor']
  const named = process.env.BENCH_CHECKER_PHASES?.split(',').map((p) => p.trim()).filter(Boolean) ?? all
  if (named.some((p) => !all.includes(p))) throw new Error(`BENCH_CHECKER_PHASES takes a comma-separated list of ${all.join(', ')}`)
  return new Set(named)
}

/** The drain (capacity) of one worker, then steady state with one worker, then with two, then one with mixed kinds. */
export async function runCheckerBench (options: CheckerBenchOptions): Promise<CheckerResults> {
  const run = phasesToRun()
  const port = await freePort()
  const targetChild = startNode('bench/target-server.ts', { PORT: String(port) }, { logFile: join(options.logDir, 'target.log') })
  const target = `http://127.0.0.1:${port}`
  const dnsPort = await freePort()
  let dnsReady: () => void
  const dnsListening = new Promise<void>((resolve) => { dnsReady = resolve })
  const dnsChild = startNode('bench/dns-target.ts', { PORT: String(dnsPort) }, { onLine: (line) => { if (line === 'listening') dnsReady() } })
  try {
    await dnsListening
    await waitForHttp(`${target}/__stats`, targetChild)
    let drained: DrainResult = { monitors: 0, seconds: 0, checksPerSecond: 0 }
    if (run.has('drain')) {
      options.log(`  drain: ${options.monitors} monitors due at once, one worker`)
      drained = await drain(options, target)
      options.log(`  drain: ${drained.monitors} checks in ${drained.seconds.toFixed(1)} s = ${Math.round(drained.checksPerSecond)} checks/s`)
    }
    // With no worker running (per-probe CPU is each process's own): blackbox_exporter and Pingward's probe alone.
    const anchor = run.has('anchor')
      ? await runProbeAnchor({ target: `${target}/anchor`, probes: 5000, concurrency: 20, logDir: options.logDir, log: options.log })
      : undefined
    const phases: CheckerPhaseResult[] = []
    for (const workers of [1, 2]) {
      if (!run.has(String(workers))) continue
      options.log(`  steady state, ${workers} worker(s): ${options.warmupSeconds} s warm-up + ${options.measureSeconds} s measured`)
      const result = await steady(options, target, workers)
      options.log(`  ${result.label}: ${result.checksPerSecond.toFixed(1)} checks/s, lateness p50/p95/p99 ${result.latenessMs.p50}/` +
        `${result.latenessMs.p95}/${result.latenessMs.p99} ms, RSS ${result.rssMb} MB, ${result.cpuSecondsPer1000.toFixed(2)} CPU s/1000 checks, ` +
        `per worker ${result.perWorker.join('/')}, double checks ${result.doubleChecks}`)
      phases.push(result)
    }
    if (run.has('mixed')) {
      options.log(`  steady state, 1 worker, mixed kinds: ${options.warmupSeconds} s warm-up + ${options.measureSeconds} s measured`)
      const mixed = await steady(options, target, 1, undefined, { dnsServer: `127.0.0.1:${dnsPort}` })
      options.log(`  ${mixed.label}: ${mixed.checksPerSecond.toFixed(1)} checks/s, lateness p50/p95/p99 ${mixed.latenessMs.p50}/` +
        `${mixed.latenessMs.p95}/${mixed.latenessMs.p99} ms, RSS ${mixed.rssMb} MB, ${mixed.cpuSecondsPer1000.toFixed(2)} CPU s/1000 checks, failed ${mixed.failedChecks}`)
      phases.push(mixed)
    }
    if (run.has('30k')) {
      // Issue 17: one worker keeps up with 30,000 monitors a minute (500 checks/s), lateness p95 <= 2 s.
      const monitors = 3 * options.monitors
      options.log(`  steady state, 1 worker, ${monitors} monitors: ${options.warmupSeconds} s warm-up + ${options.measureSeconds} s measured`)
      const removeAdded = await addMonitors(options.db, monitors)
      try {
        const many = await steady({ ...options, monitors }, target, 1)
        options.log(`  ${many.label}, ${monitors} monitors: ${many.checksPerSecond.toFixed(1)} checks/s (offered ${many.offeredPerSecond.toFixed(1)}), lateness ` +
          `p50/p95/p99 ${many.latenessMs.p50}/${many.latenessMs.p95}/${many.latenessMs.p99} ms, RSS ${many.rssMb} MB, ${many.cpuSecondsPer1000.toFixed(2)} CPU s/1000 checks`)
        phases.push(many)
      } finally {
        await removeAdded()
      }
    }
    if (run.has('maintenance')) {
      // Issue 44: with 500 windows (a third recurring) and 2,000 dependency edges, CPU per check +10% at most, lateness p95 <= 1 s.
      options.log(`  steady state, 1 worker, 500 maintenance windows and 2,000 dependency edges: ${options.warmupSeconds} s warm-up + ${options.measureSeconds} s measured`)
      try {
        const quiet = await steady(options, target, 1, (start) => addMaintenance(options.db, start, options))
        quiet.label = '1 worker, 500 maintenance windows, 2,000 dependency edges'
        options.log(`  ${quiet.label}: ${quiet.checksPerSecond.toFixed(1)} checks/s, lateness p50/p95/p99 ${quiet.latenessMs.p50}/` +
          `${quiet.latenessMs.p95}/${quiet.latenessMs.p99} ms, RSS ${quiet.rssMb} MB, ${quiet.cpuSecondsPer1000.toFixed(2)} CPU s/1000 checks`)
        phases.push(quiet)
      } finally {
        await removeMaintenance(options.db)
      }
    }
    let located: LocatedPhaseResult | undefined
    if (run.has('locations')) {
      options.log(`  steady state, ${options.monitors} monitors x ${BENCH_LOCATIONS.length} locations, a worker each: ${options.warmupSeconds} s warm-up + ${options.measureSeconds} s measured`)
      located = await locatedSteady(options, target)
      for (const l of located.locations) {
        options.log(`  location ${l.code}: ${l.checksPerSecond.toFixed(1)} checks/s, lateness p50/p95/p99/max ${l.latenessMs.p50}/${l.latenessMs.p95}/` +
          `${l.latenessMs.p99}/${l.latenessMs.max} ms, missed slots ${l.missedSlots}`)
      }
      options.log(`  located: RSS ${located.rssMb} MB, ${located.cpuSecondsPer1000.toFixed(2)} CPU s/1000 checks, failed ${located.failedChecks}, machine busy ${located.machineBusyPercent}%`)
    }
    return { drain: drained, phases, anchor, located }
  } finally {
    await Promise.all([targetChild.stop(), dnsChild.stop()])
  }
}
