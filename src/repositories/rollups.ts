// Uptime rollups (monitor_rollups): hour rows built from checks, incidents, pauses and stays in maintenance, day rows from hours,
// each bucket by one set-based statement; how far they are built (rollup_progress); and their retention.
import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { HISTOGRAM_LOWER_BOUNDS } from '../domain/latency-histogram.ts'
import { ROLLUP_RETENTION_DAYS, type RollupGranularity } from '../domain/vocabulary.ts'

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
export const STEP_MS: Record<RollupGranularity, number> = { hour: HOUR_MS, day: DAY_MS }

// An hour is rolled up this long after its end: the failure threshold's re-checks can record an incident's
// first failing check minutes later.
const ROLLUP_LAG_MS = 10 * 60_000

/** The start of the UTC hour or day that holds `at`. */
export const bucketStart = (at: number, granularity: RollupGranularity) => Math.floor(at / STEP_MS[granularity]) * STEP_MS[granularity]

export interface TimeRange { start: number, end: number }

const BOUNDS = sql.raw(`array[${HISTOGRAM_LOWER_BOUNDS.join(',')}]::int[]`)
const ms = (interval: SQL) => sql`(extract(epoch from ${interval}) * 1000)`
const times = (values: number[]) => sql`string_to_array(${values.map((v) => new Date(v).toISOString()).join(',')}, ',')::timestamptz[]`

/** The buckets of a rollupSelect: a query of their bounds (s, e), and the range they lie in (lo to hi). */
export interface BucketQuery { buckets: SQL, lo: SQL, hi: SQL }

/** `ranges` must be ascending and not overlap. */
function bucketsOf (ranges: TimeRange[]): BucketQuery {
  return {
    buckets: sql`select s, e from unnest(${times(ranges.map((b) => b.start))}, ${times(ranges.map((b) => b.end))}) as b(s, e)`,
    lo: sql`${new Date(ranges[0].start).toISOString()}::timestamptz`,
    hi: sql`${new Date(ranges[ranges.length - 1].end).toISOString()}::timestamptz`,
  }
}

/** Each bucket's rollup for every monitor, or one: the same statement builds and computes (uptime.ts), so both agree. */
export function rollupSelect (ranges: TimeRange[] | BucketQuery, monitor?: SQL): SQL {
  const { buckets, lo, hi } = Array.isArray(ranges) ? bucketsOf(ranges) : ranges
  const only = (column: string) => monitor === undefined ? sql`` : sql` and ${sql.raw(column)} = ${monitor}`
  const overlaps = (table: string, from: string, to: string) => sql`
    select monitor_id, ${sql.raw(from)} as a, ${sql.raw(to)} as z from ${sql.raw(table)}
      where ${sql.raw(to)} is null and ${sql.raw(from)} < ${hi}${only('monitor_id')}${table === 'incidents' ? sql` and kind = 'down'` : sql``}
    union all
    select monitor_id, ${sql.raw(from)}, ${sql.raw(to)} from ${sql.raw(table)}
      where ${sql.raw(to)} > ${lo} and ${sql.raw(from)} < ${hi}${only('monitor_id')}${table === 'incidents' ? sql` and kind = 'down'` : sql``}`
  // The part of a bucket in both an incident and a stay in maintenance: down time that does not count.
  const bothWithin = sql`
    select m.id, m.s, sum(greatest(0, ${ms(sql`least(coalesce(x.z, m.hi), coalesce(y.z, m.hi), m.hi) - greatest(x.a, y.a, m.lo)`)}))::float8 as total
    from m join i x on x.monitor_id = m.id and x.a < m.hi and (x.z is null or x.z > m.lo)
      join mt y on y.monitor_id = m.id and y.a < m.hi and (y.z is null or y.z > m.lo)
    group by 1, 2`
  const within = (table: string) => sql`
    select m.id, m.s, sum(greatest(0, ${ms(sql`least(coalesce(x.z, m.hi), m.hi) - greatest(x.a, m.lo)`)}))::float8 as total
    from m join ${sql.raw(table)} x on x.monitor_id = m.id and x.a < m.hi and (x.z is null or x.z > m.lo)
    group by 1, 2`
  return sql`
    with b as (${buckets}
    ), m as (
      select mo.id, b.s, greatest(mo.created_at, b.s) as lo, least(coalesce(mo.deleted_at, b.e), b.e) as hi
      from monitors mo cross join b
      where mo.created_at < b.e and (mo.deleted_at is null or mo.deleted_at > b.s)${only('mo.id')}
    ), c as (
      select k.monitor_id, b.s, width_bucket(k.response_time_ms, ${BOUNDS}) - 1 as bucket,
        count(*)::int as n, (count(*) filter (where not k.is_up))::int as failed
      from checks k join b on k.checked_at >= b.s and k.checked_at < b.e
      where k.checked_at >= ${lo} and k.checked_at < ${hi}${only('k.monitor_id')}
      group by 1, 2, 3
    ), ca as (
      select monitor_id, s, sum(n)::int as checks, sum(failed)::int as failed,
        array_agg(bucket::smallint order by bucket) as hb, array_agg(n order by bucket) as hc
      from c group by 1, 2
    ), i as (${overlaps('incidents', 'started_at', 'resolved_at')}
    ), p as (${overlaps('monitor_pauses', 'paused_at', 'resumed_at')}
    ), mt as (${overlaps('monitor_maintenance', 'started_at', 'ended_at')}
    ), down as (${within('i')}
    ), paused as (${within('p')}
    ), maint as (${within('mt')}
    ), downmaint as (${bothWithin}
    ), r as (
      select m.id, m.s, ca.checks, ca.failed, ca.hb, ca.hc, greatest(0, coalesce(down.total, 0) - coalesce(downmaint.total, 0)) as down,
        greatest(0, round(${ms(sql`m.hi - m.lo`)} - coalesce(paused.total, 0) - coalesce(maint.total, 0)))::int as tracked,
        round(coalesce(maint.total, 0))::int as maintenance
      from m
        left join ca on ca.monitor_id = m.id and ca.s = m.s
        left join down on down.id = m.id and down.s = m.s
        left join paused on paused.id = m.id and paused.s = m.s
        left join maint on maint.id = m.id and maint.s = m.s
        left join downmaint on downmaint.id = m.id and downmaint.s = m.s
    )
    select id as monitor_id, s as start, coalesce(checks, 0) as checks, coalesce(failed, 0) as failed_checks,
      tracked as tracked_ms, least(tracked, round(down))::int as downtime_ms, maintenance as maintenance_ms,
      coalesce(hb, '{}') as hist_buckets, coalesce(hc, '{}') as hist_counts
    from r where checks is not null or tracked > 0 or maintenance > 0`
}

