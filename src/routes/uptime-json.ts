// The bytes of GET /monitors/{id}/uptime, written from the series without building objects. The schema stays the
// contract: test/routes/uptime-json.test.ts checks these bytes against it and against Fastify's serializer.
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
    ',"maintenance_seconds":' + Math.round(series.maintenanceMs[i] / 1000) +
    ',"checks":' + series.checks[i] + ',"failed_checks":' + series.failed[i] +
    ',"response_time_ms":{"p50":' + number(series.p50[i]) + ',"p95":' + number(series.p95[i]) + ',"p99":' + number(series.p99[i]) + '}}'
}

/** UptimeEnvelope as bytes, encoded once for the ETag and the socket; every character is ASCII, so latin1 is UTF-8. */
export function uptimeEnvelopeJson (series: UptimeSeries): Buffer {
  let json = '{"data":{"summary":' + period(series, series.count) + ',"buckets":['
  for (let i = 0; i < series.count; i++) json += (i > 0 ? ',' : '') + period(series, i)
  return Buffer.from(json + ']}}', 'latin1')
}
