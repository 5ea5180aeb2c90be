// Check results: the newest of a monitor, inserts and retention.
import { and, desc, eq, inArray, lt, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { checks } from '../db/schema.ts'
import { CheckSchema, type Check } from '../schemas/check.ts'
import { preparedSql, selectList } from '../db/prepared.ts'
import {
  assertOwnerFound, foundRows, ownedMonitorRow, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind,
} from './owner.ts'

export const MAX_CHECKS_PER_PAGE = 100

export type NewCheck = typeof checks.$inferInsert

type Param<T> = T | Placeholder

/** listChecks' query, unrun, so that a test can examine its plan (a backward scan of checks_monitor_checked_idx). */
export function checksQuery (db: Database, monitorId: Param<string>, page: { limit: Param<number>, before?: Date | Placeholder }) {
  return db.select().from(checks)
    .where(and(eq(checks.monitorId, monitorId), page.before === undefined ? undefined : lt(checks.checkedAt, page.before)))
    .orderBy(desc(checks.checkedAt), desc(checks.id))
    .limit(page.limit)
}

// monitor_id comes from the monitor's row, so that a monitor without checks still shows.
const CHECK_FIELDS = Object.keys(CheckSchema.properties)
const CHECK_COLUMNS = CHECK_FIELDS.filter((field) => field !== 'monitor_id')

// No row: the owner is gone; a row of nulls: no such monitor; a row without a check id: no checks yet.
export function ownedChecksQuery (kind: OwnerKind, withBefore: boolean): SQL {
  return sql`select ${selectList('c', checks, CHECK_FIELDS, { monitor_id: 'm.id' })}
    ${ownedMonitorRow(kind, 'monitorId')}
    left join lateral (
      select ${selectList('k', checks, CHECK_COLUMNS)}
      from ${checks} k
      where k.monitor_id = m.id${withBefore ? sql` and k.checked_at < ${sql.placeholder('before')}::timestamptz` : sql``}
        and (${sql.placeholder('location')}::text is null or k.location = ${sql.placeholder('location')}::text)
      order by k.checked_at desc, k.id desc
      limit ${sql.placeholder('limit')}
    ) c on true`
}
const ownedChecksStatements = perOwnerKind((kind) => ({
  latest: preparedSql(`owned_checks_${kind}`, () => ownedChecksQuery(kind, false)),
  before: preparedSql(`owned_checks_before_${kind}`, () => ownedChecksQuery(kind, true)),
}))

/** A row of listOwnedChecks that is no check: the monitor is missing (all null) or has no checks. */
type NoCheckRow = NullRow<Check> | (NullRow<Omit<Check, 'monitor_id'>> & Pick<Check, 'monitor_id'>)

const pageLimit = (limit: number | undefined) => Math.min(limit ?? MAX_CHECKS_PER_PAGE, MAX_CHECKS_PER_PAGE)

/** The newest checks of a monitor (any owner's: the caller has checked ownership). */
export async function listChecks (
  db: Database, monitorId: string, page: { limit?: number, before?: string }
): Promise<Check[]> {
  const rows = await checksQuery(db, monitorId, {
    limit: pageLimit(page.limit), before: page.before === undefined ? undefined : new Date(page.before),
  })
  return rows.map(toCheck)
}

/** Of the slots of `location`'s checks asked for, those it has a check of, as `monitorId@slotMs` (checks_location_slot_key). */
export async function recordedSlots (db: Pick<Database, 'execute'>, location: string, asked: Array<{ monitorId: string, slotAt: Date }>): Promise<Set<string>> {
  if (asked.length === 0) return new Set()
  const values = asked.map((slot) => ({ monitor_id: slot.monitorId, slot_at: slot.slotAt.toISOString() }))
  const rows = rowsOf<{ monitor_id: string, slot_at: string }>(await db.execute(sql`
    select c.monitor_id, c.slot_at from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(monitor_id uuid, slot_at timestamptz)
    join ${checks} c on c.monitor_id = v.monitor_id and c.location = ${location} and c.slot_at = v.slot_at`))
  return new Set(rows.map((row) => slotKey(row.monitor_id, new Date(row.slot_at))))
}

export const slotKey = (monitorId: string, slotAt: Date) => `${monitorId}@${slotAt.getTime()}`

/** The API's record of a check row. */
export function toCheck (row: Omit<typeof checks.$inferSelect, 'pingBody' | 'location' | 'slotAt'>): Check {
  return {
    id: row.id,
    monitor_id: row.monitorId,
    is_up: row.isUp,
    status_code: row.statusCode,
    response_time_ms: row.responseTimeMs,
    checked_at: row.checkedAt.toISOString(),
    error_message: row.errorMessage,
  }
}

/** The newest checks of one of the owner's live monitors (of one location's checker when given); undefined when there is no such monitor. */
export async function listOwnedChecks (
  db: Database, owner: Owner, monitorId: string, page: { limit?: number, before?: string, location?: string }
): Promise<Check[] | undefined> {
  const statements = ownedChecksStatements(owner)
  // Times arrive as text: drizzle turns the drivers' date parsing off.
  const rows = rowsOf<Check | NoCheckRow>(await (page.before === undefined ? statements.latest : statements.before)(db).execute({
    owner: ownerValue(owner),
    monitorId,
    limit: pageLimit(page.limit),
    before: page.before === undefined ? undefined : new Date(page.before).toISOString(),
    location: page.location ?? null,
  }))
  assertOwnerFound(owner, rows)
  if (rows[0].monitor_id === null) return undefined
  if (!foundRows(rows)) return []
  for (const row of rows) row.checked_at = isoTime(row.checked_at)
  return rows
}

export async function insertChecks (db: Pick<Database, 'insert'>, rows: NewCheck[]): Promise<void> {
  if (rows.length > 0) await db.insert(checks).values(rows)
}

/** Deletes up to `batch` expired checks, never one of a monitor's newest 100; small batches keep statements short. */
export async function deleteExpiredChecks (db: Database, cutoff: Date, batch: number): Promise<number> {
  const c = alias(checks, 'c')
  const k = alias(checks, 'k')
  const newestKept = db.select({ checkedAt: k.checkedAt }).from(k)
    .where(eq(k.monitorId, c.monitorId))
    .orderBy(desc(k.checkedAt), desc(k.id))
    .offset(MAX_CHECKS_PER_PAGE - 1)
    .limit(1)
  const expired = db.select({ id: c.id }).from(c)
    .where(and(lt(c.checkedAt, cutoff), lt(c.checkedAt, newestKept)))
    .limit(batch)
  const deleted = await db.delete(checks).where(inArray(checks.id, expired)).returning({ id: checks.id })
  return deleted.length
}
