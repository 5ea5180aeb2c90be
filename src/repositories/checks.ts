// Check result data access: the newest results of a monitor, and inserting results.
import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { checks } from '../db/schema.ts'
import type { Check } from '../schemas/check.ts'

export const MAX_CHECKS_PER_PAGE = 100

export type NewCheck = typeof checks.$inferInsert

export async function listChecks (
  db: Database, monitorId: string, page: { limit?: number, before?: string }
): Promise<Check[]> {
  const rows = await db.select().from(checks)
    .where(and(eq(checks.monitorId, monitorId), page.before ? lt(checks.checkedAt, new Date(page.before)) : undefined))
    .orderBy(desc(checks.checkedAt), desc(checks.id))
    .limit(Math.min(page.limit ?? MAX_CHECKS_PER_PAGE, MAX_CHECKS_PER_PAGE))
  return rows.map((row) => ({
    id: row.id,
    monitor_id: row.monitorId,
    is_up: row.isUp,
    status_code: row.statusCode,
    response_time_ms: row.responseTimeMs,
    checked_at: row.checkedAt.toISOString(),
    error_message: row.errorMessage,
  }))
}

export async function insertChecks (db: Pick<Database, 'insert'>, rows: NewCheck[]): Promise<void> {
  if (rows.length > 0) await db.insert(checks).values(rows)
}

/**
 * Deletes up to `batch` checks older than `cutoff`, never one of a monitor's newest 100; returns how
 * many went. Small batches keep each statement short next to the API's reads.
 */
export async function deleteExpiredChecks (db: Database, cutoff: Date, batch: number): Promise<number> {
  const deleted = await db.execute(sql`
    delete from ${checks} where id in (
      select c.id from ${checks} c
      where c.checked_at < ${cutoff.toISOString()}::timestamptz
        and c.checked_at < (
          select k.checked_at from ${checks} k where k.monitor_id = c.monitor_id
          order by k.checked_at desc, k.id desc offset ${MAX_CHECKS_PER_PAGE - 1} limit 1)
      limit ${batch})
    returning 1`)
  return Array.isArray(deleted) ? deleted.length : (deleted as { rows: unknown[] }).rows.length
}
