// The response-time histogram of the uptime rollups: fixed log-spaced buckets of whole milliseconds, shared by the
// SQL that fills them (width_bucket over HISTOGRAM_LOWER_BOUNDS) and the code that reads percentiles.

/** Each bucket's largest value is at most this ratio times its smallest. */
const HISTOGRAM_RATIO = 1.09

/** Times from this many ms on share the last bucket (no probe waits that long: timeouts are shorter). */
const HISTOGRAM_CEILING_MS = 3_600_000

/** The smallest millisecond of each bucket, from 0: exact below 12 ms; above, the bucket's geometric middle is
 * within 5% of any value in it (HISTOGRAM_RATIO). */
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

/** bucketValue() of every bucket, made once: the uptime read asks for many. */
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

/** The percentiles at index `at` (null where NaN). */
export const percentilesAt = (columns: PercentileColumns, at: number): Percentiles =>
  ({ p50: orNull(columns.p50[at]), p95: orNull(columns.p95[at]), p99: orNull(columns.p99[at]) })

/** p50, p95 and p99 by nearest rank (ceil(p * n)) of a dense histogram; null without times. */
export function percentiles (histogram: ArrayLike<number>): Percentiles {
  percentilesInto(one, 0, null, histogram)
  return percentilesAt(one, 0)
}

/** percentiles() into `columns` at `at` (NaN without times), of entries `from` to `to` of a sparse histogram (`buckets`
 * ascending; null: dense), without making it dense or any object: it runs for every bucket of a year's answer. */
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
