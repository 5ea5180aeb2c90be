// A monitor's uptime and latency over a range, by hour or day (api-contract section 10): the stored rollups,
// and for what is not built yet (the current hour, the lag of the job) the same rollup computed from raw rows.
import { sql, type Placeholder, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { emptyHistogram, percentiles, sparsePercentiles } from '../domain/latency-histogram.ts'
import type { RollupGranularity } from '../domain/vocabulary.ts'
import type { UptimeFigures, UptimeReport } from '../schemas/uptime.ts'
import { assertOwnerFound, ownedMonitorRow, ownerValue, perOwnerKind, type Owner, type OwnerKind } from './owner.ts'
import { bucketStart, rollupSelect, STEP_MS } from './rollups.ts'

const STEP_SQL: Record<RollupGranularity, SQL> = { hour: sql.raw("interval '1 hour'"), day: sql.raw("interval '1 day'") }

/**
 * The statement of the stored rows of a monitor in a range: an index range read of at most a bucket per row
 * (test/repositories/rollups-explain.test.ts). Day rows are read from the covering index of day rows only
 * (drizzle/0014_rollup_days_covering.sql) without their table: the job writes a day of every monitor at once,
 * so a monitor's year of rows lies on 365 pages of the table (8 ms a year, read from the OS's cache) and
 * on some 15 of the index. The granularity is a literal so that a prepared statement's plan can use it.
 */
export function storedRollupsQuery (granularity: RollupGranularity, p: Record<'monitorId' | 'start' | 'end', SQL | string | Placeholder>) {
  return sql`select start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts from monitor_rollups
    where monitor_id = ${p.monitorId}::uuid and granularity = ${sql.raw(`'${granularity}'`)}
      and start >= ${p.start}::timestamptz and start < ${p.end}::timestamptz`
}

/**
 * The whole read in one statement, one round trip: the owner's monitor (proving that the request's key still
 * exists, the deleted-key rule of docs/architecture.md), how far the rollups are built, and the rows of the
 * range as one text (`rows`): the stored rows of the granularity, then for a day being built its built
 * hours, then past those the hours computed from raw rows by rollupSelect. A row is
 * `start ms,checks,failed,tracked ms,downtime ms,{buckets},{counts}`, rows separated by `;`: one string
 * for the driver to hand over instead of 365 rows of 7 values (bench/results.md, issue #16).
 */
const uptimeStatement = perOwnerKind((kind: OwnerKind) => {
  const build = (granularity: RollupGranularity) => preparedSql(`uptime_${kind}_${granularity}`, () => {
    const hours = granularity === 'day'
      ? sql`union all ${storedRollupsQuery('hour', { monitorId: sql`req.id`, start: sql`greatest(req.first, req.built_to)`, end: sql`req.hours_to` })}`
      : sql``
    // The hours not built yet: from the built ones (or the first bucket) to the end.
    const live = rollupSelect({
      buckets: sql`select g as s, least(g + interval '1 hour', req.range_end) as e from req,
        generate_series(greatest(req.first, req.hours_to), req.range_end - interval '1 millisecond', interval '1 hour') g`,
      lo: sql`(select greatest(first, hours_to) from req)`,
      hi: sql`(select range_end from req)`,
    }, sql`(select id from req)`)
    // Each placeholder once (q), so that the statement has four parameters.
    return sql`
      with q as (
        select m.id, m.created_at, ${sql.placeholder('end')}::timestamptz as range_end,
          greatest(${sql.placeholder('start')}::timestamptz, date_bin(${STEP_SQL[granularity]}, m.created_at, timestamptz '1970-01-01T00:00:00Z')) as first,
          (select built_until from rollup_progress where granularity = 'hour') as hour_built,
          (select built_until from rollup_progress where granularity = 'day') as day_built
        ${ownedMonitorRow(kind, 'monitorId')}
      ), h as (
        select q.*, least(coalesce(hour_built, first), range_end) as hours_to from q
      ), req as (
        select h.*, ${granularity === 'day' ? sql`least(coalesce(day_built, first), hours_to)` : sql`hours_to`} as built_to from h
      )
      select req.id, (extract(epoch from req.created_at) * 1000)::float8 as created, (
        select string_agg(concat_ws(',', (extract(epoch from x.start) * 1000)::bigint, x.checks, x.failed_checks, x.tracked_ms,
          x.downtime_ms, x.hist_buckets, x.hist_counts), ';')
        from (
          ${storedRollupsQuery(granularity, { monitorId: sql`req.id`, start: sql`req.first`, end: sql`req.built_to` })}
          ${hours}
          union all
          select start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts from (${live}) l
        ) x
      ) as rows
      from req`
  })
  return { hour: build('hour'), day: build('day') }
})

/** The rows of the statement, parsed into arrays: a row's histogram is its part of `buckets` and `counts`. */
interface Rows {
  length: number
  start: Float64Array
  checks: Float64Array
  failed: Float64Array
  tracked: Float64Array
  down: Float64Array
  /** Where each row's histogram begins in buckets and counts (histogramEnd[row]: where it ends). */
  histogramStart: Int32Array
  histogramEnd: Int32Array
  buckets: Int32Array
  counts: Float64Array
}

/** The arrays of parseRows, kept from one read to the next (grown when needed): allocating them was a share of the GC. */
let scratch: Rows | undefined

/**
 * Parses `rows` (see uptimeStatement) in one pass over its characters, without splitting it into strings, into
 * arrays shared by every read (valid until the next call: the read uses them before it awaits anything).
 */
function parseRows (text: string): Rows {
  let n = text.length === 0 ? 0 : 1
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 59) n++
  // Every histogram entry takes at least 2 characters in each array: ',' or '{' and a digit.
  const entries = Math.ceil(text.length / 4)
  if (scratch === undefined || scratch.start.length < n || scratch.buckets.length < entries) {
    const [rowsMax, entriesMax] = [Math.max(n, 512), Math.max(entries, 16_384)]
    scratch = {
      length: 0,
      start: new Float64Array(rowsMax),
      checks: new Float64Array(rowsMax),
      failed: new Float64Array(rowsMax),
      tracked: new Float64Array(rowsMax),
      down: new Float64Array(rowsMax),
      histogramStart: new Int32Array(rowsMax),
      histogramEnd: new Int32Array(rowsMax),
      buckets: new Int32Array(entriesMax),
      counts: new Float64Array(entriesMax),
    }
  }
  const rows = scratch
  rows.length = n
  const fields = [rows.start, rows.checks, rows.failed, rows.tracked, rows.down]
  let at = 0
  let bucketsAt = 0
  let countsAt = 0
  for (let row = 0; row < n; row++) {
    // Five numbers, each followed by ','.
    for (const field of fields) {
      let value = 0
      for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at)) value = value * 10 + c - 48
      field[row] = value
      at++
    }
    rows.histogramStart[row] = bucketsAt
    // '{1,2,3}' or '{}', twice: the buckets, then their counts; then ';'.
    for (let array = 0; array < 2; array++) {
      at++
      while (text.charCodeAt(at) !== 125) {
        let value = 0
        for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at)) value = value * 10 + c - 48
        if (array === 0) rows.buckets[bucketsAt++] = value
        else rows.counts[countsAt++] = value
        if (text.charCodeAt(at) === 44) at++
      }
      at += 2
    }
    rows.histogramEnd[row] = bucketsAt
  }
  return rows
}

