// `npm run bench`: seeds a PostgreSQL database next to DATABASE_URL, benchmarks the API against a bare
// reference server, the checker with real workers and the notification deliveries, then the API on PGlite;
// and the memory of one server with 100 monitors (embedded, and on PostgreSQL when DATABASE_URL is set); writes
// and the operator CLI's time per command; writes
// bench/results.md. Options: BENCH_SCALE=small (a quick run), --only api,checker,deliveries,heartbeats,agents,status,rollups,pglite,memory,cli (some
// parts), --reuse (keep a database seeded by an earlier run at the same scale), --cpu-prof (profiles of the API servers and the heartbeat server),
// --endpoints list,page (only these API endpoints: checks, monitor, list, page, create). BENCH_PINGWARD_NODE_ARGS:
// node flags added to Pingward's server in the api and memory parts (an experiment such as "--trace-gc"; npm start's are
// always there).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { ENDPOINT_LABELS, runApiBench, type Endpoint } from './api-bench.ts'
import { runCheckerBench } from './checker-bench.ts'
import { runDeliveryBench } from './delivery-bench.ts'
import { runHeartbeatBench } from './heartbeat-bench.ts'
import { runAgentBench } from './agent-bench.ts'
import { runStatusPageBench } from './status-page-bench.ts'
import { rollupReport, runRollupBench } from './rollups-bench.ts'
import { runMemoryBench } from './memory-bench.ts'
import { runCliBench } from './cli-bench.ts'
import {
  createPgliteDatabase, createPostgresDatabase, databaseUrl, postgresRunner, postgresVersion, type Runner,
} from './database.ts'
import { renderReport, type ReportInput } from './report.ts'
import { EXPERIMENT_NODE_ARGS, PINGWARD_NODE_FLAGS, ROOT, WORKER_NODE_FLAGS, ensureBuilt } from './processes.ts'
import { seedPageUser, seedPglite, seedPostgres, type Scale, type Seeded } from './seed.ts'
import { verifyReferenceSql } from './verify-sql.ts'
import { migrate } from '../src/db/migrate.ts'
import { openDatabase } from '../src/db/client.ts'
import { runRollups } from '../src/checker/rollups.ts'

/** How the report writes the command that runs a Pingward entry (processes.ts adds npm start's node flags). */
const nodeWith = (flags: string[]) => `node ${flags.map((flag) => `${flag} `).join('')}`
const NODE = nodeWith(PINGWARD_NODE_FLAGS)
/** The API's and the memory part's server, with BENCH_PINGWARD_NODE_ARGS. */
const EXPERIMENT_NODE = nodeWith([...PINGWARD_NODE_FLAGS, ...EXPERIMENT_NODE_ARGS])
const WORKER_NODE = nodeWith(WORKER_NODE_FLAGS)

