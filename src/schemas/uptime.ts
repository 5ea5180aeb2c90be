// Uptime history schemas (api-contract section 10): the query of GET /monitors/{id}/uptime and its report.
import { Type, type Static } from '@sinclair/typebox'
import { ROLLUP_GRANULARITIES, ROLLUP_RETENTION_DAYS } from '../domain/vocabulary.ts'
import { Envelope, Nullable, StringEnum, Timestamp } from './common.ts'

/** The longest range of each granularity, in days, and how far back hourly buckets reach (their rows' retention). */
export const UPTIME_MAX_DAYS = { hour: 31, day: ROLLUP_RETENTION_DAYS.day } as const
export const UPTIME_HOURLY_BACK_DAYS = ROLLUP_RETENTION_DAYS.hour

export const UptimeQuery = Type.Object({
  from: Type.Optional(Timestamp('Start of the range: rounded down to the start of its UTC hour or day. Default: the start of the UTC day 29 days before `to` (30 days with today)')),
  to: Type.Optional(Timestamp('End of the range: rounded up to the end of its bucket, and never past now. Default: now')),
  granularity: Type.Optional(StringEnum(ROLLUP_GRANULARITIES, {
    default: 'day',
    description: `Size of the buckets: a UTC \`hour\` (a range of at most ${UPTIME_MAX_DAYS.hour} days, within the last ${UPTIME_HOURLY_BACK_DAYS} days) or a UTC \`day\` (at most ${UPTIME_MAX_DAYS.day} days)`,
  })),
}, { additionalProperties: false })

const Milliseconds = (description: string) => Nullable(Type.Number({ minimum: 0, description, examples: [182.3] }))

const figures = {
  uptime_percent: Nullable(Type.Number({
    minimum: 0,
    maximum: 100,
    description: 'Share of the time the monitor was not in a `down` incident, in percent, rounded down to 4 decimals. Time paused, in ' +
      'maintenance and before the monitor was created is left out; null when none is left',
    examples: [99.3055],
  })),
  downtime_seconds: Type.Integer({ minimum: 0, format: 'int64', description: 'Seconds in a `down` incident (degraded time is up), outside maintenance', examples: [600] }),
  maintenance_seconds: Type.Integer({
    minimum: 0,
    format: 'int64',
    description: 'Seconds in a maintenance window: counted neither as up nor as down (left out of `uptime_percent`, like paused time)',
    examples: [0],
  }),
  checks: Type.Integer({ minimum: 0, format: 'int64', description: 'Checks (and heartbeat pings or misses) recorded', examples: [1440] }),
  failed_checks: Type.Integer({ minimum: 0, format: 'int64', description: 'Those of them that failed', examples: [3] }),
  response_time_ms: Type.Object({
    p50: Milliseconds('Median response time; null without checks'),
    p95: Milliseconds('95th percentile'),
    p99: Milliseconds('99th percentile'),
  }, {
    additionalProperties: false,
    description: 'Percentiles (nearest rank) of the checks\' response times, from a histogram of log-spaced buckets: within 5% of the exact value',
  }),
}

const Period = (what: string) => Type.Object({
  start: Timestamp(`Start of the ${what}`),
  end: Timestamp(`End of the ${what} (exclusive): the next bucket's start, or now for the current one`),
  ...figures,
}, { additionalProperties: false })

export const UptimeReportSchema = Type.Object({
  summary: Period('whole range: the first bucket\'s start to the last one\'s end'),
  buckets: Type.Array(Period('bucket'), {
    description: 'One per UTC hour or day of the range, oldest first; none before the monitor was created, the last one partial while it lasts',
  }),
}, { $id: 'UptimeReport', title: 'UptimeReport', additionalProperties: false })

export const UptimeEnvelope = Envelope(Type.Ref(UptimeReportSchema), 'Uptime and response times of the range, in all and per bucket')

export type UptimeReport = Static<typeof UptimeReportSchema>
export type UptimeQueryString = Static<typeof UptimeQuery>
