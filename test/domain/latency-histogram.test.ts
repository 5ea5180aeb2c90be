// The response-time histogram: SQL's width_bucket and the code agree on every bucket, and a bucket's value is
// within 5% of every time it holds.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { addHistogram, bucketValue, emptyHistogram, histogramBucket, HISTOGRAM_LOWER_BOUNDS, percentiles } from '../../src/domain/latency-histogram.ts'
import { createTestDatabase } from '../helper.ts'

t.test('every time up to a minute is within 5% of its bucket\'s value', async (t) => {
  let worst = 0
  for (let ms = 1; ms <= 60_000; ms++) worst = Math.max(worst, Math.abs(bucketValue(histogramBucket(ms)) - ms) / ms)
  t.ok(worst < 0.05, `worst ${(worst * 100).toFixed(2)}%`)
  t.equal(bucketValue(histogramBucket(0)), 0)
  t.ok(HISTOGRAM_LOWER_BOUNDS.length < 200, `${HISTOGRAM_LOWER_BOUNDS.length} buckets`)
})

t.test('width_bucket over the same bounds finds the same bucket', async (t) => {
  const { handle } = await createTestDatabase(t)
  const bounds = sql.raw(`array[${HISTOGRAM_LOWER_BOUNDS.join(',')}]::int[]`)
  const rows = rowsOf<{ ms: number, bucket: number }>(await handle.db.execute(sql`
    select ms, width_bucket(ms, ${bounds}) - 1 as bucket from generate_series(0, 100000) ms
    union all select ms, width_bucket(ms, ${bounds}) - 1 from unnest(array[3600000, 9999999, 2147483647]) ms`))
  const differ = rows.filter((row) => histogramBucket(row.ms) !== row.bucket)
  t.same(differ.slice(0, 5), [])
})

t.test('percentiles by nearest rank, null without times', async (t) => {
  t.same(percentiles(emptyHistogram()), { p50: null, p95: null, p99: null })
  const merged = emptyHistogram()
  addHistogram(merged, [5, 10], [50, 49])
  addHistogram(merged, [10, 100], [0, 1])
  t.same(percentiles(merged), { p50: bucketValue(5), p95: bucketValue(10), p99: bucketValue(10) })
  addHistogram(merged, [150], [2])
  t.same(percentiles(merged), { p50: bucketValue(10), p95: bucketValue(10), p99: bucketValue(150) })
})
