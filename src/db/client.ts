// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import * as schema from './schema.ts'
import { lockDataDir } from './data-dir-lock.ts'

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>

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

/** Makes close() safe to call more than once (the app, a test and a signal handler may all call it). */
function once (close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => (closing ??= close())
}

/**
 * drizzle sends its queries unprepared, and postgres.js then asks the server for the parameter types
 * before every execution: two round trips per query. Through this wrapper each distinct statement is
 * prepared once per connection and then executed in one round trip (bench/ measured 2-3x fewer
 * database round trips per API request). drizzle's statements are a fixed set of texts, all values
 * are parameters, so the per-connection statement cache stays small.
 */
function preparing (sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get (target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, args?: unknown[], options?: object) => target.unsafe(query, args as never, { ...options, prepare: true })
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

/**
 * postgres.js (3.4.9) pipelines a query onto a busy connection when none is idle, and keeps busy
 * connections in a queue that only shrinks when it empties: under sustained load it grows with every
 * query, and each query scans it (indexOf). bench/ measured that scan at a fifth of the server's CPU,
 * and growing, on GET /monitors/{id} at 50 connections. With one query in flight per connection (plus
 * the one queued behind it), queries wait in postgres.js's own queue instead, which costs nothing to
 * scan. `max_pipeline` is an option of postgres.js that its types do not declare; 0 would also stop
 * sql.begin() from reserving its connection.
 */
export const NO_PIPELINING: object = { max_pipeline: 1 }

export async function openDatabase (options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.DATABASE_URL) {
    const client = postgres(options.DATABASE_URL, {
      max: options.poolSize ?? 10,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 60,
      ...NO_PIPELINING,
    })
    const db = drizzlePostgres({ client: preparing(client), schema }) as unknown as Database
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
