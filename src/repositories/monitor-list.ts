// The monitor list of an owner: whole (the API's hot read, one prepared statement), or filtered and paged by
// a keyset cursor (one prepared statement per combination of parameters, built on its first use).
import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { preparedSql, selectList, type PreparedSql } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import { InvalidInputError } from '../domain/errors.ts'
import { MonitorListItemSchema, type MonitorListItem } from '../schemas/monitor.ts'
import type { MonitorListParams } from '../schemas/monitor-list.ts'
import { assertOwnerFound, foundRows, ownerRow, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind } from './owner.ts'

// The select list of the hot read: the fields of the API's schema, whose names are the columns'.
const LIST_FIELDS = Object.keys(MonitorListItemSchema.properties)

/**
 * The statement of the whole list (monitors_user_created_idx, then a sort in memory). Plain SQL whose rows
 * need no mapping by drizzle: for a list of 1,000 monitors drizzle's generic row mapping was a large
 * share of the request's CPU (bench/results.md, "Measurements behind the source"). No row: the owner
 * is gone; one row of nulls: no monitors.
 */
function listMonitorsQuery (kind: OwnerKind): SQL {
  return sql`select ${selectList('m', monitors, LIST_FIELDS)}
    from ${ownerRow(kind)}
    left join ${monitors} m on m.user_id = o.user_id and m.deleted_at is null
    order by m.created_at desc, m.id desc`
}
const listStatement = perOwnerKind((kind) => preparedSql(`list_monitors_${kind}`, () => listMonitorsQuery(kind)))

/** Which parameters a filtered or paged read has: each combination is a statement of its own. */
export interface ListShape { limit: boolean, cursor: boolean, status: boolean, isActive: boolean, search: boolean }

const ph = sql.placeholder

/**
 * The statement of a filtered or paged list, built but not run (test/repositories/monitor-list-explain.test.ts
 * examines its plan): the owner's row, LEFT JOIN LATERAL a backward scan of monitors_user_created_idx that
 * stops after `limit` rows (the page and one more, which says that more follow). The keyset condition is on
 * the list's own order (created_at, id), so a monitor created while a client pages sorts before its cursor
 * and moves nothing. `sort_us` (created_at in microseconds, exact) makes the cursor of a page's last row.
 *
 * The limit is a subquery so that the planner does not know it: knowing it, and expecting from its statistics
 * fewer of a user's rows than the page (it knows the average user, not this one; a cursor or a filter cuts its
 * estimate further), it read all of the user's rows and sorted them, ~4 ms for a user with 10,000 monitors
 * against 0.3 ms for the index scan (PostgreSQL 15, EXPLAIN ANALYZE).
 */
export function monitorPageQuery (kind: OwnerKind, shape: ListShape): SQL {
  return sql`select ${selectList('m', monitors, LIST_FIELDS)}, m.sort_us
    from ${ownerRow(kind)}
    left join lateral (
      ${pageScan(shape, sql`${selectList('k', monitors, LIST_FIELDS)}, ${SORT_US} as sort_us`)}
    ) m on true`
}

/** A `created_at` in microseconds (exact, as text): a page's last row's place, which its cursor holds. */
export const sortUs = (createdAt: SQL): SQL => sql`(extract(epoch from ${createdAt}) * 1000000)::bigint::text`
const SORT_US = sortUs(sql.raw('k.created_at'))

/**
 * The part of a page's statement that reads the monitors (alias `k`, `columns` of them): the owner's (`o`)
 * live monitors that the filters keep, after the cursor, newest first, at most `limit`. The JSON list
 * (monitor-json.ts) reads the same rows with other columns.
 */
export function pageScan (shape: ListShape, columns: SQL): SQL {
  const conditions = [
    shape.cursor && sql` and (k.created_at, k.id) < (timestamptz 'epoch' + ${ph('afterUs')}::bigint * interval '1 microsecond', ${ph('afterId')}::uuid)`,
    shape.status && sql` and k.status = ${ph('status')}::text`,
    shape.isActive && sql` and k.is_active = ${ph('isActive')}::boolean`,
    shape.search && sql` and (k.name ilike ${ph('search')}::text or k.url ilike ${ph('search')}::text)`,
  ].filter((condition) => condition !== false)
  return sql`select ${columns}
      from ${monitors} k
      where k.user_id = o.user_id and k.deleted_at is null${sql.join(conditions)}
      order by k.created_at desc, k.id desc${shape.limit ? sql` limit (select ${ph('limit')}::bigint)` : sql``}`
}

