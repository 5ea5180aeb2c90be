// The public status page benchmark (issue #45's targets): one API process on PostgreSQL answering a published page of
// 50 components to 200 connections, plain and with If-None-Match, beside a bare reference server that answers the
// same bytes with the same ETag logic; the database's transactions during the load counted; the time a
// 100-component page with 90 days of bars takes to read (loadPageView) and to build whole (render and compress); and
// the lateness of the checker of a server with its checker on, quiet and while the page is under that load.
import { createServer, get, type Server } from 'node:http'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../src/db/client.ts'
import { PageSnapshots } from '../src/status-pages/snapshots.ts'
import { findPublishedPage } from '../src/status-pages/repository.ts'
import { loadPageView } from '../src/status-pages/view.ts'
import { freePort } from '../test/support/target-server.ts'
import type { Runner } from './database.ts'
import type { LoadResult } from './load.ts'
import { latenessIn, pointAtTarget, schedule } from './checker-bench.ts'
import { processStats, runLoad, startNode, waitForHttp, type Child } from './processes.ts'

export interface StatusPageBenchOptions {
  databaseUrl: string
  db: Runner
  /** The organization whose monitors the pages' components follow (the seeded API writer's). */
  orgId: string
  connections: number
  durationSeconds: number
  rounds: number
  /** The checker's part: this many seeded monitors checked a minute apart, after this warm-up. */
  checker: { monitors: number, warmupSeconds: number }
  logDir: string
  log: (line: string) => void
}

type Lateness = Awaited<ReturnType<typeof latenessIn>>

/** One server with its checker on: its checks' lateness in a quiet window, then in the window of one page load. */
interface CheckerUnderLoad {
  monitors: number
  quiet: { lateness: Lateness, seconds: number, serverCpuPercent: number }
  loaded: { lateness: Lateness, seconds: number, serverCpuPercent: number }
  /** The page's load in the loaded window, answered by that server. */
  page: LoadResult
}

export interface StatusPageResults {
  connections: number
  pingward: { plain: LoadResult, conditional: LoadResult }
  reference: { plain: LoadResult, conditional: LoadResult }
  /** Database transactions (each statement outside one counts one) per request answered during Pingward's runs. */
  transactionsPerRequest: number
  pageBytes: number
  serverCpuUsPerRequest: number
  rebuild: { components: number, days: number, readMs: { median: number, p95: number }, buildMs: { median: number, p95: number } }
  checker: CheckerUnderLoad
}

const SLUGS = { load: 'bench-status-50', rebuild: 'bench-status-100' } as const
const ACCEPT = 'br, gzip'

/** A GET whose body is read as sent (compressed). */
function rawGet (url: string, headers: Record<string, string>): Promise<{ status: number, encoding: string | undefined, etag: string, body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject)
      res.on('end', () => resolve({ status: res.statusCode!, encoding: res.headers['content-encoding'], etag: String(res.headers.etag), body: Buffer.concat(chunks) }))
    }).on('error', reject)
  })
}

async function seedPage (db: Runner, orgId: string, slug: string, components: number): Promise<void> {
  await db.query('delete from status_pages where slug = $1', [slug])
  // The seed gives the organization about 90 monitors: paused ones make up the rest (no checker probes them).
  await db.query(`
    insert into monitors (org_id, name, url, is_active)
    select $1, 'Page monitor ' || i, 'https://example.com/page/' || i, false
    from generate_series(1, $2::int - (select count(*) from monitors where org_id = $1 and deleted_at is null)::int) i`, [orgId, components])
  const [page] = await db.query(
    'insert into status_pages (org_id, slug, title, published, domain_token) values ($1, $2, $3, true, $4) returning id',
    [orgId, slug, `Bench ${components}`, `token-${slug}`])
  await db.query(`
    insert into status_page_components (page_id, name, position, monitor_id)
    select $1, 'Component ' || n, n, m.id
    from (select id, row_number() over (order by id) as n from monitors where org_id = $2 and deleted_at is null order by id limit $3) m`,
  [page.id, orgId, components])
  const [made] = await db.query('select count(*)::int as count from status_page_components where page_id = $1', [page.id])
  if (made.count !== components) throw new Error(`the page ${slug} has ${made.count} components, not ${components}`)
  // 90 days of daily rollups for the followed monitors, a few minutes down on some days, kept if a run made them.
  await db.query(`
    insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts)
    select c.monitor_id, 'day', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - d * interval '1 day', 1440, 0, 86400000,
      case when random() < 0.1 then (random() * 600000)::int else 0 end, 0, '{}', '{}'
    from status_page_components c, generate_series(1, 89) d
    where c.page_id = $1
    on conflict do nothing`, [page.id])
}

