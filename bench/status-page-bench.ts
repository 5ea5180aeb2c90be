// The public status page benchmark (issue #45's targets): one API process on PostgreSQL answering a published page of
// 50 components to 200 connections, plain and with If-None-Match, beside a bare reference server that answers the
// same bytes with the same ETag logic; the database's transactions during the load counted; and the time a
// 100-component page with 90 days of bars takes to read (loadPageView) and to build whole (render and compress).
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
import { processStats, runLoad, startNode, waitForHttp } from './processes.ts'

export interface StatusPageBenchOptions {
  databaseUrl: string
  db: Runner
  /** The organization whose monitors the pages' components follow (the seeded API writer's). */
  orgId: string
  connections: number
  durationSeconds: number
  rounds: number
  logDir: string
  log: (line: string) => void
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
  const [page] = await db.query(
    'insert into status_pages (org_id, slug, title, published, domain_token) values ($1, $2, $3, true, $4) returning id',
    [orgId, slug, `Bench ${components}`, `token-${slug}`])
  await db.query(`
    insert into status_page_components (page_id, name, position, monitor_id)
    select $1, 'Component ' || n, n, m.id
    from (select id, row_number() over (order by id) as n from monitors where org_id = $2 and deleted_at is null order by id limit $3) m`,
  [page.id, orgId, components])
  // 90 days of daily rollups for the followed monitors, a few minutes down on some days, kept if a run made them.
  await db.query(`
    insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts)
    select c.monitor_id, 'day', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - d * interval '1 day', 1440, 0, 86400000,
      case when random() < 0.1 then (random() * 600000)::int else 0 end, 0, '{}', '{}'
    from status_page_components c, generate_series(1, 89) d
    where c.page_id = $1
    on conflict do nothing`, [page.id])
}

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

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

async function transactions (db: Runner): Promise<number> {
  const [row] = await db.query('select xact_commit + xact_rollback as count from pg_stat_database where datname = current_database()')
  return Number(row.count)
}

export async function runStatusPageBench (options: StatusPageBenchOptions): Promise<StatusPageResults> {
  const { db, log } = options
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

  const port = await freePort()
  const server = startNode('src/server.ts', { DATABASE_URL: options.databaseUrl, PORT: String(port), CHECKER: 'off', LOG_LEVEL: 'info' },
    { logFile: join(options.logDir, 'status-page-server.log') })
  const base = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${base}/healthz`, server)
    // As browsers ask: brotli or gzip. fetch() would decompress, so the bytes are read raw.
    const first = await rawGet(`${base}/status/${SLUGS.load}`, { 'accept-encoding': ACCEPT })
    if (first.status !== 200 || first.encoding !== 'br') throw new Error(`the bench page answered ${first.status} (${first.encoding})`)
    const { body, etag } = first
    const reference = await referenceServer(body, etag)
    try {
      const load = (url: string, conditional: boolean) => runLoad({
        url,
        method: 'GET',
        paths: [`/status/${SLUGS.load}`],
        headers: { 'accept-encoding': ACCEPT, ...(conditional ? { 'if-none-match': etag } : {}) },
        connections: options.connections,
        durationSeconds: options.durationSeconds,
      })
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
        rebuild: {
          components: 100,
          days: 90,
          readMs: { median: percentile(readMs, 0.5), p95: percentile(readMs, 0.95) },
          buildMs: { median: percentile(buildMs, 0.5), p95: percentile(buildMs, 0.95) },
        },
      }
    } finally {
      reference.server.close()
    }
  } finally {
    await server.stop()
  }
}

const verdict = (ok: boolean) => ok ? 'met' : '**missed**'

export function statusPageTable (r: StatusPageResults): string[] {
  const row = (label: string, p: LoadResult, ref: LoadResult, target: string) =>
    `| ${label} | ${Math.round(p.rps).toLocaleString('en-US')} | ${p.latencyMs.p50} / ${p.latencyMs.p99} | ${Math.round(ref.rps).toLocaleString('en-US')} | ` +
    `${(p.rps / ref.rps).toFixed(2)} | ${target} |`
  const { plain, conditional } = r.pingward
  return [
    `A page of 50 components (${Math.round(r.pageBytes / 1024)} KiB of HTML as brotli, asked for with Accept-Encoding: br, gzip), ${r.connections} connections; the best of each kind's rounds.`,
    '',
    '| request | Pingward req/s | p50 / p99 ms | reference req/s | ratio | targets |',
    '|---|---:|---:|---:|---:|---|',
    row('GET /status/{slug}', plain, r.reference.plain, `>= 5,000 req/s: ${verdict(plain.rps >= 5000)}; p99 <= 20 ms: ${verdict(plain.latencyMs.p99 <= 20)}`),
    row('with If-None-Match (304)', conditional, r.reference.conditional, `>= 2x the plain: ${verdict(conditional.rps >= 2 * plain.rps)}`),
    '',
    `Database transactions per request during Pingward's runs: ${r.transactionsPerRequest.toFixed(5)} (target 0 beyond a version check: ` +
      `${verdict(r.transactionsPerRequest < 0.001)}); server CPU ${Math.round(r.serverCpuUsPerRequest)} µs per request.`,
    `A ${r.rebuild.components}-component page with ${r.rebuild.days} days of bars: its statements ${r.rebuild.readMs.median.toFixed(1)} ms median, ` +
      `${r.rebuild.readMs.p95.toFixed(1)} ms p95 (target <= 50 ms of database time: ${verdict(r.rebuild.readMs.median <= 50)}); the whole snapshot ` +
      `(statements, HTML, JSON, feeds, badges, gzip and brotli) ${r.rebuild.buildMs.median.toFixed(1)} ms median, ${r.rebuild.buildMs.p95.toFixed(1)} ms p95.`,
  ]
}
