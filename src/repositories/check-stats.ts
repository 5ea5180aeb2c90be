// Check summaries for the dashboard: the newest response times of every monitor of a user (sparklines), in
// one query. (Uptime comes from the rollups: src/repositories/uptime.ts.)
import { and, desc, eq, isNull } from 'drizzle-orm'
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
