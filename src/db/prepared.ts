// Statements of the API's hot paths, built once per database and sent as prepared statements.
import { PgDialect } from 'drizzle-orm/pg-core'
import type { SQL } from 'drizzle-orm'
import type { Database } from './client.ts'

/**
 * Wraps a function that builds a drizzle prepared query (with `sql.placeholder`s) so that it is built
 * once per database. Building a query costs more CPU than a primary-key lookup in PostgreSQL: bench/
 * measured drizzle's query building as the largest part of GET /monitors/{id}. The values of
 * placeholders in a where clause (or wrapped in sql``) skip drizzle's column mapping: times go as ISO
 * text, not Date.
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
}

/**
 * Plain SQL (drizzle's sql`` with sql.placeholder()s) turned into text once per database, like the
 * query builder's prepare(): bench/ measured building the text of an sql`` on every request at ~10 µs,
 * a tenth of GET /monitors/{id}.
 */
export function preparedSql (name: string, build: () => SQL): (db: Database) => PreparedSql {
  return preparedPerDatabase((db) => db._.session.prepareQuery(dialect.sqlToQuery(build()), undefined, name, false))
}
