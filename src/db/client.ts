// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { QueryGate } from './query-gate.ts'
import * as schema from './schema.ts'
import { lockDataDir } from './data-dir-lock.ts'

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>
/** A database or an open transaction on it. */
export type Queryable = Pick<Database, 'select' | 'insert' | 'update'>

export interface DatabaseHandle {
  db: Database
  kind: 'postgres' | 'pglite'
  /** Throws when the database does not answer. */
  ping: () => Promise<void>
  close: () => Promise<void>
}

export interface DatabaseOptions {
  DATABASE_URL?: string
  /** A directory, or `memory://` for a throw-away database (tests). */
  DATA_DIR: string
  /** Connections in the postgres.js pool. */
  poolSize?: number
}

/** The rows of a result as drizzle answers it: an array on postgres.js, {rows} on PGlite. */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] =>
  Array.isArray(result) ? result as T[] : (result as { rows: T[] }).rows

/** Makes close() safe to call more than once (the app, a test and a signal handler may all call it). */
function once (close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => (closing ??= close())
}

/**
 * drizzle sends its queries unprepared, and postgres.js then asks the server for the parameter types
 * before every execution: two round trips per query. Through this wrapper each distinct statement is
 * prepared once per connection and then executed in one round trip (bench/results.md, "Measurements
 * behind the source"). drizzle's statements are a fixed set of texts, all values
 * are parameters, so the per-connection statement cache stays small. Outside transactions (whose
 * queries run on the connection they hold), queries go through the gate (query-gate.ts).
 */
function preparing (sql: postgres.Sql, gate?: QueryGate): postgres.Sql {
  return new Proxy(sql, {
    get (target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, args?: unknown[], options?: object) => {
          const pending = target.unsafe(query, args as never, { ...options, prepare: true })
          return gate ? gate.wrap(pending) : pending
        }
      }
      // Transactions and savepoints run their queries on a handle of their own: wrap that one too.
      if (property === 'begin' || property === 'savepoint') {
        return (...args: unknown[]) => {
          const callback = args.pop() as (tx: postgres.Sql) => unknown
          const original = Reflect.get(target, property, receiver) as (...a: unknown[]) => unknown
          return original.call(target, ...args, (tx: postgres.Sql) => callback(preparing(tx)))
        }
      }
      return Reflect.get(target, property, receiver)
    },
  })
}

export async function openDatabase (options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.DATABASE_URL) {
    const poolSize = options.poolSize ?? 10
    const client = postgres(options.DATABASE_URL, {
      max: poolSize,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 60,
    })
    const db = drizzlePostgres({ client: preparing(client, new QueryGate(poolSize)), schema }) as unknown as Database
    return {
      db,
      kind: 'postgres',
      ping: async () => { await client`select 1` },
      close: once(() => client.end({ timeout: 5 })),
    }
  }
  const inMemory = options.DATA_DIR.startsWith('memory://')
  const unlock = inMemory ? () => {} : lockDataDir(options.DATA_DIR)
  try {
    // Loaded only for the embedded database: PGlite alone adds ~40 MB to every process's memory, which
    // API and checker processes on PostgreSQL never use.
    const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')])
    const client = await PGlite.create(inMemory ? 'memory://' : options.DATA_DIR)
    const db = drizzlePglite({ client, schema }) as unknown as Database
    return {
      db,
      kind: 'pglite',
      ping: async () => { await db.execute(sql`select 1`) },
      close: once(async () => {
        try { await client.close() } finally { unlock() }
      }),
    }
  } catch (err) {
    unlock()
    throw err
  }
}
