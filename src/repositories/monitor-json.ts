// The monitor list as the JSON text of the API's answer, joined by the database from each monitor's stored item
// (monitors.list_head and list_tail, src/db/row-json.ts; PostgreSQL and PGlite alike): no JavaScript object per
// row, nothing parsed and serialized again (issue #17, bench/results.md).
import { sql, type SQL } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import type { MonitorListParams } from '../schemas/monitor-list.ts'
import { encodeCursor, listRequest, pageScan, sortUs, statementsByShape, type ListShape } from './monitor-list.ts'
import { assertOwnerFound, ownerRow, perOwnerKind, type Owner, type OwnerKind } from './owner.ts'

/** A monitor's list item (alias `alias`): its stored head, then its stored tail (the fields the checker and the pings change). */
const itemJson = (alias: string): SQL => sql.raw(`${alias}.list_head || ${alias}.list_tail`)

/**
 * The whole list: the items' JSON joined in the list's order by one aggregate. No row: the owner is gone;
 * a null `items`: no monitors.
 */
function listJsonQuery (kind: OwnerKind): SQL {
  return sql`select string_agg(${itemJson('m')}, ',' order by m.created_at desc, m.id desc) filter (where m.id is not null) as items
    from ${ownerRow(kind)}
    left join ${monitors} m on m.user_id = o.user_id and m.deleted_at is null
    group by o.user_id`
}
const listStatement = perOwnerKind((kind) => preparedSql(`list_monitors_json_${kind}`, () => listJsonQuery(kind)))

/**
 * A filtered or paged list: the same scan as the object path's (monitor-list.ts, pageScan: the backward
 * index scan that stops after the page and one more), each row numbered in the scan's order; the items of
 * the page joined, and the place of its last row when one more was found. `size` is the page's own size
 * (`limit` is one more). No row: the owner is gone; a null `items`: no monitors.
 */
function pageJsonQuery (kind: OwnerKind, shape: ListShape): SQL {
  const size = sql`${sql.placeholder('size')}::bigint`
  const columns = sql`${itemJson('k')} as item, k.created_at, k.id, row_number() over (order by k.created_at desc, k.id desc) as n`
  // The page's last row's column when one more follows, computed for that row only: the cursor's sort_us of
  // every row read cost ~20 of the statement's ~95 µs of PostgreSQL's CPU (bench/results.md, "the database's share of the list and the page").
  const last = (column: SQL) => sql`case when count(m.n) > ${size} then max(${column}) filter (where m.n = ${size}) end`
  // Without a limit every row is the page's, and none follows.
  const [nextSortUs, nextId] = shape.limit ? [sortUs(last(sql`m.created_at`)), last(sql`m.id::text`)] : [sql`null::text`, sql`null::text`]
  return sql`select string_agg(m.item, ',' order by m.n) filter (where ${shape.limit ? sql`m.n <= ${size}` : sql`m.n is not null`}) as items,
      ${nextSortUs} as next_sort_us, ${nextId} as next_id
    from ${ownerRow(kind)}
    left join lateral (
      ${pageScan(shape, columns)}
    ) m on true
    group by o.user_id`
}
const pageStatements = statementsByShape('list_monitors_json', pageJsonQuery)

export interface MonitorPageJson {
  /**
   * The page's items as UTF-8 JSON, joined by commas: a JSON array's text without its brackets (empty for
   * none), so that the answer's envelope and brackets go around it in one copy (src/routes/monitors.ts).
   */
  items: Buffer
  /** The `cursor` of the next page when more monitors follow; undefined on the last page. */
  nextCursor?: string
}

const NONE = Buffer.alloc(0)

/**
 * The list of listMonitorPage (monitor-list.ts), the same monitors in the same order with the same cursor,
 * as the JSON text of its items (MonitorListItemSchema). The items come as the bytes the database sent
 * (executeRaw): never decoded into a string only to be encoded again for the socket.
 */
export async function listMonitorPageJson (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPageJson> {
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  const rows = await statement(db).executeRaw({ ...values, size: query.limit })
  assertOwnerFound(owner, rows)
  // items, then (a page's) the place of its last row when more follow.
  const [items, nextSortUs, nextId] = rows[0] ?? []
  const page = { items: items ?? NONE }
  return nextId == null ? page : { ...page, nextCursor: encodeCursor(nextSortUs!.toString(), nextId.toString()) }
}
