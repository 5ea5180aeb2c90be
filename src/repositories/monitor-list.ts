// An owner's monitor list: whole (the hot read), or filtered and paged by a keyset cursor (one prepared
// statement per combination of parameters).
import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { preparedSql, selectList, type PreparedSql } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import { InvalidInputError } from '../domain/errors.ts'
import { MonitorListItemSchema, type MonitorListItem } from '../schemas/monitor.ts'
import type { MonitorListParams } from '../schemas/monitor-list.ts'
import { assertOwnerFound, foundRows, ownerRow, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind } from './owner.ts'

// The API schema's field names are also the column names.
const LIST_FIELDS = Object.keys(MonitorListItemSchema.properties)

// Plain SQL whose rows need no mapping by drizzle. No row: the owner is gone; one row of nulls: no monitors.
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

/** A filtered or paged list; keyed on (created_at, id), so a monitor created while a client pages moves nothing. */
export function monitorPageQuery (kind: OwnerKind, shape: ListShape): SQL {
  return sql`select ${selectList('m', monitors, LIST_FIELDS)}, m.sort_us
    from ${ownerRow(kind)}
    left join lateral (
      ${pageScan(shape, sql`${selectList('k', monitors, LIST_FIELDS)}, ${SORT_US} as sort_us`)}
    ) m on true`
}

/** A `created_at` in exact microseconds, as text: what a cursor holds. */
export const sortUs = (createdAt: SQL): SQL => sql`(extract(epoch from ${createdAt}) * 1000000)::bigint::text`
const SORT_US = sortUs(sql.raw('k.created_at'))

/** The scan of the owner's (`o`) monitors as `k`, shared with the JSON list (monitor-json.ts). */
export function pageScan (shape: ListShape, columns: SQL): SQL {
  const conditions = [
    shape.cursor && sql` and (k.created_at, k.id) < (timestamptz 'epoch' + ${ph('afterUs')}::bigint * interval '1 microsecond', ${ph('afterId')}::uuid)`,
    shape.status && sql` and k.status = ${ph('status')}::text`,
    shape.isActive && sql` and k.is_active = ${ph('isActive')}::boolean`,
    shape.search && sql` and (k.name ilike ${ph('search')}::text or k.url ilike ${ph('search')}::text)`,
  ].filter((condition) => condition !== false)
  // The limit is a subquery to hide it from the planner: knowing it, the planner reads and sorts all of a
  // large user's rows instead of scanning the index.
  return sql`select ${columns}
      from ${monitors} k
      where k.user_id = o.user_id and k.deleted_at is null${sql.join(conditions)}
      order by k.created_at desc, k.id desc${shape.limit ? sql` limit (select ${ph('limit')}::bigint)` : sql``}`
}

const shapeName = (shape: ListShape) => Object.entries(shape).filter(([, on]) => on).map(([name]) => name).join('_')

/** Prepared statements by request shape, each built on its first use. */
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

/** A page's cursor: its last row's place in the order, opaque to clients. */
export const encodeCursor = (sortUs: string, id: string) => Buffer.from(`${sortUs}:${id}`).toString('base64url')

function decodeCursor (cursor: string): { afterUs: string, afterId: string } {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  // Base64 decoding skips what it cannot read, so the cursor must re-encode to itself.
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

/** The owner's live monitors, newest first, as objects (the API sends JSON made by monitor-json.ts instead). */
export async function listMonitorPage (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPage> {
  const { limit } = query
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  // Times arrive as text: drizzle turns the drivers' date parsing off.
  const rows = rowsOf<PageRow | NullRow<PageRow>>(await statement(db).execute(values))
  assertOwnerFound(owner, rows)
  if (!foundRows(rows)) return { monitors: [] }
  let nextCursor: string | undefined
  if (limit !== undefined && rows.length > limit) {
    rows.length = limit
    nextCursor = encodeCursor(rows[limit - 1].sort_us!, rows[limit - 1].id)
  }
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