const round = (value: number, places: number) => Math.floor(value * 10 ** places) / 10 ** places

type Period = UptimeReport['summary']

function period (start: string, end: string, checks: number, failed: number, trackedMs: number, downtimeMs: number, latency: UptimeFigures['response_time_ms']): Period {
  return {
    start,
    end,
    // Rounded down, so that any downtime keeps it below 100.
    uptime_percent: trackedMs > 0 ? round(100 * (trackedMs - downtimeMs) / trackedMs, 4) : null,
    downtime_seconds: Math.round(downtimeMs / 1000),
    checks,
    failed_checks: failed,
    response_time_ms: latency,
  }
}

/** ISO texts of whole hours, which repeat from one answer to the next (a year by day has 366 of them). */
const isoTexts = new Map<number, string>()
function iso (at: number): string {
  if (at % 3_600_000 !== 0) return new Date(at).toISOString()
  let text = isoTexts.get(at)
  if (text === undefined) {
    if (isoTexts.size >= 20_000) isoTexts.clear()
    isoTexts.set(at, text = new Date(at).toISOString())
  }
  return text
}

export interface UptimeQuery { from: Date, to: Date, granularity: RollupGranularity }

/**
 * The uptime of one of the owner's live monitors over the buckets that hold `from` to `to` (whole UTC
 * hours or days, the last one ending at `now` at the latest, none before the monitor's creation);
 * undefined when there is no such monitor. Built buckets are read; the others are summed from built
 * hours and, past those, computed from raw rows.
 */
