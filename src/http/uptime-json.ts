// The bytes of GET /monitors/{id}/uptime's answer, written from the series' columns: a year by day is 366 periods
// (~76 KB) whose objects, serialization and UTF-8 copy were most of the read's Node time (bench/results.md, #16).
// The schema stays the contract: test/http/uptime-json.test.ts checks these bytes against Fastify's own
// serializer of UptimeEnvelope and against the schema.
import { bucketBounds, uptimePercent, type UptimeSeries } from '../repositories/uptime.ts'

/** ISO times of whole hours, which repeat from one answer to the next (a year by day has 366 of them). */
const hourTimes = new Map<number, string>()
function iso (ms: number): string {
  if (ms % 3_600_000 !== 0) return new Date(ms).toISOString()
  // By the hour's number, a small integer: a faster key than the time's milliseconds.
  const hour = ms / 3_600_000
  let time = hourTimes.get(hour)
  if (time === undefined) {
    if (hourTimes.size >= 20_000) hourTimes.clear()
    hourTimes.set(hour, time = new Date(ms).toISOString())
  }
  return time
}

/** A number as JSON (and fast-json-stringify) writes it; NaN stands for null. */
const number = (value: number | null): string => value === null || Number.isNaN(value) ? 'null' : '' + value

/** One period of UptimeReport (src/schemas/uptime.ts), its fields in the schema's order. */
function period (series: UptimeSeries, i: number): string {
  const [start, end] = bucketBounds(series, i)
  return '{"start":"' + iso(start) + '","end":"' + iso(end) +
    '","uptime_percent":' + number(uptimePercent(series.trackedMs[i], series.downtimeMs[i])) +
    ',"downtime_seconds":' + Math.round(series.downtimeMs[i] / 1000) +
    ',"checks":' + series.checks[i] + ',"failed_checks":' + series.failed[i] +
    ',"response_time_ms":{"p50":' + number(series.p50[i]) + ',"p95":' + number(series.p95[i]) + ',"p99":' + number(series.p99[i]) + '}}'
}

/**
 * `{"data":{"summary":...,"buckets":[...]}}` of a series: UptimeEnvelope's JSON, as bytes (encoded once, for the
 * ETag's hash and the socket alike). One string of concatenations: V8 joins them faster than a byte loop writes
 * them (bench/results.md); every character is ASCII, so latin1 is UTF-8 here.
 */
export function uptimeEnvelopeJson (series: UptimeSeries): Buffer {
  let json = '{"data":{"summary":' + period(series, series.count) + ',"buckets":['
  for (let i = 0; i < series.count; i++) json += (i > 0 ? ',' : '') + period(series, i)
  return Buffer.from(json + ']}}', 'latin1')
}