const UPSERT = sql`on conflict (monitor_id, granularity, start) do update set
  checks = excluded.checks, failed_checks = excluded.failed_checks, tracked_ms = excluded.tracked_ms,
  downtime_ms = excluded.downtime_ms, maintenance_ms = excluded.maintenance_ms, hist_buckets = excluded.hist_buckets, hist_counts = excluded.hist_counts`
const COLUMNS = sql`(monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts)`

/** Builds (or rebuilds, idempotently) every monitor's row of one hour from the raw rows. */
async function buildHourRollups (db: Pick<Database, 'execute'>, hourStart: number): Promise<void> {
  await db.execute(sql`insert into monitor_rollups ${COLUMNS}
    select monitor_id, 'hour', start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts
    from (${rollupSelect([{ start: hourStart, end: hourStart + HOUR_MS }])}) r
    ${UPSERT}`)
}

/** Builds (or rebuilds) every monitor's row of one day from its hour rows. */
async function buildDayRollups (db: Pick<Database, 'execute'>, dayStart: number): Promise<void> {
  const [from, to] = [new Date(dayStart).toISOString(), new Date(dayStart + DAY_MS).toISOString()]
  await db.execute(sql`
    with h as (
      select * from monitor_rollups where granularity = 'hour' and start >= ${from}::timestamptz and start < ${to}::timestamptz
    ), t as (
      select monitor_id, sum(checks)::int as checks, sum(failed_checks)::int as failed, sum(tracked_ms)::int as tracked,
        sum(downtime_ms)::int as down, sum(maintenance_ms)::int as maintenance
      from h group by 1
    ), u as (
      select h.monitor_id, x.bucket, sum(x.n)::int as n
      from h cross join lateral unnest(h.hist_buckets, h.hist_counts) as x(bucket, n) group by 1, 2
    ), ua as (
      select monitor_id, array_agg(bucket order by bucket) as hb, array_agg(n order by bucket) as hc from u group by 1
    )
    insert into monitor_rollups ${COLUMNS}
    select t.monitor_id, 'day', ${from}::timestamptz, t.checks, t.failed, t.tracked, t.down, t.maintenance, coalesce(ua.hb, '{}'), coalesce(ua.hc, '{}')
    from t left join ua on ua.monitor_id = t.monitor_id
    ${UPSERT}`)
}

