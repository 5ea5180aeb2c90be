// The newest response times of every monitor of an organization, for the dashboard's sparklines, and the runs of failures
// not long enough to mark a monitor down.
import { and, desc, eq, gt, isNull, notInArray } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { checks, monitors } from '../db/schema.ts'

export interface SparkPoint {
  responseTimeMs: number
  isUp: boolean
}

const SPARKLINE_CHECKS = 20

/**
 * The newest `perMonitor` checks of each live monitor, oldest first. A LATERAL index scan per monitor keeps the
 * cost in line with the number of monitors, not the size of the checks table.
 */
export async function recentChecksByMonitor (
  db: Database, orgId: string, perMonitor = SPARKLINE_CHECKS
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
    .where(and(eq(monitors.orgId, orgId), isNull(monitors.deletedAt)))
    .orderBy(newest.monitorId, newest.checkedAt, newest.id)
  const byMonitor = new Map<string, SparkPoint[]>()
  for (const { monitorId, responseTimeMs, isUp } of rows) {
    let points = byMonitor.get(monitorId)
    if (!points) byMonitor.set(monitorId, points = [])
    points.push({ responseTimeMs, isUp })
  }
  return byMonitor
}

/** Failed checks in a row, fewer than the monitor's `failure_threshold` that would mark it down. */
export interface FailingRun { failures: number, threshold: number }

/** The organization's live monitors (or the one asked for) whose latest checks failed while they are not down: by monitor id. */
export async function failingRuns (db: Database, orgId: string, monitorId?: string): Promise<Map<string, FailingRun>> {
  const rows = await db.select({ id: monitors.id, failures: monitors.consecutiveFailures, threshold: monitors.failureThreshold })
    .from(monitors)
    .where(and(
      eq(monitors.orgId, orgId), isNull(monitors.deletedAt), gt(monitors.consecutiveFailures, 0),
      notInArray(monitors.status, ['down', 'paused']), monitorId === undefined ? undefined : eq(monitors.id, monitorId)
    ))
  return new Map(rows.map(({ id, failures, threshold }) => [id, { failures, threshold }]))
}
