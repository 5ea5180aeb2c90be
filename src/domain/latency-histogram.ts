// The response-time histogram of the uptime rollups: fixed, log-spaced buckets of whole milliseconds,
// defined once here for the SQL that fills them (width_bucket over HISTOGRAM_LOWER_BOUNDS) and the code
// that reads percentiles from them.

/** Each bucket's largest value is at most this ratio times its smallest. */
const HISTOGRAM_RATIO = 1.09

/** Times from this many ms on share the last bucket (no probe waits that long: timeouts are shorter). */
const HISTOGRAM_CEILING_MS = 3_600_000

/**
 * The smallest whole millisecond of each bucket, ascending from 0: bucket i holds the times from
 * bound[i] to bound[i + 1] - 1. Below 12 ms a bucket is one value (exact); above, its largest value is
 * at most HISTOGRAM_RATIO times its smallest, so the geometric middle of the two is within 4.4% of any
 * value in it, and within 5% once shown to 0.1 ms. About 160 buckets.
 */
export const HISTOGRAM_LOWER_BOUNDS: readonly number[] = (() => {
  const bounds = [0]
  for (let low = 1; low < HISTOGRAM_CEILING_MS; low = Math.floor(low * HISTOGRAM_RATIO) + 1) bounds.push(low)
  return bounds
})()

/** The bucket of a response time, as width_bucket() in SQL finds it (test/domain checks they agree). */
export function histogramBucket (ms: number): number {
  let low = 0
  let high = HISTOGRAM_LOWER_BOUNDS.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if (HISTOGRAM_LOWER_BOUNDS[mid] <= ms) low = mid
    else high = mid - 1
  }
  return low
}

/** The value a bucket stands for: the geometric middle of its smallest and largest time, to 0.1 ms. */
export function bucketValue (bucket: number): number {
  const smallest = HISTOGRAM_LOWER_BOUNDS[bucket]
  const next = HISTOGRAM_LOWER_BOUNDS[bucket + 1]
  // The open last bucket stands for its smallest time.
  const largest = next === undefined ? smallest : next - 1
  return Math.round(Math.sqrt(smallest * largest) * 10) / 10
}

/** bucketValue() of every bucket, made once: the uptime read asks for three of them per bucket of its answer. */
const BUCKET_VALUES: readonly number[] = HISTOGRAM_LOWER_BOUNDS.map((_, bucket) => bucketValue(bucket))

/** A dense histogram to add sparse ones into: one count per bucket. */
export const emptyHistogram = (): Float64Array => new Float64Array(HISTOGRAM_LOWER_BOUNDS.length)

/** Adds a sparse histogram (bucket numbers and the count of each) into a dense one. */
export function addHistogram (into: Float64Array, buckets: readonly number[], counts: readonly number[]): void {
  for (let i = 0; i < buckets.length; i++) into[buckets[i]] += counts[i]
}

export interface Percentiles { p50: number | null, p95: number | null, p99: number | null }

/** Percentiles of many histograms, one per index; NaN where a histogram has no times. */
export interface PercentileColumns { p50: Float64Array, p95: Float64Array, p99: Float64Array }

const one: PercentileColumns = { p50: new Float64Array(1), p95: new Float64Array(1), p99: new Float64Array(1) }
const orNull = (value: number) => Number.isNaN(value) ? null : value

/** The percentiles at index `at` of columns (null where NaN). */
export const percentilesAt = (columns: PercentileColumns, at: number): Percentiles =>
  ({ p50: orNull(columns.p50[at]), p95: orNull(columns.p95[at]), p99: orNull(columns.p99[at]) })

/**
 * p50, p95 and p99 by nearest rank (the value at rank ceil(p * n)) of a dense histogram: the value of the
 * bucket that holds that rank, so within 5% of the exact percentile. Null when there are no times.
 */
export function percentiles (histogram: ArrayLike<number>): Percentiles {
  percentilesInto(one, 0, null, histogram)
  return percentilesAt(one, 0)
}

/**
 * The same into `columns` at `at` (NaN without times), of a sparse histogram (`buckets` ascending, or null
 * for a dense one: the index is the bucket) without making it dense: a bucket of the uptime report is
 * mostly one stored row. Only the entries from `from` to `to` (exclusive) when given: one row's part of
 * arrays that hold many. No objects made: this runs for every bucket of a year's answer.
 */
export function percentilesInto (columns: PercentileColumns, at: number, buckets: ArrayLike<number> | null, counts: ArrayLike<number>,
  from = 0, to = counts.length): void {
  let total = 0
  for (let i = from; i < to; i++) total += counts[i]
  let [p50, p95, p99] = [NaN, NaN, NaN]
  if (total > 0) {
    const [r50, r95, r99] = [Math.ceil(0.5 * total), Math.ceil(0.95 * total), Math.ceil(0.99 * total)]
    let seen = 0
    for (let i = from; i < to && seen < r99; i++) {
      if (counts[i] === 0) continue
      const before = seen
      seen += counts[i]
      if (seen < r50) continue
      const value = BUCKET_VALUES[buckets === null ? i : buckets[i]]
      if (before < r50) p50 = value
      if (before < r95 && seen >= r95) p95 = value
      if (seen >= r99) p99 = value
    }
  }
  columns.p50[at] = p50
  columns.p95[at] = p95
  columns.p99[at] = p99
}
