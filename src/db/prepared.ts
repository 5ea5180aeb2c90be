// Statements of the API's hot paths, built once per database and sent as prepared statements.
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core'
import { getTableColumns, getTableName, is, Placeholder, sql, type Query, type SQL } from 'drizzle-orm'
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
  /** The rows as the driver gives them: an array (postgres.js) or {rows} (PGlite); see rowsOf(). Times stay text. */
  execute: (values: Record<string, unknown>) => Promise<unknown>
}

/** Plain SQL with sql.placeholder()s, made text once and prepared by drizzle under `name` on each database. */
export function preparedSql (name: string, build: () => SQL): (db: Database) => PreparedSql {
  let query: Query | undefined
  const built = () => {
    if (query) return query
    const made = dialect.sqlToQuery(build())
    if (!made.params.every((param) => is(param, Placeholder))) throw new Error(`${name}: every value must be a sql.placeholder()`)
    return (query = made)
  }
  // Plain SQL has no query builder to call .prepare(name) on: this is what that calls, with no fields to map.
  return preparedPerDatabase((db) => db._.session.prepareQuery(built(), undefined, name, false))
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
