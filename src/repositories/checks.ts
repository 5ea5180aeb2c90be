// Check result data access: the newest results of a monitor, and inserting results.
import { and, desc, eq, lt, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { checks } from '../db/schema.ts'
import type { Check } from '../schemas/check.ts'
import { preparedSql } from '../db/prepared.ts'
import {
  assertOwnerFound, ownedMonitorRow, ownerValue, perOwnerKind, type Owner, type OwnerKind,
} from './owner.ts'

export const MAX_CHECKS_PER_PAGE = 100

export type NewCheck = typeof checks.$inferInsert

type Param<T> = T | Placeholder

/**
 * The statement of listChecks, built but not run (test/repositories/checks-explain.test.ts examines its
 * plan): a backward scan of checks_monitor_checked_idx.
 */
export function checksQuery (db: Database, monitorId: Param<string>, page: { limit: Param<number>, before?: Date | Placeholder }) {
  return db.select().from(checks)
    .where(and(eq(checks.monitorId, monitorId), page.before === undefined ? undefined : lt(checks.checkedAt, page.before)))
    .orderBy(desc(checks.checkedAt), desc(checks.id))
    .limit(page.limit)
}

/**
 * The statement of listOwnedChecks: the owner's live monitor, LEFT JOIN LATERAL its newest checks (the
 * same backward index scan). One round trip answers every question: no row, the owner is gone; one row
 * of nulls, no such monitor; one row without a check id, a monitor without checks. Plain SQL, whose rows
 * need no mapping by drizzle: on the API's hottest read, drizzle's generic row mapping cost more CPU
 * than everything else in the handler (bench/).
 */
export function ownedChecksQuery (kind: OwnerKind, withBefore: boolean): SQL {
  return sql`select c.id, m.id as monitor_id, c.is_up, c.status_code, c.response_time_ms, c.checked_at, c.error_message
    ${ownedMonitorRow(kind, 'monitorId')}
    left join lateral (
      select k.id, k.is_up, k.status_code, k.response_time_ms, k.checked_at, k.error_message
      from ${checks} k
      where k.monitor_id = m.id${withBefore ? sql` and k.checked_at < ${sql.placeholder('before')}::timestamptz` : sql``}
      order by k.checked_at desc, k.id desc
      limit ${sql.placeholder('limit')}
    ) c on true`
}
const ownedChecksStatements = perOwnerKind((kind) => ({
  latest: preparedSql(`owned_checks_${kind}`, () => ownedChecksQuery(kind, false)),
  before: preparedSql(`owned_checks_before_${kind}`, () => ownedChecksQuery(kind, true)),
}))

interface OwnedCheckRow {
  id: string | null
  monitor_id: string | null
  is_up: boolean
  status_code: number | null
  response_time_ms: number
  /** Text as the database sends it: drizzle turns the drivers' date parsing off. */
  checked_at: string
  error_message: string | null
}

const pageLimit = (limit: number | undefined) => Math.min(limit ?? MAX_CHECKS_PER_PAGE, MAX_CHECKS_PER_PAGE)

/** The newest checks of a monitor (any owner's: the caller has checked ownership). */
export async function listChecks (
  db: Database, monitorId: string, page: { limit?: number, before?: string }
): Promise<Check[]> {
  const rows = await checksQuery(db, monitorId, {
    limit: pageLimit(page.limit), before: page.before === undefined ? undefined : new Date(page.before),
  })
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

/** The newest checks of one of the owner's live monitors; undefined when there is no such monitor. */
export async function listOwnedChecks (
  db: Database, owner: Owner, monitorId: string, page: { limit?: number, before?: string }
): Promise<Check[] | undefined> {
  const statements = ownedChecksStatements(owner)
  const rows = rowsOf<OwnedCheckRow>(await (page.before === undefined ? statements.latest : statements.before)(db).execute({
    owner: ownerValue(owner),
    monitorId,
    limit: pageLimit(page.limit),
    before: page.before === undefined ? undefined : new Date(page.before).toISOString(),
  }))
  assertOwnerFound(owner, rows)
  if (rows[0].monitor_id === null) return undefined
  if (rows[0].id === null) return []
  // The rows already carry the API's field names: only the time is converted, in place.
  for (const row of rows) row.checked_at = isoTime(row.checked_at)
  return rows as Check[]
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
  return rowsOf(deleted).length
}
