// Statements of the API's hot paths, built once per database and sent as prepared statements.
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
