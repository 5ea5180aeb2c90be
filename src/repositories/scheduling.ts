// Checker data access: claim due monitors (a lease), record a check with its consequences, release leases.
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { checks, monitors } from '../db/schema.ts'
import { decideOutcome, type MonitorStatus } from '../checker/outcome.ts'
import { openIncident, resolveOpenIncident } from './incidents.ts'

export interface ClaimedMonitor {
  id: string
  url: string
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'
  expectedStatus: number
  timeoutSeconds: number
  /** When the check was due; lateness is the probe's start minus this. */
  dueAt: Date
  /** The lease: next_check_at while this worker holds the monitor. */
  leaseUntil: Date
}

export interface CheckResult {
  isUp: boolean
  statusCode: number | null
  responseTimeMs: number
  errorMessage: string | null
  checkedAt: Date
}

/**
 * Claims up to `limit` due monitors in one short statement: their next_check_at moves to `leaseUntil`,
 * so no other worker claims them for this slot; SKIP LOCKED lets workers claim side by side.
 */
export async function claimDueMonitors (db: Database, now: Date, limit: number, leaseMs: number): Promise<ClaimedMonitor[]> {
  const leaseUntil = new Date(now.getTime() + leaseMs)
  const result = await db.execute(sql`
    with due as (
      select id, next_check_at from ${monitors}
      where deleted_at is null and is_active and next_check_at <= ${now.toISOString()}::timestamptz
      order by next_check_at
      limit ${limit}
      for update skip locked
    )
    update ${monitors} m set next_check_at = ${leaseUntil.toISOString()}::timestamptz
    from due where m.id = due.id
    returning m.id, m.url, m.method, m.expected_status, m.timeout_seconds, due.next_check_at as due_at`)
  return rowsOf(result).map((row) => ({
    id: row.id as string,
    url: row.url as string,
    method: row.method as ClaimedMonitor['method'],
    expectedStatus: Number(row.expected_status),
    timeoutSeconds: Number(row.timeout_seconds),
    dueAt: new Date(row.due_at as string),
    leaseUntil,
  }))
}

/**
 * Records a check in one transaction: the check row, the monitor's status, counters, last check and
 * next check, and the incident it opens or resolves. A monitor paused or deleted meanwhile is left alone.
 */
export async function recordCheck (db: Database, monitorId: string, result: CheckResult, confirmDelayMs: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [monitor] = await tx.select().from(monitors)
      .where(and(eq(monitors.id, monitorId), isNull(monitors.deletedAt), eq(monitors.isActive, true)))
      .for('update')
    if (!monitor) return false
    await tx.insert(checks).values({ monitorId, ...result })
    const outcome = decideOutcome({ ...monitor, status: monitor.status as MonitorStatus }, result.isUp, confirmDelayMs)
    await tx.update(monitors).set({
      status: outcome.status,
      consecutiveFailures: outcome.consecutiveFailures,
      consecutiveSuccesses: outcome.consecutiveSuccesses,
      lastCheckedAt: result.checkedAt,
      nextCheckAt: new Date(result.checkedAt.getTime() + outcome.nextCheckInMs),
    }).where(eq(monitors.id, monitorId))
    if (outcome.incident === 'open') {
      // The incident starts at the first failing check of this run of failures.
      const [first] = await tx.select().from(checks).where(eq(checks.monitorId, monitorId))
        .orderBy(desc(checks.checkedAt), desc(checks.id)).offset(outcome.consecutiveFailures - 1).limit(1)
      await openIncident(tx, monitorId, { cause: first.errorMessage ?? 'check failed', statusCode: first.statusCode, startedAt: first.checkedAt })
    } else if (outcome.incident === 'resolve') {
      await resolveOpenIncident(tx, monitorId, result.checkedAt)
    }
    return true
  })
}

/** Gives back leases of checks that were abandoned (shutdown), so that any worker checks them at once. */
export async function releaseMonitors (db: Database, claimed: ClaimedMonitor[], now: Date): Promise<void> {
  // Only where the lease is still ours: an edit may have rescheduled the monitor meanwhile.
  for (const monitor of claimed) {
    await db.update(monitors).set({ nextCheckAt: now })
      .where(and(eq(monitors.id, monitor.id), eq(monitors.nextCheckAt, monitor.leaseUntil)))
  }
}

/** When the next monitor is due (null when none is), so an idle checker can sleep until then. */
export async function nextDueAt (db: Database): Promise<Date | null> {
  const [row] = await db.select({ at: sql<string | null>`min(${monitors.nextCheckAt})` }).from(monitors)
    .where(and(isNull(monitors.deletedAt), eq(monitors.isActive, true)))
  return row?.at ? new Date(row.at) : null
}