export interface RebuildResult { hours: number, days: number }

/** Rebuilds a range after the data was fixed, only over hours whose checks are still kept (or it would lose them). */
export async function rebuildRollups (db: Database, range: { from: number, to: number, keptSince: number }): Promise<RebuildResult> {
  return db.transaction(async (tx) => {
    const { hour: hoursBuilt = -Infinity, day: daysBuilt = -Infinity } = await rollupProgress(tx)
    const result: RebuildResult = { hours: 0, days: 0 }
    const first = Math.max(bucketStart(range.from, 'hour'), bucketStart(range.keptSince + HOUR_MS - 1, 'hour'))
    const last = Math.min(bucketStart(range.to - 1, 'hour') + HOUR_MS, hoursBuilt)
    if (first >= last) return result
    for (let hour = first; hour < last; hour += HOUR_MS, result.hours++) await buildHourRollups(tx, hour)
    for (let day = bucketStart(first, 'day'); day < Math.min(last, daysBuilt); day += DAY_MS, result.days++) await buildDayRollups(tx, day)
    return result
  })
}

/** How far each granularity is built (undefined before the first build). */
async function rollupProgress (db: Pick<Database, 'execute'>, lock = false): Promise<Partial<Record<RollupGranularity, number>>> {
  const rows = rowsOf<{ granularity: RollupGranularity, until: number }>(await db.execute(sql`
    select granularity, (extract(epoch from built_until) * 1000)::float8 as until from rollup_progress
    ${lock ? sql`order by granularity desc for update skip locked` : sql``}`))
  return Object.fromEntries(rows.map((row) => [row.granularity, row.until]))
}

/** Builds the next due bucket, holding the progress rows (another process skips them and answers 'busy'). */
export async function buildNextRollup (db: Database, now: Date): Promise<RollupGranularity | 'idle' | 'busy'> {
  return db.transaction(async (tx) => {
    let progress = await rollupProgress(tx, true)
    if (progress.hour === undefined && progress.day === undefined) {
      const [oldest] = rowsOf<{ at: number | null }>(await tx.execute(sql`select (extract(epoch from least(
        (select min(checked_at) from checks), (select min(created_at) from monitors))) * 1000)::float8 as at`))
      const first = bucketStart(Math.max(Math.min(oldest.at ?? Infinity, now.getTime()), now.getTime() - ROLLUP_RETENTION_DAYS.day * DAY_MS), 'hour')
      await tx.execute(sql`insert into rollup_progress (granularity, built_until)
        values ('hour', ${new Date(first).toISOString()}::timestamptz), ('day', ${new Date(bucketStart(first, 'day')).toISOString()}::timestamptz)
        on conflict do nothing`)
      progress = await rollupProgress(tx, true)
    }
    const { hour, day } = progress
    if (hour === undefined || day === undefined) return 'busy'
    const advance = (granularity: RollupGranularity, until: number) => tx.execute(sql`
      update rollup_progress set built_until = ${new Date(until).toISOString()}::timestamptz where granularity = ${granularity}`)
    if (day + DAY_MS <= hour) {
      await buildDayRollups(tx, day)
      await advance('day', day + DAY_MS)
      return 'day'
    }
    if (hour + HOUR_MS + ROLLUP_LAG_MS > now.getTime()) return 'idle'
    await buildHourRollups(tx, hour)
    await advance('hour', hour + HOUR_MS)
    return 'hour'
  })
}

/** Deletes the rows past their retention; returns how many went. */
export async function pruneRollups (db: Pick<Database, 'execute'>, now: Date): Promise<number> {
  const cutoff = (days: number) => new Date(bucketStart(now.getTime(), 'day') - days * DAY_MS).toISOString()
  const result = await db.execute(sql`delete from monitor_rollups
    where (granularity = 'hour' and start < ${cutoff(ROLLUP_RETENTION_DAYS.hour)}::timestamptz)
       or (granularity = 'day' and start < ${cutoff(ROLLUP_RETENTION_DAYS.day)}::timestamptz)`)
  return Array.isArray(result) ? (result as { count?: number }).count ?? 0 : (result as { affectedRows?: number }).affectedRows ?? 0
}

/**
 * Marks new day rows all-visible so the uptime read takes them from its covering index alone; autovacuum
 * would wait for weeks of inserts. Must run outside any transaction (VACUUM's rule).
 */
export async function vacuumRollups (db: Pick<Database, 'execute'>): Promise<void> {
  await db.execute(sql`vacuum (analyze) monitor_rollups`)
}
