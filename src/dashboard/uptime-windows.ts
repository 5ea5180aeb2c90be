// The uptime figures of a monitor's page, from the same rollups as GET /monitors/{id}/uptime.
import type { Database } from '../db/client.ts'
import type { RollupGranularity } from '../domain/vocabulary.ts'
import { monitorUptime, uptimeReport } from '../repositories/uptime.ts'
import type { UptimeReport } from '../schemas/uptime.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

export interface UptimeWindow { label: string, figures: UptimeReport['summary'] }
export interface MonitorUptimeView { windows: UptimeWindow[], days: UptimeReport['buckets'], barDays: number, now: Date }

const BAR_DAYS = 90

/** The windows shown: hours reach back 24 hours (the first one whole), days count today as one of theirs. */
const WINDOWS: Array<{ label: string, granularity: RollupGranularity, back: (now: number) => number }> = [
  { label: 'Last 24 hours', granularity: 'hour', back: (now) => now - 24 * HOUR_MS },
  { label: 'Last 7 days', granularity: 'hour', back: (now) => now - 7 * DAY_MS },
  { label: 'Last 30 days', granularity: 'day', back: (now) => Math.floor(now / DAY_MS) * DAY_MS - 29 * DAY_MS },
  { label: 'Last 90 days', granularity: 'day', back: (now) => Math.floor(now / DAY_MS) * DAY_MS - (BAR_DAYS - 1) * DAY_MS },
  { label: 'Last 365 days', granularity: 'day', back: (now) => Math.floor(now / DAY_MS) * DAY_MS - 364 * DAY_MS },
]

/** The figures of each window of one of the organization's monitors (which the caller has found). */
export async function monitorUptimeView (db: Database, orgId: string, monitorId: string, now: Date): Promise<MonitorUptimeView> {
  const reports = await Promise.all(WINDOWS.map(async (w) => {
    const series = await monitorUptime(db, { orgId }, monitorId, { from: new Date(w.back(now.getTime())), to: now, granularity: w.granularity }, now)
    return series ? uptimeReport(series) : { summary: emptyFigures(now), buckets: [] }
  }))
  return {
    windows: WINDOWS.map((w, i) => ({ label: w.label, figures: reports[i].summary })),
    days: reports[3].buckets,
    barDays: BAR_DAYS,
    now,
  }
}

function emptyFigures (now: Date): UptimeReport['summary'] {
  const at = now.toISOString()
  return { start: at, end: at, uptime_percent: null, downtime_seconds: 0, maintenance_seconds: 0, checks: 0, failed_checks: 0, response_time_ms: { p50: null, p95: null, p99: null } }
}
