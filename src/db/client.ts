// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
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

export async function openDatabase (options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.DATABASE_URL) {
    const client = postgres(options.DATABASE_URL, {
      max: options.poolSize ?? 10,
      onnotice: () => {},
      connect_timeout: 5,
      idle_timeout: 60,
    })
    const db = drizzlePostgres({ client, schema }) as unknown as Database
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
