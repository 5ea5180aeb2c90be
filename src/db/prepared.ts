// Statements of the API's hot paths, built once per database and sent as prepared statements.
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core'
import { getTableColumns, getTableName, is, Placeholder, sql, type SQL } from 'drizzle-orm'
import type { Database } from './client.ts'

/**
 * Builds a drizzle prepared query once per database: building one costs more CPU than a primary-key lookup.
 * Placeholder values in a where clause (or in sql``) skip column mapping: times go as ISO text, not Date.
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
  /** The rows as arrays of undecoded UTF-8 bytes (null for null), for a large text sent on as it is. */
  executeRaw: (values: Record<string, unknown>) => Promise<Array<Array<Buffer | null>>>
}

// Date and time types stay text, as drizzle sets them on postgres.js; OIDs, so that PGlite is not loaded to name them.
const PGLITE_TEXT_TIMES = { parsers: Object.fromEntries([1082, 1114, 1184, 1186].map((oid) => [oid, (value: string) => value])) }

type Client = { unsafe: (text: string, params: unknown[]) => Promise<unknown> & { raw: () => Promise<unknown> } } |
  { query: (text: string, params: unknown[], options: object) => Promise<unknown> }
type RawRows = Array<Array<Buffer | null>>

/** Plain SQL with sql.placeholder()s, made text once and run on drizzle's client without its prepared-query layers. */
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

/** `m.id, m.name, ...`: a column per API field, so rows come with its names; `from` maps a field to an expression. */
export function selectList (alias: string, table: PgTable, fields: readonly string[], from: Record<string, string> = {}): SQL {
  const columns = new Set(Object.values(getTableColumns(table)).map((column) => column.name))
  return sql.raw(fields.map((field) => {
    if (field in from) return `${from[field]} as ${field}`
    if (!columns.has(field)) throw new Error(`selectList: ${getTableName(table)} has no column ${field}`)
    return `${alias}.${field}`
  }).join(', '))
}
