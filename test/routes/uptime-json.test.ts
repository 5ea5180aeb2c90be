// The uptime answer's hand-written bytes (src/routes/uptime-json.ts): the very bytes Fastify's serializer makes of
// the same report with the route's schema, and valid against that schema and the OpenAPI document, for series of
// every shape (empty, partial last bucket, no times, no tracked time, large sums, every histogram value).
import t from 'tap'
import Fastify from 'fastify'
import { HISTOGRAM_LOWER_BOUNDS, bucketValue } from '../../src/domain/latency-histogram.ts'
import { uptimeEnvelopeJson } from '../../src/routes/uptime-json.ts'
import { uptimeReport, type UptimeSeries } from '../../src/repositories/uptime.ts'
import { UptimeEnvelope, UptimeReportSchema } from '../../src/schemas/uptime.ts'
import { seededRandom } from '../support/seeded-random.ts'
import { ajv, documentedGetAnswer, typeboxAnswer } from '../support/response-validators.ts'

const documented = documentedGetAnswer('/api/v1/monitors/{id}/uptime')
const typebox = typeboxAnswer(UptimeEnvelope, UptimeReportSchema)

const HOUR = 3_600_000
const DAY = 86_400_000

/** A series of `count` buckets of `step` from `start` to `end`, its figures drawn from `next`. */
function series (count: number, start: number, step: number, end: number, next: () => number): UptimeSeries {
  const column = (value: () => number) => Float64Array.from({ length: count + 1 }, value)
  const values = HISTOGRAM_LOWER_BOUNDS.map((_, bucket) => bucketValue(bucket))
  const percentile = () => next() < 0.2 ? NaN : values[Math.floor(next() * values.length)]
  const tracked = column(() => next() < 0.15 ? 0 : Math.floor(next() * step))
  return {
    count,
    start,
    step,
    end,
    checks: column(() => next() < 0.1 ? 0 : Math.floor(next() * 10 ** Math.floor(next() * 13))),
    failed: column(() => Math.floor(next() * 100)),
    trackedMs: tracked,
    downtimeMs: tracked.map((ms) => next() < 0.5 ? 0 : Math.floor(next() * ms)),
    maintenanceMs: column(() => next() < 0.8 ? 0 : Math.floor(next() * step)),
    p50: column(percentile),
    p95: column(percentile),
    p99: column(percentile),
  }
}

t.test('the bytes are those of Fastify\'s serializer, and valid against the schema', async (t) => {
  // Fastify's own serializer of the route's schema, as the route used before it wrote its bytes.
  const fastify = Fastify()
  fastify.addSchema(UptimeReportSchema)
  let report: unknown
  fastify.get('/', { schema: { response: { 200: UptimeEnvelope } } }, async () => ({ data: report }))
  t.teardown(() => fastify.close())

  const next = seededRandom(16)
  const start = Date.parse('2025-11-25T00:00:00.000Z')
  const cases: Array<[string, UptimeSeries]> = [
    ['a year by day, today partial', series(365, start, DAY, start + 364 * DAY + 4 * HOUR + 37_123, next)],
    ['a day by hour, ending on the hour', series(24, start, HOUR, start + DAY, next)],
    ['nothing yet: no buckets', series(0, start, DAY, start, next)],
    ['one bucket of a few milliseconds', series(1, start, HOUR, start + 7, next)],
    ['before 1970', series(3, -5 * DAY, DAY, -2 * DAY, next)],
  ]
  for (let i = 0; i < 40; i++) cases.push([`random ${i}`, series(Math.floor(next() * 50), start + Math.floor(next() * 1000) * HOUR, HOUR, start + 2 * DAY, next)])
  cases.push(['far ahead', series(2, Date.parse('2100-01-01T00:00:00.000Z'), DAY, Date.parse('2100-01-02T10:00:00.000Z'), next)])
  for (const [name, s] of cases) {
    report = uptimeReport(s)
    const expected = (await fastify.inject({ url: '/' })).body
    const bytes = uptimeEnvelopeJson(s)
    t.equal(bytes.toString('latin1'), expected, name)
    const parsed = JSON.parse(bytes.toString())
    t.ok(typebox(parsed), `${name}: ${ajv.errorsText(typebox.errors)}`)
    t.ok(documented(parsed), `${name}: ${ajv.errorsText(documented.errors)}`)
  }
  // The buckets' ends never pass the range's end, and the summary spans them all.
  const year = uptimeReport(cases[0][1])
  t.equal(year.buckets.at(-1)!.end, year.summary.end)
  t.equal(year.summary.start, year.buckets[0].start)
})
