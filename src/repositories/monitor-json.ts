// The monitor list as the JSON text of the API's answer, made by the database (PostgreSQL and PGlite alike):
// no JavaScript object per row, nothing parsed and serialized again (issue #17, bench/results.md).
import { sql, type SQL } from 'drizzle-orm'
import type { TObject } from '@sinclair/typebox'
import { rowsOf, type Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import { MonitorListItemSchema } from '../schemas/monitor.ts'
import type { MonitorListParams } from '../schemas/monitor-list.ts'
import { encodeCursor, listRequest, pageScan, SORT_US, statementsByShape, type ListShape } from './monitor-list.ts'
import { assertOwnerFound, ownerRow, perOwnerKind, type Owner, type OwnerKind } from './owner.ts'

/**
 * `to_char`'s picture of the API's times, toISOString's: UTC, milliseconds (cut, as Date cuts the database's
 * microseconds, not rounded), `Z`. `at time zone 'UTC'` makes it whatever the session's TimeZone.
 */
const ISO_PICTURE = '\'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\''

type FieldSchema = { type?: string | string[], format?: string, enum?: unknown[] }

/** SQL text of a string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** A value JSON writes as it is between quotes: a uuid, or a vocabulary's word (checked below). */
const needsNoEscape = (field: FieldSchema) => field.format === 'uuid' ||
  (Array.isArray(field.enum) && field.enum.every((value) => value === null || (typeof value === 'string' && JSON.stringify(value) === `"${value}"`)))

/** The JSON of one field's value: `quote` + `sql` + `quote`; `sql` is null when the column is. */
function valueJson (column: string, field: FieldSchema): { sql: string, quote: string } {
  const types = Array.isArray(field.type) ? field.type : [field.type]
  if (types.includes('string') && field.format === 'date-time') return { sql: `to_char(${column} at time zone 'UTC', ${ISO_PICTURE})`, quote: '"' }
  if (types.includes('string')) return needsNoEscape(field) ? { sql: `${column}::text`, quote: '"' } : { sql: `to_json(${column})::text`, quote: '' }
  if (types.includes('integer')) return { sql: `${column}::text`, quote: '' }
  if (types.includes('boolean')) return { sql: `case ${column} when true then 'true' when false then 'false' end`, quote: '' }
  throw new Error(`rowJson: no JSON of the database for ${column} (${JSON.stringify(field.type)})`)
}

/**
 * The JSON text of a row, `{"id":"...","name":"...",...}` (compact): each field of `schema`, in its order and
 * by its names, from the column of the same name of `alias`. Strings are what JSON.stringify makes of them
 * (PostgreSQL's to_json escapes as it does; a uuid or a vocabulary's word needs no escaping); integers and
 * booleans as JSON writes them; a `date-time` as the API writes times; a null column `null`. Built by
 * concatenation: row_to_json or json_build_object of the same fields cost the database more (and the
 * latter is not compact), bench/results.md, issue #17. The schema stays the contract: the test validates
 * these bytes against it and compares them with the object path's (test/repositories/monitor-json.test.ts).
 */
function rowJson (alias: string, schema: TObject): SQL {
  // Text between the values (keys, quotes) is gathered into one literal each.
  const parts: string[] = []
  let text = '{'
  for (const [name, field] of Object.entries(schema.properties)) {
    text += `${text === '{' ? '' : ','}${JSON.stringify(name)}:`
    const value = valueJson(`${alias}.${name}`, field as FieldSchema)
    if (Array.isArray(field.type) && field.type.includes('null')) {
      parts.push(literal(text), `coalesce(${value.quote ? `'${value.quote}' || ${value.sql} || '${value.quote}'` : value.sql}, 'null')`)
      text = ''
    } else {
      parts.push(literal(text + value.quote), value.sql)
      text = value.quote
    }
  }
  parts.push(literal(text + '}'))
  return sql.raw(`(${parts.join(' || ')})`)
}

/**
 * The whole list: the items' JSON joined in the list's order by one aggregate. No row: the owner is gone;
 * a null `items`: no monitors.
 */
function listJsonQuery (kind: OwnerKind): SQL {
  return sql`select string_agg(${rowJson('m', MonitorListItemSchema)}, ',' order by m.created_at desc, m.id desc) filter (where m.id is not null) as items
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
  const columns = sql`${rowJson('k', MonitorListItemSchema)} as item, ${SORT_US} as sort_us, k.id, row_number() over (order by k.created_at desc, k.id desc) as n`
  // Without a limit every row is the page's, and none follows.
  const next = (column: string) => shape.limit
    ? sql`case when count(m.n) > ${size} then max(${sql.raw(column)}) filter (where m.n = ${size}) end`
    : sql`null::text`
  return sql`select string_agg(m.item, ',' order by m.n) filter (where ${shape.limit ? sql`m.n <= ${size}` : sql`m.n is not null`}) as items,
      ${next('m.sort_us')} as next_sort_us, ${next('m.id::text')} as next_id
    from ${ownerRow(kind)}
    left join lateral (
      ${pageScan(shape, columns)}
    ) m on true
    group by o.user_id`
}
const pageStatements = statementsByShape('list_monitors_json', pageJsonQuery)

export interface MonitorPageJson {
  /** The page's items: a JSON array's text, `[...]`. */
  json: string
  /** The `cursor` of the next page when more monitors follow; undefined on the last page. */
  nextCursor?: string
}

type JsonRow = { items: string | null, next_sort_us?: string | null, next_id?: string | null }

/**
 * The list of listMonitorPage (monitor-list.ts), the same monitors in the same order with the same cursor,
 * as the JSON text of its items (MonitorListItemSchema).
 */
export async function listMonitorPageJson (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPageJson> {
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  const rows = rowsOf<JsonRow>(await statement(db).execute({ ...values, size: query.limit }))
  assertOwnerFound(owner, rows)
  const [row] = rows
  const json = row?.items == null ? '[]' : `[${row.items}]`
  return row?.next_id == null ? { json } : { json, nextCursor: encodeCursor(row.next_sort_us!, row.next_id) }
}