/** The load page as browsers ask for it (brotli or gzip), read raw: fetch() would decompress. */
async function firstAnswer (base: string): Promise<{ body: Buffer, etag: string }> {
  const first = await rawGet(`${base}/status/${SLUGS.load}`, { 'accept-encoding': ACCEPT })
  if (first.status !== 200 || first.encoding !== 'br') throw new Error(`the bench page answered ${first.status} (${first.encoding})`)
  return first
}

/** Autocannon on the load page, plain or with its ETag in If-None-Match. */
const loadPage = (url: string, options: StatusPageBenchOptions, etag?: string) => runLoad({
  url,
  method: 'GET',
  paths: [`/status/${SLUGS.load}`],
  headers: { 'accept-encoding': ACCEPT, ...(etag ? { 'if-none-match': etag } : {}) },
  connections: options.connections,
  durationSeconds: options.durationSeconds,
})

/** A bare server answering one body as the page does: strong ETag, 304 for If-None-Match, the same Cache-Control. */
async function referenceServer (body: Buffer, etag: string): Promise<{ url: string, server: Server }> {
  const server = createServer((req, res) => {
    const headers = { etag, 'cache-control': 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400', vary: 'accept-encoding' }
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, headers).end()
    res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'br', 'content-length': body.length }).end(body)
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${port}`, server }
}

/** Waits for a moment of wall time (a window's edge). */
const until = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())))

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

async function transactions (db: Runner): Promise<number> {
  const [row] = await db.query('select xact_commit + xact_rollback as count from pg_stat_database where datname = current_database()')
  return Number(row.count)
}

export async function runStatusPageBench (options: StatusPageBenchOptions): Promise<StatusPageResults> {
  const { db } = options
  await seedPage(db, options.orgId, SLUGS.load, 50)
  await seedPage(db, options.orgId, SLUGS.rebuild, 100)

  // The rebuild: the page's statements, then the whole snapshot (statements, HTML, feeds, JSON, badges, compression).
  const handle = await openDatabase({ DATABASE_URL: options.databaseUrl, DATA_DIR: 'memory://', poolSize: 4 })
  const readMs: number[] = []
  const buildMs: number[] = []
  try {
    const page = (await findPublishedPage(handle.db, { slug: SLUGS.rebuild }))!
    for (let i = 0; i < 21; i++) {
      let started = performance.now()
      await loadPageView(handle.db, page, new Date())
      if (i > 0) readMs.push(performance.now() - started)
      const snapshots = new PageSnapshots({ db: handle.db, clock: () => new Date(), publicUrl: 'http://localhost:3000', subscriptions: false, onError: () => {} })
      started = performance.now()
      await snapshots.get({ slug: SLUGS.rebuild })
      if (i > 0) buildMs.push(performance.now() - started)
      snapshots.close()
    }
  } finally {
    await handle.close()
  }

  const pages = await measurePage(options)
  const rebuild = {
    components: 100,
    days: 90,
    readMs: { median: percentile(readMs, 0.5), p95: percentile(readMs, 0.95) },
    buildMs: { median: percentile(buildMs, 0.5), p95: percentile(buildMs, 0.95) },
  }
  return { ...pages, rebuild, checker: await measureCheckerUnderLoad(options) }
}

/** The page from a server with its checker off, beside the reference, in alternating rounds. */
async function measurePage (options: StatusPageBenchOptions): Promise<Omit<StatusPageResults, 'rebuild' | 'checker'>> {
  const { db, log } = options
  const port = await freePort()
  const server = startNode('src/server.ts', { DATABASE_URL: options.databaseUrl, PORT: String(port), CHECKER: 'off', LOG_LEVEL: 'info' },
    { logFile: join(options.logDir, 'status-page-server.log') })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}/healthz`, server)
    const { body, etag } = await firstAnswer(base)
    const reference = await referenceServer(body, etag)
    try {
      const load = (url: string, conditional: boolean) => loadPage(url, options, conditional ? etag : undefined)
      // Warm-up of both, then rounds that alternate them; the best round of each counts (the machine is shared).
      await load(base, false)
      await load(reference.url, false)
      const runs = { pingward: { plain: [] as LoadResult[], conditional: [] as LoadResult[] }, reference: { plain: [] as LoadResult[], conditional: [] as LoadResult[] } }
      let pingwardRequests = 0
      let pingwardTransactions = 0
      let pingwardCpu = 0
      for (let round = 0; round < options.rounds; round++) {
        for (const conditional of [false, true]) {
          const kind = conditional ? 'conditional' : 'plain'
          const before = await transactions(db)
          const cpuStart = processStats(server.pid).cpuSeconds
          const result = await load(base, conditional)
          pingwardCpu += processStats(server.pid).cpuSeconds - cpuStart
          pingwardTransactions += await transactions(db) - before - 1
          pingwardRequests += result.requests
          runs.pingward[kind].push(result)
          runs.reference[kind].push(await load(reference.url, conditional))
          log(`status page round ${round + 1} ${kind}: Pingward ${Math.round(result.rps)} req/s p99 ${result.latencyMs.p99} ms, reference ${Math.round(runs.reference[kind].at(-1)!.rps)} req/s`)
        }
      }
      const best = (results: LoadResult[]) => results.reduce((a, b) => (b.rps > a.rps ? b : a))
      return {
        connections: options.connections,
        pingward: { plain: best(runs.pingward.plain), conditional: best(runs.pingward.conditional) },
        reference: { plain: best(runs.reference.plain), conditional: best(runs.reference.conditional) },
        transactionsPerRequest: Math.max(0, pingwardTransactions) / pingwardRequests,
        pageBytes: body.length,
        serverCpuUsPerRequest: pingwardCpu * 1e6 / pingwardRequests,
      }
    } finally {
      reference.server.close()
    }
  } finally {
    await server.stop()
  }
}

