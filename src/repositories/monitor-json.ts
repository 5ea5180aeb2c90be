// The monitor list as the JSON text of the API's answer, joined by the database from each monitor's stored
// item (list_head and list_tail, src/db/row-json.ts): no object per row, nothing parsed and serialized again.
import { sql, type SQL } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import type { MonitorListParams } from '../schemas/monitor-list.ts'
import { encodeCursor, listRequest, pageScan, sortUs, statementsByShape, type ListShape } from './monitor-list.ts'
import { assertOwnerFound, ownerRow, perOwnerKind, type Owner, type OwnerKind } from './owner.ts'

/** A monitor's list item: its stored head, then its tail (the fields the checker and the pings change). */
const itemJson = (alias: string): SQL => sql.raw(`${alias}.list_head || ${alias}.list_tail`)

// The whole list in one aggregate. No row: the owner is gone; a null `items`: no monitors.
function listJsonQuery (kind: OwnerKind): SQL {
  return sql`select string_agg(${itemJson('m')}, ',' order by m.created_at desc, m.id desc) filter (where m.id is not null) as items
    from ${ownerRow(kind)}
    left join ${monitors} m on m.user_id = o.user_id and m.deleted_at is null
    group by o.user_id`
}
const listStatement = perOwnerKind((kind) => preparedSql(`list_monitors_json_${kind}`, () => listJsonQuery(kind)))

// A page, from the same scan as the object path (pageScan), with its last row's place when more follow.
// `size` is the page's size (`limit` is one more).
function pageJsonQuery (kind: OwnerKind, shape: ListShape): SQL {
  const size = sql`${sql.placeholder('size')}::bigint`
  const columns = sql`${itemJson('k')} as item, k.created_at, k.id, row_number() over (order by k.created_at desc, k.id desc) as n`
  // Computed for the page's last row only: sort_us for every row read is costly.
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
  /** The items as UTF-8 JSON joined by commas, without brackets, so the route wraps them in one copy. */
  items: Buffer
  /** The `cursor` of the next page when more monitors follow; undefined on the last page. */
  nextCursor?: string
}

const NONE = Buffer.alloc(0)

/** listMonitorPage as JSON: the bytes the database sent, never decoded into a string and encoded again. */
export async function listMonitorPageJson (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPageJson> {
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  const rows = await statement(db).executeRaw({ ...values, size: query.limit })
  assertOwnerFound(owner, rows)
  const [items, nextSortUs, nextId] = rows[0] ?? []
  const page = { items: items ?? NONE }
  return nextId == null ? page : { ...page, nextCursor: encodeCursor(nextSortUs!.toString(), nextId.toString()) }
}