export async function monitorUptime (db: Database, owner: Owner, monitorId: string, query: UptimeQuery, now: Date): Promise<UptimeReport | undefined> {
  const { granularity } = query
  const step = STEP_MS[granularity]
  const from = bucketStart(query.from.getTime(), granularity)
  const end = Math.min(bucketStart(query.to.getTime() - 1, granularity) + step, now.getTime())
  const result = rowsOf<{ id: string | null, created: number | null, rows: string | null }>(await uptimeStatement(owner)[granularity](db).execute({
    owner: ownerValue(owner), monitorId, start: new Date(from).toISOString(), end: new Date(end).toISOString(),
  }))
  assertOwnerFound(owner, result)
  const [monitor] = result
  if (monitor.id === null) return undefined
  const start = Math.max(from, bucketStart(monitor.created!, granularity))
  const rows = parseRows(monitor.rows ?? '')
  const count = Math.max(0, Math.ceil((end - start) / step))
  // Per bucket: the sums, and its rows (first[bucket], then next[row]) for its histogram.
  const [checks, failed, tracked, down] = [new Float64Array(count), new Float64Array(count), new Float64Array(count), new Float64Array(count)]
  const [first, next, rowsIn] = [new Int32Array(count).fill(-1), new Int32Array(rows.length), new Int32Array(count)]
  const all = emptyHistogram()
  const total = { checks: 0, failed: 0, tracked: 0, down: 0 }
  for (let row = 0; row < rows.length; row++) {
    const bucket = Math.floor((rows.start[row] - start) / step)
    if (bucket < 0 || bucket >= count) continue
    checks[bucket] += rows.checks[row]
    failed[bucket] += rows.failed[row]
    tracked[bucket] += rows.tracked[row]
    down[bucket] += rows.down[row]
    if (rows.histogramEnd[row] > rows.histogramStart[row]) {
      next[row] = first[bucket]
      first[bucket] = row
      rowsIn[bucket]++
      for (let i = rows.histogramStart[row]; i < rows.histogramEnd[row]; i++) all[rows.buckets[i]] += rows.counts[i]
    }
  }
  const merged = emptyHistogram()
  const buckets: UptimeReport['buckets'] = new Array(count)
  for (let bucket = 0; bucket < count; bucket++) {
    total.checks += checks[bucket]
    total.failed += failed[bucket]
    total.tracked += tracked[bucket]
    total.down += down[bucket]
    let latency: UptimeFigures['response_time_ms']
    const row = first[bucket]
    if (rowsIn[bucket] <= 1) {
      // Mostly one stored row: its own sparse histogram.
      latency = row < 0 ? { p50: null, p95: null, p99: null } : sparsePercentiles(rows.buckets, rows.counts, rows.histogramStart[row], rows.histogramEnd[row])
    } else {
      merged.fill(0)
      for (let r = row; r >= 0; r = next[r]) for (let i = rows.histogramStart[r]; i < rows.histogramEnd[r]; i++) merged[rows.buckets[i]] += rows.counts[i]
      latency = percentiles(merged)
    }
    const at = start + bucket * step
    buckets[bucket] = period(iso(at), iso(Math.min(at + step, end)), checks[bucket], failed[bucket], tracked[bucket], down[bucket], latency)
  }
  return {
    summary: period(iso(start), iso(Math.max(start, end)), total.checks, total.failed, total.tracked, total.down, percentiles(all)),
    buckets,
  }
}
