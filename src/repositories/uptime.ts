// A monitor's uptime and latency over a range, by hour or day: the stored rollups, and for what is not built
// yet the same rollup computed from raw rows.
import { sql, type Placeholder, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { emptyHistogram, percentilesAt, percentilesInto, type PercentileColumns } from '../domain/latency-histogram.ts'
import type { RollupGranularity } from '../domain/vocabulary.ts'
import type { UptimeReport } from '../schemas/uptime.ts'
import { assertOwnerFound, ownedMonitorRow, ownerValue, perOwnerKind, type Owner, type OwnerKind } from './owner.ts'
import { bucketStart, rollupSelect, STEP_MS } from './rollups.ts'

const STEP_SQL: Record<RollupGranularity, SQL> = { hour: sql.raw("interval '1 hour'"), day: sql.raw("interval '1 day'") }

/** A rollup row as text (rollup_row_text, drizzle/0016_rollup_day_text.sql). */
const ROW_TEXT = sql.raw('rollup_row_text(start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts)')

/**
 * A monitor's stored rows in a range, as text. Day rows come from a covering index (drizzle/0016); the
 * granularity is a literal so that a prepared statement's plan can use it.
 */
export function storedRollupsQuery (granularity: RollupGranularity, p: Record<'monitorId' | 'start' | 'end', SQL | string | Placeholder>) {
  return sql`select ${granularity === 'day' ? sql.raw('row_text') : ROW_TEXT} as row from monitor_rollups
    where monitor_id = ${p.monitorId}::uuid and granularity = ${sql.raw(`'${granularity}'`)}
      and start >= ${p.start}::timestamptz and start < ${p.end}::timestamptz`
}

// The whole read in one round trip: the owner's monitor (the deleted-key rule), the stored rows, the built hours
// of a day being built, then hours computed by rollupSelect. Rows come back as one text, `;`-separated, each
// `start ms,checks,failed,tracked ms,downtime ms,maintenance ms,{buckets},{counts}`: one value for the driver, not many rows.
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
        select string_agg(x.row, ';')
        from (
          ${storedRollupsQuery(granularity, { monitorId: sql`req.id`, start: sql`req.first`, end: sql`req.built_to` })}
          ${hours}
          union all
          select ${ROW_TEXT} from (${live}) l
        ) x
      ) as rows
      from req`
  })
  return { hour: build('hour'), day: build('day') }
})

/** The parsed rows, column by column: a row's histogram is its slice of `buckets` and `counts`. */
interface Rows {
  length: number
  start: Float64Array
  checks: Float64Array
  failed: Float64Array
  tracked: Float64Array
  down: Float64Array
  maintenance: Float64Array
  histogramStart: Int32Array
  histogramEnd: Int32Array
  buckets: Int32Array
  counts: Float64Array
}

/** The arrays of parseRows, reused across reads (grown when needed) to spare the garbage collector. */
let scratch: Rows | undefined

// Parses the statement's text in one pass, without splitting it into strings. The arrays are shared:
// valid until the next call, which is safe because the read uses them before it awaits anything.
function parseRows (text: string): Rows {
  // A row takes at least 17 characters ("0,0,0,0,0,0,{},{}"), a histogram entry at least 2 in each array.
  const [rowsMax, entriesMax] = [Math.ceil((text.length + 1) / 17), Math.ceil(text.length / 4)]
  if (scratch === undefined || scratch.start.length < rowsMax || scratch.buckets.length < entriesMax) {
    const [rowsSize, entriesSize] = [Math.max(rowsMax, 512), Math.max(entriesMax, 16_384)]
    scratch = {
      length: 0,
      start: new Float64Array(rowsSize),
      checks: new Float64Array(rowsSize),
      failed: new Float64Array(rowsSize),
      tracked: new Float64Array(rowsSize),
      down: new Float64Array(rowsSize),
      maintenance: new Float64Array(rowsSize),
      histogramStart: new Int32Array(rowsSize),
      histogramEnd: new Int32Array(rowsSize),
      buckets: new Int32Array(entriesSize),
      counts: new Float64Array(entriesSize),
    }
  }
  const rows = scratch
  const { start, checks, failed, tracked, down, maintenance, histogramStart, histogramEnd, buckets, counts } = rows
  let at = 0
  let entry = 0
  let row = 0
  /** The whole number at `at`; the character after it (',', '}' or ';') is skipped. */
  const number = (): number => {
    let value = 0
    for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at)) value = value * 10 + c - 48
    at++
    return value
  }
  for (; at < text.length; row++) {
    start[row] = number()
    checks[row] = number()
    failed[row] = number()
    tracked[row] = number()
    down[row] = number()
    maintenance[row] = number()
    histogramStart[row] = entry
    // '{1,2,3}' or '{}': the buckets; then ',' and their counts in the same form; then ';' or the end.
    at++
    if (text.charCodeAt(at) === 125) at++
    else while (text.charCodeAt(at - 1) !== 125) buckets[entry++] = number()
    at += 2
    let count = histogramStart[row]
    if (text.charCodeAt(at) === 125) at++
    else while (text.charCodeAt(at - 1) !== 125) counts[count++] = number()
    histogramEnd[row] = entry
    at++
  }
  rows.length = row
  return rows
}

// Bucket i at index i, the whole range at `count`: columns, because src/routes/uptime-json.ts writes them as bytes.
export interface UptimeSeries extends PercentileColumns {
  count: number
  start: number
  step: number
  end: number
  checks: Float64Array
  failed: Float64Array
  trackedMs: Float64Array
  downtimeMs: Float64Array
  maintenanceMs: Float64Array
}

/** Start and end (ms) of bucket `i` of a series, or of the whole range when i is `count`. */
export function bucketBounds (series: UptimeSeries, i: number): [number, number] {
  if (i === series.count) return [series.start, Math.max(series.start, series.end)]
  const at = series.start + i * series.step
  return [at, Math.min(at + series.step, series.end)]
}

/** The share of tracked time not down, rounded down so that any downtime keeps it below 100. */
export const uptimePercent = (trackedMs: number, downtimeMs: number): number | null =>
  trackedMs > 0 ? Math.floor(100 * (trackedMs - downtimeMs) / trackedMs * 1e4) / 1e4 : null

/** The series as one object per bucket, for the dashboard and tests. */
export function uptimeReport (series: UptimeSeries): UptimeReport {
  const period = (i: number): UptimeReport['summary'] => {
    const [start, end] = bucketBounds(series, i)
    return {
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
      uptime_percent: uptimePercent(series.trackedMs[i], series.downtimeMs[i]),
      downtime_seconds: Math.round(series.downtimeMs[i] / 1000),
      maintenance_seconds: Math.round(series.maintenanceMs[i] / 1000),
      checks: series.checks[i],
      failed_checks: series.failed[i],
      response_time_ms: percentilesAt(series, i),
    }
  }
  return { summary: period(series.count), buckets: Array.from({ length: series.count }, (_, i) => period(i)) }
}

export interface UptimeQuery { from: Date, to: Date, granularity: RollupGranularity }

/** The uptime of an owner's live monitor over whole UTC hours or days, up to `now`; undefined when there is no such monitor. */
export async function monitorUptime (db: Database, owner: Owner, monitorId: string, query: UptimeQuery, now: Date): Promise<UptimeSeries | undefined> {
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
  // Sums per bucket and for the whole range; each bucket's rows are linked (first[bucket], then next[row]).
  const column = () => new Float64Array(count + 1)
  const series: UptimeSeries = {
    count,
    start,
    step,
    end,
    checks: column(),
    failed: column(),
    trackedMs: column(),
    downtimeMs: column(),
    maintenanceMs: column(),
    p50: column(),
    p95: column(),
    p99: column(),
  }
  const [first, next, rowsIn] = [new Int32Array(count).fill(-1), new Int32Array(rows.length), new Int32Array(count)]
  const all = emptyHistogram()
  for (let row = 0; row < rows.length; row++) {
    const bucket = Math.floor((rows.start[row] - start) / step)
    if (bucket < 0 || bucket >= count) continue
    series.checks[bucket] += rows.checks[row]
    series.failed[bucket] += rows.failed[row]
    series.trackedMs[bucket] += rows.tracked[row]
    series.downtimeMs[bucket] += rows.down[row]
    series.maintenanceMs[bucket] += rows.maintenance[row]
    if (rows.histogramEnd[row] > rows.histogramStart[row]) {
      next[row] = first[bucket]
      first[bucket] = row
      rowsIn[bucket]++
      for (let i = rows.histogramStart[row]; i < rows.histogramEnd[row]; i++) all[rows.buckets[i]] += rows.counts[i]
    }
  }
  const merged = emptyHistogram()
  for (let bucket = 0; bucket < count; bucket++) {
    series.checks[count] += series.checks[bucket]
    series.failed[count] += series.failed[bucket]
    series.trackedMs[count] += series.trackedMs[bucket]
    series.downtimeMs[count] += series.downtimeMs[bucket]
    series.maintenanceMs[count] += series.maintenanceMs[bucket]
    const row = first[bucket]
    if (rowsIn[bucket] <= 1) {
      // Usually one stored row: its own sparse histogram is used as is.
      percentilesInto(series, bucket, rows.buckets, rows.counts, row < 0 ? 0 : rows.histogramStart[row], row < 0 ? 0 : rows.histogramEnd[row])
    } else {
      merged.fill(0)
      for (let r = row; r >= 0; r = next[r]) for (let i = rows.histogramStart[r]; i < rows.histogramEnd[r]; i++) merged[rows.buckets[i]] += rows.counts[i]
      percentilesInto(series, bucket, null, merged)
    }
  }
  percentilesInto(series, count, null, all)
  return series
}