const SCALES = {
  full: {
    seed: { name: 'full', users: 100, monitors: 10_000, bigUserMonitors: 1_000, checksPerMonitor: 1_000, days: 30 },
    // 10 s of warm-up: with 5 s, Pingward's first round of GET /monitors/{id}/checks had a p99 of 96 ms
    // against 63 and 66 ms in the next two (2026-11-21), a start-up effect rather than a steady state.
    // 5 rounds, not 3: on this shared machine one slow round of either server (a p99 of 189 ms against
    // 102 and 120 in the others, 2026-11-22) moved the mean of 3 by a sixth.
    api: { connections: 50, warmupSeconds: 10, durationSeconds: 10, rounds: 5 },
    // GET /monitors?limit=50 reads the list of a user of its own with this many monitors (issue 16: p99 <= 20 ms).
    pageUserMonitors: 10_000,
    checker: { warmupSeconds: 30, measureSeconds: 180 },
    deliveries: { flipping: 1_000, channelsPerMonitor: 3, pairs: 2 },
    heartbeats: { monitors: 10_000, connections: 50, warmupSeconds: 5, durationSeconds: 30 },
    // Issue 46: two fresh slots of 30,000 monitors, 600 batches of 100 results: 10% a warm-up, then half from 4 senders as
    // fast as they go, half paced at the target's 2,000 results a second.
    agents: { monitors: 30_000, senders: 4, batchSize: 100, warmupShare: 0.1, pacedResultsPerSecond: 2000 },
    status: { connections: 200, durationSeconds: 10, rounds: 3 },
    // Issue 16: a year of rollups of 10,000 monitors read; a day of 14.4 M checks (10,000 monitors at 1/min) built.
    // The checker's lateness while its job builds that day: 30 s warm-up, 60 s before the build as the baseline.
    rollups: { monitors: 10_000, builtMonitors: 10_000, connections: 50, warmupSeconds: 5, durationSeconds: 10, lateness: { warmupSeconds: 30, baselineSeconds: 60 } },
    pglite: { name: 'pglite', users: 2, monitors: 100, bigUserMonitors: 100, checksPerMonitor: 1_000, days: 30 },
    pgliteApi: { connections: 50, warmupSeconds: 5, durationSeconds: 10, rounds: 2 },
    // Four rounds of checks measured, after the first two.
    memory: { monitors: 100, warmupSeconds: 90, measureSeconds: 240, browseRounds: 5, browseEverySeconds: 30 },
    cli: { repeats: 5 },
  },
  small: {
    seed: { name: 'small', users: 10, monitors: 2_000, bigUserMonitors: 1_000, checksPerMonitor: 50, days: 30 },
    api: { connections: 50, warmupSeconds: 1, durationSeconds: 3, rounds: 1 },
    pageUserMonitors: 10_000,
    checker: { warmupSeconds: 10, measureSeconds: 30 },
    deliveries: { flipping: 200, channelsPerMonitor: 3, pairs: 1 },
    heartbeats: { monitors: 10_000, connections: 50, warmupSeconds: 2, durationSeconds: 10 },
    agents: { monitors: 20_000, senders: 4, batchSize: 100, warmupShare: 0.1, pacedResultsPerSecond: 2000 },
    status: { connections: 200, durationSeconds: 5, rounds: 1 },
    rollups: { monitors: 1_000, builtMonitors: 1_000, connections: 50, warmupSeconds: 1, durationSeconds: 5, lateness: { warmupSeconds: 10, baselineSeconds: 20 } },
    pglite: { name: 'pglite-small', users: 2, monitors: 20, bigUserMonitors: 20, checksPerMonitor: 100, days: 30 },
    pgliteApi: { connections: 50, warmupSeconds: 1, durationSeconds: 3, rounds: 1 },
    memory: { monitors: 100, warmupSeconds: 20, measureSeconds: 70, browseRounds: 5, browseEverySeconds: 30 },
    cli: { repeats: 3 },
  },
} satisfies Record<string, { seed: Scale, pglite: Scale, [k: string]: unknown }>

const DB_NAME = 'pingward_bench'
const PARTS = ['api', 'checker', 'deliveries', 'heartbeats', 'agents', 'status', 'rollups', 'pglite', 'memory', 'cli'] as const
type Part = typeof PARTS[number]

const log = (line: string) => process.stdout.write(line + '\n')

function parseArgs (argv: string[]) {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1]?.split(',') : [...PARTS]
  if (!only || only.some((p) => !PARTS.includes(p as Part))) throw new Error(`--only takes a comma-separated list of ${PARTS.join(', ')}`)
  const endpoints = argv.includes('--endpoints') ? argv[argv.indexOf('--endpoints') + 1]?.split(',') : undefined
  if (endpoints && (endpoints.length === 0 || endpoints.some((e) => !(e in ENDPOINT_LABELS)))) {
    throw new Error(`--endpoints takes a comma-separated list of ${Object.keys(ENDPOINT_LABELS).join(', ')}`)
  }
  return { parts: new Set(only as Part[]), reuse: argv.includes('--reuse'), cpuProf: argv.includes('--cpu-prof'), endpoints: endpoints as Endpoint[] | undefined }
}

/** The API endpoints measured: all of `all`, or those of them that --endpoints names. */
const measured = (all: Endpoint[], only: Endpoint[] | undefined): Endpoint[] => only ? all.filter((e) => only.includes(e)) : all