const shapeName = (shape: ListShape) => Object.entries(shape).filter(([, on]) => on).map(([name]) => name).join('_')

/** Statements by the shape of the request, each built on its first use: `build` makes the one of a kind and shape. */
export function statementsByShape (prefix: string, build: (kind: OwnerKind, shape: ListShape) => SQL) {
  return perOwnerKind((kind) => {
    const built = new Map<string, (db: Database) => PreparedSql>()
    return (shape: ListShape) => {
      const name = `${prefix}_${kind}_${shapeName(shape)}`
      let statement = built.get(name)
      if (statement === undefined) built.set(name, statement = preparedSql(name, () => build(kind, shape)))
      return statement
    }
  })
}
const pageStatements = statementsByShape('list_monitors', monitorPageQuery)

const CURSOR_TEXT = /^(-?\d{1,18}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

/** A page's cursor: its last row's place in the order (created_at to the microsecond, id), opaque to clients. */
export const encodeCursor = (sortUs: string, id: string) => Buffer.from(`${sortUs}:${id}`).toString('base64url')

function decodeCursor (cursor: string): { afterUs: string, afterId: string } {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  // Base64 decoding skips what it cannot read: a cursor must also be the very text that its content encodes to.
  if (!match || encodeCursor(match[1], match[2]) !== cursor) {
    throw new InvalidInputError('cursor', 'querystring/cursor must be a cursor from the Link header of this list')
  }
  return { afterUs: match[1], afterId: match[2] }
}

/** `%text%` for ILIKE, the text's own `%`, `_` and `\` taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`

export interface MonitorPage {
  monitors: MonitorListItem[]
  /** The `cursor` of the next page when more monitors follow; undefined on the last page. */
  nextCursor?: string
}

type PageRow = MonitorListItem & { sort_us?: string }

/** What a read of the list needs: its shape, whether it is the whole list, and the values of its placeholders. */
export interface ListRequest { shape: ListShape, whole: boolean, values: Record<string, unknown> }

/** The shape and placeholder values of a read of the list; a bad cursor is an InvalidInputError. */
export function listRequest (owner: Owner, query: MonitorListParams): ListRequest {
  const { limit, cursor, status, is_active: isActive, search } = query
  const shape: ListShape = {
    limit: limit !== undefined, cursor: cursor !== undefined, status: status !== undefined, isActive: isActive !== undefined, search: search !== undefined,
  }
  const whole = !shape.limit && !shape.cursor && !shape.status && !shape.isActive && !shape.search
  const values = {
    owner: ownerValue(owner),
    ...(cursor === undefined ? {} : decodeCursor(cursor)),
    // One more than the page: its presence says that more follow.
    limit: limit === undefined ? undefined : limit + 1,
    status,
    isActive,
    search: search === undefined ? undefined : containing(search),
  }
  return { shape, whole, values }
}

/**
 * The owner's live monitors, newest created first: all of them without parameters (the hot statement), else
 * those the filters keep, at most `limit` after `cursor`. The API's route sends the same list as JSON made by
 * the database (monitor-json.ts); this one gives objects (the dashboard, the CLI, the bench's reference check).
 */
export async function listMonitorPage (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPage> {
  const { limit } = query
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  // Times arrive as the database's text (drizzle turns the drivers' date parsing off).
  const rows = rowsOf<PageRow | NullRow<PageRow>>(await statement(db).execute(values))
  assertOwnerFound(owner, rows)
  if (!foundRows(rows)) return { monitors: [] }
  let nextCursor: string | undefined
  if (limit !== undefined && rows.length > limit) {
    rows.length = limit
    nextCursor = encodeCursor(rows[limit - 1].sort_us!, rows[limit - 1].id)
  }
  // The rows already carry the API's field names: only the time is converted, in place.
  for (const row of rows) {
    if (row.last_checked_at !== null) row.last_checked_at = isoTime(row.last_checked_at)
    if (!whole) delete row.sort_us
  }
  return { monitors: rows, nextCursor }
}

/** The owner's live monitors that the filters keep (all without), newest created first. */
export async function listMonitors (
  db: Database, owner: Owner, filters: Omit<MonitorListParams, 'limit' | 'cursor'> = {}
): Promise<MonitorListItem[]> {
  return (await listMonitorPage(db, owner, filters)).monitors
}
