// Check summaries for the dashboard: the newest response times of every monitor of a user (sparklines)
// and uptime over the last 24 hours and 7 days, each in one query.
import { and, desc, eq, gte, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { checks, monitors } from '../db/schema.ts'

export interface SparkPoint {
  responseTimeMs: number
  isUp: boolean
}

const SPARKLINE_CHECKS = 20

/**
 * The newest `perMonitor` checks of each of the user's live monitors, oldest first, keyed by monitor id.
 * One LATERAL query: each monitor reads its own newest rows from checks_monitor_checked_idx (backwards),
 * so the cost follows the number of monitors, never the size of the checks table.
 */
export async function recentChecksByMonitor (
  db: Database, userId: string, perMonitor = SPARKLINE_CHECKS
): Promise<Map<string, SparkPoint[]>> {
  const newest = db.select({
    monitorId: checks.monitorId, responseTimeMs: checks.responseTimeMs, isUp: checks.isUp, checkedAt: checks.checkedAt, id: checks.id,
  }).from(checks)
    .where(eq(checks.monitorId, monitors.id))
    .orderBy(desc(checks.checkedAt), desc(checks.id))
    .limit(perMonitor)
    .as('c')
  const rows = await db.select({ monitorId: newest.monitorId, responseTimeMs: newest.responseTimeMs, isUp: newest.isUp })
    .from(monitors)
    .crossJoinLateral(newest)
    .where(and(eq(monitors.userId, userId), isNull(monitors.deletedAt)))
    .orderBy(newest.monitorId, newest.checkedAt, newest.id)
  const byMonitor = new Map<string, SparkPoint[]>()
  for (const { monitorId, responseTimeMs, isUp } of rows) {
    let points = byMonitor.get(monitorId)
    if (!points) byMonitor.set(monitorId, points = [])
    points.push({ responseTimeMs, isUp })
  }
  return byMonitor
}

export interface UptimeWindow {
  checks: number
  up: number
  /** Percentage of checks that were up, or null when there was no check in the window. */
  percent: number | null
}

const window = (checks: number, up: number): UptimeWindow =>
  ({ checks, up, percent: checks === 0 ? null : (100 * up) / checks })

/** Uptime of one monitor over the last 24 hours and the last 7 days, as the share of its checks that were up. */
export async function uptimeSummary (db: Database, monitorId: string, now: Date): Promise<{ day: UptimeWindow, week: UptimeWindow }> {
  const dayStart = new Date(now.getTime() - 86_400_000).toISOString()
  const weekStart = new Date(now.getTime() - 7 * 86_400_000)
  const [row] = await db.select({
    dayChecks: sql<number>`count(*) filter (where ${checks.checkedAt} >= ${dayStart}::timestamptz)::int`,
    dayUp: sql<number>`count(*) filter (where ${checks.checkedAt} >= ${dayStart}::timestamptz and ${checks.isUp})::int`,
    weekChecks: sql<number>`count(*)::int`,
    weekUp: sql<number>`count(*) filter (where ${checks.isUp})::int`,
  }).from(checks).where(and(eq(checks.monitorId, monitorId), gte(checks.checkedAt, weekStart)))
  return { day: window(row.dayChecks, row.dayUp), week: window(row.weekChecks, row.weekUp) }
}