/**
 * One server as `npm start` runs it, its checker on, checking the checker benchmark's monitors a minute apart against a
 * local target: the checks' lateness over a quiet window, then over the window of one page load as above.
 */
async function measureCheckerUnderLoad (options: StatusPageBenchOptions): Promise<CheckerUnderLoad> {
  const { db, log } = options
  const { monitors, warmupSeconds } = options.checker
  const targetPort = await freePort()
  const target = startNode('bench/target-server.ts', { PORT: String(targetPort) }, { logFile: join(options.logDir, 'status-checker-target.log') })
  let server: Child | undefined
  try {
    await waitForHttp(`http://127.0.0.1:${targetPort}/__stats`, target)
    await pointAtTarget(db, `http://127.0.0.1:${targetPort}`, monitors)
    // Made again over the monitors the checker checks (pointing them removes all but the seeded ones).
    await seedPage(db, options.orgId, SLUGS.load, 50)
    const port = await freePort()
    server = startNode('src/server.ts', { DATABASE_URL: options.databaseUrl, PORT: String(port), ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' },
      { logFile: join(options.logDir, 'status-checker-server.log') })
    const base = `http://127.0.0.1:${port}`
    await waitForHttp(`${base}/healthz`, server)
    await firstAnswer(base)
    // The page warmed as in the rounds above before anything is due: neither the server's start nor this load is the
    // checker's warm-up.
    await loadPage(base, options)
    const start = await schedule(db, monitors, true)
    const cpuPercent = (from: number, seconds: number) => 100 * (processStats(server!.pid).cpuSeconds - from) / seconds
    const quietFrom = Math.max(Date.now(), start.getTime() + warmupSeconds * 1000)
    const quietTo = quietFrom + options.durationSeconds * 1000
    await until(quietFrom)
    let cpu = processStats(server.pid).cpuSeconds
    await until(quietTo)
    const quietCpu = cpuPercent(cpu, options.durationSeconds)
    cpu = processStats(server.pid).cpuSeconds
    const page = await loadPage(base, options)
    const loadedSeconds = (page.finishedAt - page.startedAt) / 1000
    const loadedCpu = cpuPercent(cpu, loadedSeconds)
    // Stopped before the count: it records its last probes as it stops.
    await server.stop()
    server = undefined
    const quiet = await latenessIn(db, start, new Date(quietFrom), new Date(quietTo))
    const loaded = await latenessIn(db, start, new Date(page.startedAt), new Date(page.finishedAt))
    log(`status page with the checker on: lateness p50/p95 ${quiet.latenessMs.p50}/${quiet.latenessMs.p95} ms quiet, ` +
      `${loaded.latenessMs.p50}/${loaded.latenessMs.p95} ms under ${Math.round(page.rps)} req/s (p99 ${page.latencyMs.p99} ms)`)
    return {
      monitors,
      quiet: { lateness: quiet, seconds: options.durationSeconds, serverCpuPercent: quietCpu },
      loaded: { lateness: loaded, seconds: loadedSeconds, serverCpuPercent: loadedCpu },
      page,
    }
  } finally {
    await server?.stop()
    await target.stop()
  }
}

const verdict = (ok: boolean) => ok ? 'met' : '**missed**'

export function statusPageTable (r: StatusPageResults): string[] {
  const row = (label: string, p: LoadResult, ref: LoadResult, target: string) =>
    `| ${label} | ${Math.round(p.rps).toLocaleString('en-US')} | ${p.latencyMs.p50} / ${p.latencyMs.p99} | ${Math.round(ref.rps).toLocaleString('en-US')} | ` +
    `${ref.latencyMs.p50} / ${ref.latencyMs.p99} | ${(p.rps / ref.rps).toFixed(2)} | ${target} |`
  const { plain, conditional } = r.pingward
  return [
    `A page of 50 components (${Math.round(r.pageBytes / 1024)} KiB of HTML as brotli, asked for with Accept-Encoding: br, gzip), ${r.connections} connections; the best of each kind's rounds.`,
    '',
    '| request | Pingward req/s | p50 / p99 ms | reference req/s | reference p50 / p99 ms | ratio | targets |',
    '|---|---:|---:|---:|---:|---:|---|',
    row('GET /status/{slug}', plain, r.reference.plain, `>= 5,000 req/s: ${verdict(plain.rps >= 5000)}; p99 <= 20 ms: ${verdict(plain.latencyMs.p99 <= 20)}`),
    row('with If-None-Match (304)', conditional, r.reference.conditional, `>= 2x the plain: ${verdict(conditional.rps >= 2 * plain.rps)}`),
    '',
    `Database transactions per request during Pingward's runs: ${r.transactionsPerRequest.toFixed(5)} (target 0 beyond a version check: ` +
      `${verdict(r.transactionsPerRequest < 0.001)}); server CPU ${Math.round(r.serverCpuUsPerRequest)} µs per request.`,
    `A ${r.rebuild.components}-component page with ${r.rebuild.days} days of bars: its statements ${r.rebuild.readMs.median.toFixed(1)} ms median, ` +
      `${r.rebuild.readMs.p95.toFixed(1)} ms p95 (target <= 50 ms of database time: ${verdict(r.rebuild.readMs.median <= 50)}); the whole snapshot ` +
      `(statements, HTML, JSON, feeds, badges, gzip and brotli) ${r.rebuild.buildMs.median.toFixed(1)} ms median, ${r.rebuild.buildMs.p95.toFixed(1)} ms p95.`,
    '',
    ...checkerLines(r.checker, r.connections),
  ]
}

/** The checker's lateness in the page's server, quiet and under the page's load (issue #45: p95 moved by <= 10%). */
function checkerLines (c: CheckerUnderLoad, connections: number): string[] {
  const int = (n: number) => Math.round(n).toLocaleString('en-US')
  const row = (label: string, w: CheckerUnderLoad['quiet'], page: string) => {
    const l = w.lateness.latenessMs
    return `| ${label} | ${(w.lateness.n / w.seconds).toFixed(1)} (${(c.monitors / 60).toFixed(1)}) | ${l.p50} / ${l.p95} / ${l.p99} / ${l.max} | ` +
      `${int(w.lateness.n)} | ${Math.round(w.serverCpuPercent)}% | ${page} |`
  }
  const ratio = c.loaded.lateness.latenessMs.p95 / c.quiet.lateness.latenessMs.p95
  return [
    `The checker in the page's server, as \`npm start\` runs it (its checker on), ${int(c.monitors)} monitors a minute against a local ` +
      `target, the page's components among them: the checks' lateness in a quiet window, then in the window of one load of the page (${connections} connections).`,
    '',
    '| window | checks/s (offered) | lateness p50 / p95 / p99 / max ms | checks | server CPU, % of a core | page req/s, p50 / p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
    row(`quiet, ${c.quiet.seconds} s`, c.quiet, '-'),
    row(`the page loaded, ${c.loaded.seconds.toFixed(1)} s`, c.loaded, `${int(c.page.rps)}, ${c.page.latencyMs.p50} / ${c.page.latencyMs.p99}${c.page.non2xx ? ` (${int(c.page.non2xx)} non-2xx)` : ''}`),
    '',
    `Lateness p95 under the page's load / quiet: ${ratio.toFixed(2)} (target <= 1.10: ${verdict(ratio <= 1.1)}).`,
  ]
}