/** Seeds pingward_bench, or with --reuse takes the one an earlier run seeded at this scale. */
async function postgresDatabase (adminUrl: string, scale: Scale, reuse: boolean): Promise<{ url: string, seeded: Seeded }> {
  const url = databaseUrl(adminUrl, DB_NAME)
  if (reuse) {
    const runner = postgresRunner(url)
    try {
      const [meta] = await runner.query('select scale, seeded from bench_meta')
      // A database seeded before the statements checked their key has no readKeyId or writeKeyId: it is seeded again.
      if (meta?.scale === scale.name && JSON.stringify(meta.seeded).includes('writeKeyId')) {
        const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'unused' })
        await migrate(handle, url).finally(() => handle.close())
        log(`reusing ${DB_NAME} (seeded at scale ${scale.name})`)
        // Every check an earlier run recorded left a dead version of its monitor's row. A PostgreSQL whose
        // autovacuum is off (this machine's) kept 932,000 of them beside 335,000 live rows after four checker
        // runs, and the next run's GET /monitors fell from 3.6x to 2.3x the reference: every run starts from
        // the state the seed left it in (VACUUM ANALYZE), whatever the server's settings.
        const started = Date.now()
        await runner.query('vacuum analyze monitors')
        log(`vacuum analyze monitors in ${((Date.now() - started) / 1000).toFixed(1)} s`)
        await catchUpRollups(url)
        return { url, seeded: (typeof meta.seeded === 'string' ? JSON.parse(meta.seeded) : meta.seeded) as Seeded }
      }
    } catch {} finally { await runner.close() }
  }
  const started = Date.now()
  log(`seeding ${DB_NAME}: ${scale.users} users, ${scale.monitors} monitors, ${(scale.monitors * scale.checksPerMonitor).toLocaleString('en-US')} checks`)
  await createPostgresDatabase(adminUrl, DB_NAME)
  const runners = [postgresRunner(url), postgresRunner(url)]
  try {
    const seeded = await seedPostgres(runners, scale, new Date(), log)
    await runners[0].query('create table bench_meta (scale text, seeded jsonb)')
    await runners[0].query('insert into bench_meta values ($1, $2::jsonb)', [scale.name, JSON.stringify(seeded)])
    log(`seeded in ${Math.round((Date.now() - started) / 1000)} s`)
    await catchUpRollups(url)
    return { url, seeded }
  } finally {
    await Promise.all(runners.map((r) => r.close()))
  }
}

/**
 * Builds the uptime rollups up to now, as the checker's job does (src/checker/rollups.ts), before anything is
 * measured: over a freshly seeded month of checks the job's first-start catch-up (hundreds of hour buckets,
 * each a scan of an hour's checks) ran through the measured phases and put seconds of lateness on the checker
 * (bench/results.md, "Issue #13 closed"). The phases measure the steady state, where one hour is built an hour.
 */
