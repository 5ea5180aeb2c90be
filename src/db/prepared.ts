// Statements of the API's hot paths, built once per database and sent as prepared statements.
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core'
import { getTableColumns, getTableName, is, Placeholder, sql, type SQL } from 'drizzle-orm'
import type { Database } from './client.ts'

/**
 * Wraps a function that builds a drizzle prepared query (with `sql.placeholder`s) so that it is built
 * once per database: building a query costs more CPU than a primary-key lookup in PostgreSQL
 * (bench/results.md, "Measurements behind the source"). The values of placeholders in a where clause (or
 * wrapped in sql``) skip drizzle's column mapping: times go as ISO text, not Date.
 */
export function preparedPerDatabase<T> (build: (db: Database) => T): (db: Database) => T {
  const statements = new WeakMap<Database, T>()
  return (db) => {
    let statement = statements.get(db)
    if (statement === undefined) statements.set(db, statement = build(db))
    return statement
  }
}

const dialect = new PgDialect()

/** A statement of plain SQL, run with the values of its placeholders. */
export interface PreparedSql {
  /** The rows as the driver gives them: an array (postgres.js) or {rows} (PGlite); see rowsOf(). */
  execute: (values: Record<string, unknown>) => Promise<unknown>
  /**
   * The rows as arrays of the columns' bytes (UTF-8 text; null for a null): what postgres.js received, not
   * decoded into strings, for a large text that is sent on as it is (a list's JSON).
   */
  executeRaw: (values: Record<string, unknown>) => Promise<Array<Array<Buffer | null>>>
}

// What drizzle's PGlite session passes with every query: date and time types stay text, as on postgres.js
// (where drizzle sets this on the client). The type OIDs, so that PGlite is not loaded to name them.
const PGLITE_TEXT_TIMES = { parsers: Object.fromEntries([1082, 1114, 1184, 1186].map((oid) => [oid, (value: string) => value])) }

type Client = { unsafe: (text: string, params: unknown[]) => Promise<unknown> & { raw: () => Promise<unknown> } } |
  { query: (text: string, params: unknown[], options: object) => Promise<unknown> }
type RawRows = Array<Array<Buffer | null>>

/**
 * Plain SQL (drizzle's sql`` with sql.placeholder()s) turned into text once, and run on drizzle's own
 * client (on PostgreSQL the preparing, gated one of client.ts; in a transaction, the transaction's)
 * without its prepared-query layers (placeholders, tracing spans, cache, nested promises): on the API's
 * hottest reads both the text's building and those layers were a measurable share of each request
 * (bench/results.md, "Measurements behind the source").
 */
export function preparedSql (name: string, build: () => SQL): (db: Database) => PreparedSql {
  let query: { text: string, names: string[] } | undefined
  const built = () => {
    if (query) return query
    const { sql: text, params } = dialect.sqlToQuery(build())
    const names = params.map((param) => {
      if (!is(param, Placeholder)) throw new Error(`${name}: every value must be a sql.placeholder()`)
      return param.name
    })
    return (query = { text, names })
  }
  return preparedPerDatabase((db) => {
    const { text, names } = built()
    // The session's client: the database's (db.$client), or the connection a transaction holds.
    const client = (db as unknown as { session: { client: Client } }).session.client
    const valuesOf = (values: Record<string, unknown>) => names.map((placeholder) => values[placeholder])
    if ('unsafe' in client) {
      return {
        execute: (values) => client.unsafe(text, valuesOf(values)),
        executeRaw: async (values) => await client.unsafe(text, valuesOf(values)).raw() as RawRows,
      }
    }
    // PGlite gives strings (it runs in this process, nothing to save): as bytes, for the same answer.
    const rawOptions = { ...PGLITE_TEXT_TIMES, rowMode: 'array' }
    return {
      execute: (values) => client.query(text, valuesOf(values), PGLITE_TEXT_TIMES),
      executeRaw: async (values) => {
        const { rows } = await client.query(text, valuesOf(values), rawOptions) as { rows: unknown[][] }
        return rows.map((row) => row.map((value) => value === null ? null : Buffer.from(String(value))))
      },
    }
  })
}

/**
 * `m.id, m.name, ...`: the select list of a plain-SQL read, one column of `table` (alias `alias`) per
 * field of the API's schema, in the schema's order, so that the rows come back with the API's field
 * names and no read lists its fields by hand. `from` gives a field its own expression (`{ monitor_id:
 * 'm.id' }` makes `m.id as monitor_id`); any other field must be a column of the table.
 */
export function selectList (alias: string, table: PgTable, fields: readonly string[], from: Record<string, string> = {}): SQL {
  const columns = new Set(Object.values(getTableColumns(table)).map((column) => column.name))
  return sql.raw(fields.map((field) => {
    if (field in from) return `${from[field]} as ${field}`
    if (!columns.has(field)) throw new Error(`selectList: ${getTableName(table)} has no column ${field}`)
    return `${alias}.${field}`
  }).join(', '))
}