async function catchUpRollups (url: string): Promise<void> {
  const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'unused' })
  try {
    const started = Date.now()
    let built = 0
    for (let run; (run = await runRollups(handle.db, () => new Date())) > 0;) built += run
    log(`rollups built up to now: ${built} buckets in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  } finally {
    await handle.close()
  }
}

async function main (): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const scaleName = (process.env.BENCH_SCALE ?? 'full') as keyof typeof SCALES
  const scale = SCALES[scaleName]
  if (!scale) throw new Error(`BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}`)
  const adminUrl = process.env.DATABASE_URL
  const onPostgres = args.parts.has('api') || args.parts.has('checker') || args.parts.has('deliveries') || args.parts.has('heartbeats') || args.parts.has('agents') || args.parts.has('status')
  if (onPostgres && !adminUrl) {
    throw new Error('DATABASE_URL (a PostgreSQL server where a database pingward_bench may be created) is required; --only pglite,memory,cli runs without it')
  }
  // Pingward's processes run as operators run them: node with npm start's flags, dist/<entry>.js (processes.ts).
  ensureBuilt()
  const logDir = mkdtempSync(join(os.tmpdir(), 'pingward-bench-'))
  const cpuProfDir = args.cpuProf ? join(logDir, 'profiles') : undefined
  log(`scale ${scaleName}; parts ${[...args.parts].join(', ')}; logs in ${logDir}`)
  const loadBefore = os.loadavg()
  const report: ReportInput = {
    date: new Date(),
    machine: [
      `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
      `Node ${process.version}${adminUrl ? `, ${await postgresVersion(adminUrl)}` : ''}`,
    ],
    commands: [
      `${adminUrl ? `DATABASE_URL=${adminUrl} ` : ''}${scaleName === 'full' ? '' : `BENCH_SCALE=${scaleName} `}npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      '# which starts, one at a time:',
      `npm run build   # then Pingward runs as \`${NODE}dist/<entry>.js\` (processes.ts)`,
      `CHECKER=off LOG_LEVEL=info RATE_LIMIT_MAX=1000000 MAX_MONITORS_PER_OWNER=0 PORT=<free> DATABASE_URL=<.../${DB_NAME}> ${EXPERIMENT_NODE}dist/server.js`,
      `PORT=<free> DATABASE_URL=<.../${DB_NAME}> REFERENCE_KEY_ID=<id> REFERENCE_WRITE_KEY_ID=<id> ${NODE}--import=tsx bench/reference-server.ts`,
      `node --import=tsx bench/load.ts '{"connections":${scale.api.connections},"durationSeconds":${scale.api.durationSeconds},...}'   # autocannon, a process of its own`,
      'PORT=<free> node --import=tsx bench/target-server.ts',
      'PORT=<free> node --import=tsx bench/notification-receiver.ts   # webhook receiver and target of the delivery benchmark',
      `DATABASE_URL=<.../${DB_NAME}> ALLOW_PRIVATE_TARGETS=true LOG_LEVEL=debug ${WORKER_NODE}dist/worker.js   # once, then twice`,
      `ALLOW_PRIVATE_TARGETS=true LOG_LEVEL=info PORT=<free> DATABASE_URL=<.../${DB_NAME}> ${NODE}dist/server.js   # status pages: the checker on`,
      `CHECKER=off LOG_LEVEL=info RATE_LIMIT_MAX=1000000 MAX_MONITORS_PER_OWNER=0 PORT=<free> DATA_DIR=<tmp> ${NODE}dist/server.js   # PGlite`,
      `ALLOW_PRIVATE_TARGETS=true LOG_LEVEL=info PORT=<free> DATA_DIR=<empty tmp> ${EXPERIMENT_NODE}dist/server.js   # memory, embedded; then DATABASE_URL=<.../pingward_bench_memory>`,
      `DATA_DIR=<empty tmp> ${NODE}dist/cli.js <command>   # CLI; again with LOG_LEVEL=info PORT=<free> DATA_DIR=<same> ${NODE}dist/server.js running; then DATABASE_URL=<.../pingward_bench_cli>`,
    ],
    settings: [],
    notes: [],
  }

  let postgres: { url: string, seeded: Seeded } | undefined
  let runner: Runner | undefined
  try {
    if (onPostgres) {
      postgres = await postgresDatabase(adminUrl!, scale.seed, args.reuse)
      await verifyReferenceSql(postgres.url, postgres.seeded)
      runner = postgresRunner(postgres.url)
      report.settings.push(`PostgreSQL: ${scale.seed.users} users, ${scale.seed.monitors.toLocaleString('en-US')} monitors (${scale.seed.bigUserMonitors} ` +
        `of them the reading user's), ${(scale.seed.monitors * scale.seed.checksPerMonitor).toLocaleString('en-US')} check rows over ${scale.seed.days} days, ` +
        'inserted time slot by time slot as a checker writes them; indexes built after the load, then VACUUM ANALYZE; then the uptime ' +
        'rollups built up to now, as the checker\'s job does, so that no phase measures its first-start catch-up.')
    }
    if (args.parts.has('api') && postgres && runner) {
      const a = scale.api
      report.settings.push(`API: ${a.connections} connections, ${a.warmupSeconds} s warm-up per server and endpoint, then ${a.rounds} rounds of ` +
        `${a.durationSeconds} s alternating Pingward and the reference (A B A B ...); reads rotate over the ${postgres.seeded.monitorIds.length} ` +
        `monitors of one user; GET /monitors?limit=50 reads the first page of another user's ${scale.pageUserMonitors.toLocaleString('en-US')} ` +
        'monitors (inserted for the run, beside the others); POST creates for a third user.')
      log(`API on PostgreSQL (a user with ${scale.pageUserMonitors.toLocaleString('en-US')} monitors for the paged list)`)
      const pageUser = await seedPageUser(runner, scale.pageUserMonitors, new Date())
      report.api = await runApiBench({
        database: { DATABASE_URL: postgres.url },
        seeded: postgres.seeded,
        pageUser,
        endpoints: measured(['checks', 'monitor', 'list', 'page', 'create'], args.endpoints),
        ...a,
        logDir,
        cpuProfDir,
        log,
      })
    }
    if (args.parts.has('checker') && postgres && runner) {
      const c = scale.checker
      report.settings.push(`Checker: ${scale.seed.monitors.toLocaleString('en-US')} active monitors at a 1-minute interval against a local target ` +
        `(200 "ok"); due times spread evenly over the first minute; ${c.warmupSeconds} s warm-up, ${c.measureSeconds} s measured; CHECK_CONCURRENCY default (200).`)
      log('checker on PostgreSQL')
      report.checker = await runCheckerBench({ databaseUrl: postgres.url, db: runner, monitors: scale.seed.monitors, ...c, logDir, log })
    }
    if (args.parts.has('deliveries') && postgres && runner) {
      const c = scale.checker
      const d = scale.deliveries
      report.settings.push(`Deliveries: ${d.flipping.toLocaleString('en-US')} monitors (every ${Math.floor(scale.seed.monitors / d.flipping)}th, so ` +
        `that their checks fall all over the minute) with ${d.channelsPerMonitor} webhook channels each (one ` +
        'channel per monitor and receiver path) to a local receiver answering 204. First one worker with every opening\'s delivery due ' +
        'at once (deliveries/s); then the checker\'s steady state as above (one worker) with those monitors failing for 70 s after the ' +
        'warm-up, then answering again: latency from the delivery row\'s insert (a bench-only trigger notes clock_timestamp() in the ' +
        'incident\'s transaction) to the receiver\'s 2xx.')
      log('deliveries on PostgreSQL')
      report.deliveries = await runDeliveryBench({ databaseUrl: postgres.url, db: runner, monitors: scale.seed.monitors, ...c, ...d, logDir, log })
    }
    if (args.parts.has('heartbeats') && postgres && runner) {
      const h = scale.heartbeats
      report.settings.push(`Heartbeats: ${h.monitors.toLocaleString('en-US')} heartbeat monitors (inserted in SQL, deadlines a day away), one API ` +
        `process (\`${NODE}dist/server.js\`, CHECKER=off, LOG_LEVEL=info, PING_RATE_LIMIT at its maximum so that it counts every ping but ` +
        `refuses none); autocannon with ${h.connections} connections POSTs a 60-byte JSON body to the ping URLs in turn: ${h.warmupSeconds} s ` +
        `warm-up, ${h.durationSeconds} s measured; afterwards the heartbeats' check rows are counted against the 200 answers.`)
      log('heartbeat pings on PostgreSQL')
      report.heartbeats = await runHeartbeatBench({ databaseUrl: postgres.url, db: runner, userId: postgres.seeded.writeUserId, ...h, logDir, cpuProfDir, log })
    }
    if (args.parts.has('agents') && postgres && runner) {
      const a = scale.agents
      report.settings.push(`Agents: ${a.monitors.toLocaleString('en-US')} monitors of one agent location (inserted in SQL, an interval of an hour, made ` +
        `an hour and a minute ago), one API process (\`${NODE}dist/server.js\`, CHECKER=off, LOG_LEVEL=info); ${a.senders} senders in the bench ` +
        `process POST batches of ${a.batchSize} results to /api/v1/agent/results (each monitor's previous slot, then its current: every result ` +
        `fresh and counted toward its quorum), the first ${a.warmupShare * 100}% a warm-up, then half of the rest as fast as they go (results/s), ` +
        `half paced at ${a.pacedResultsPerSecond.toLocaleString('en-US')} results/s (a batch's latency); then the first 20 batches again, which must ` +
        'record nothing; the location\'s check rows are counted against the receipts.')
      log('agent results on PostgreSQL')
      report.agents = await runAgentBench({ databaseUrl: postgres.url, db: runner, userId: postgres.seeded.writeUserId, ...a, logDir, log })
    }
    if (args.parts.has('status') && postgres && runner) {
      const st = scale.status
      report.settings.push('Status pages: a published page of 50 components and one of 100 (their monitors the API writer\'s, 90 days of daily rollups ' +
        `inserted in SQL); one API process (\`${NODE}dist/server.js\`, CHECKER=off, LOG_LEVEL=info); autocannon with ${st.connections} connections ` +
        `asks for the 50-component page, plain and with its ETag in If-None-Match, ${st.rounds} rounds of ${st.durationSeconds} s alternating with a ` +
        'bare node:http server answering the same bytes and ETag (the reference); transactions counted from pg_stat_database; the 100-component ' +
        'page read (loadPageView) and built whole 20 times in the bench process. Then one API process as `npm start` runs it, its checker on ' +
        `(\`${NODE}dist/server.js\`, ALLOW_PRIVATE_TARGETS=true, LOG_LEVEL=info), checking the checker part's ${scale.seed.monitors.toLocaleString('en-US')} ` +
        'monitors a minute against a local target (200 "ok"; due times spread over the minute; the 50-component page made again over ' +
        `them): after ${scale.checker.warmupSeconds} s of warm-up (one load of the page in it), the checks' lateness over ${st.durationSeconds} s ` +
        `with no load, then over one load of the page as above (${st.connections} connections, ${st.durationSeconds} s, from autocannon's start to its finish).`)
      log('status pages on PostgreSQL')
      const checker = { monitors: scale.seed.monitors, warmupSeconds: scale.checker.warmupSeconds }
      report.status = await runStatusPageBench({ databaseUrl: postgres.url, db: runner, orgId: postgres.seeded.writeUserId, ...st, checker, logDir, log })
    }
    if (args.parts.has('rollups') && !adminUrl) log('uptime rollups: skipped, they need DATABASE_URL (PostgreSQL)')
    if (args.parts.has('rollups') && adminUrl) {
      log('uptime rollups on PostgreSQL (a database pingward_bench_rollups of their own)')
      report.notes.push(...rollupReport(await runRollupBench({ adminUrl, ...scale.rollups, logDir, log })))
    }
    if (args.parts.has('pglite')) {
      const dir = join(logDir, 'pglite-data')
      mkdirSync(logDir, { recursive: true })
      log(`PGlite: seeding ${scale.pglite.monitors} monitors x ${scale.pglite.checksPerMonitor} checks`)
      const pglite = await createPgliteDatabase(dir)
      const seeded = await seedPglite(pglite, scale.pglite, new Date()).finally(() => pglite.close())
      const endpoints = measured(['checks', 'monitor', 'list'], args.endpoints)
      report.settings.push(`PGlite: ${scale.pglite.monitors} monitors x ${scale.pglite.checksPerMonitor} checks in DATA_DIR; Pingward and the reference ` +
        `(the same SQL through PGlite itself) cannot open it at once, so each round starts one, then the other; ${scale.pgliteApi.rounds} rounds of ${scale.pgliteApi.durationSeconds} s.`)
      log('API on PGlite')
      report.pglite = await runApiBench({ database: { DATA_DIR: dir }, seeded, endpoints, ...scale.pgliteApi, logDir, log })
    }
    if (args.parts.has('memory')) {
      const m = scale.memory
      report.settings.push(`Memory: one server (API and checker, \`${EXPERIMENT_NODE}dist/server.js\`, LOG_LEVEL=info) with ${m.monitors} monitors at a ` +
        '1-minute interval against a local target (200 "ok"), created through the API with the first key; then, as a newcomer does, the ' +
        'first start\'s setup link followed (password set, signed in) and the dashboard (the monitor list, a monitor\'s page, their assets) and ' +
        `Swagger UI (/docs/, its assets, /docs/json) fetched ${m.browseRounds} times with a browser's Accept-Encoding and cookies, and again every ` +
        `${m.browseEverySeconds} s of the window; RSS from /proc every second for ` +
        `${m.measureSeconds} s after ${m.warmupSeconds} s, and the kernel's high-water mark (VmHWM) of the whole run; first start on an empty ` +
        'database (the embedded one: a copy of the initdb the build ran), then a restart on it; "ms to answer" is from spawn to the first 200 of /healthz. ' +
        `Embedded in a fresh DATA_DIR${adminUrl ? ', then on PostgreSQL in a fresh database pingward_bench_memory' : ''}.`)
      log('memory: one server with 100 monitors')
      report.memory = await runMemoryBench({ adminUrl, dataDir: join(logDir, 'memory-data'), ...m, logDir, log })
    }
    if (args.parts.has('cli')) {
      report.settings.push(`CLI: each command ${scale.cli.repeats} times, wall time from spawn to exit of \`${NODE}dist/cli.js <command>\` ` +
        '(what `npm run -s cli -- <command>` runs after the build, without npm\'s own start); a fresh DATA_DIR with no server, then the same ' +
        `with a server running on it (the CLI goes through its admin socket)${adminUrl ? ', then a fresh PostgreSQL database pingward_bench_cli' : ''}.`)
      log('CLI: time per command')
      report.cli = await runCliBench({ adminUrl, dataDir: join(logDir, 'cli-data'), ...scale.cli, logDir, log })
    }
  } finally {
    await runner?.close()
  }

  const loadAfter = os.loadavg()
  report.machine.push(`Load average (1 min) ${loadBefore[0].toFixed(1)} at the start, ${loadAfter[0].toFixed(1)} at the end.`)
  report.notes.push(
    'This machine is shared: other engineers run test suites on the same 2 cores while the benchmark runs, so absolute figures move ' +
      'from run to run; the ratios of servers measured in alternation in the same run are the figures that count.',
    'Pingward runs as operators run it: LOG_LEVEL=info (one log line per request, to a file), the rate limiter on (RATE_LIMIT_MAX at its ' +
      'maximum so that it counts every request but refuses none), no limit of monitors per user (MAX_MONITORS_PER_OWNER=0: the POSTs ' +
      'give one user some 100,000), the key checked in the database on every request: the reads of ' +
      'GET routes and the insert of POST /monitors start from the key\'s row in the same statement (src/repositories/owner.ts), so a ' +
      'deleted key is refused on its next request.',
    'The reference server runs the same SQL text (checked at the start of the run against what the repositories send, key check included) ' +
      'through postgres.js with prepared statements and the same pool and query gate, answers the same bytes (compared at the start of ' +
      'the run), and has no auth, rate limit, ORM, validation or logging. For GET /monitors (whole and paged) it is the conventional ' +
      'server of issue #17 (rows -> objects -> JSON, the statement of src/monitors/repository.ts).',
    'Lateness is the probe\'s start minus its due time, from the database: the previous check plus the interval, or the prepared first due time.',
    'Server CPU µs/req is the server process\'s CPU time divided by the requests it answered; machine CPU (every round\'s table) includes ' +
      'PostgreSQL, the load generator and everything else running.',
    'Both servers hold back queries beyond the pool\'s size (src/db/driver-workarounds/query-gate.ts): postgres.js 3.4.9 otherwise pipelines them onto ' +
      'busy connections and keeps those in a queue that grows with every query and is scanned by every query, which made both servers ' +
      'slower from round to round (about a fifth of their CPU on GET /monitors/{id} by the end of a run).'
  )
  const markdown = renderReport(report)
  const full = args.parts.size === PARTS.length
  const file = join(ROOT, 'bench', full ? 'results.md' : 'results.partial.md')
  writeFileSync(file, full ? markdown + keptByHand(file) : markdown)
  log('\n' + markdown)
  log(`written to ${file}; server logs in ${logDir}`)
}

const KEPT_HEADING = '## Measurements behind the source'

/** The section of results.md written by hand (the figures source comments point to), carried over a rewrite. */
function keptByHand (file: string): string {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const at = text.indexOf(KEPT_HEADING)
  return at < 0 ? '' : '\n' + text.slice(at)
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
