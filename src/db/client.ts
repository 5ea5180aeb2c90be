// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { sql } from 'drizzle-orm'
import { PgTransaction, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { DatabaseHealth, type AvailabilityListener } from './health.ts'
import * as schema from './schema.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { tightenDataDir, type Tightened } from './data-dir-modes.ts'
import { fetchArrayTypesOnce, guardedClient } from './driver-workarounds/postgres-client.ts'
import { QueryGate } from './driver-workarounds/query-gate.ts'
import { madeAgainIfFailedUnsent } from './driver-workarounds/replayed-errors.ts'
import { DatabaseUnavailableError } from './unavailable.ts'

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>
/** Runs `work` in the caller's transaction when `db` is one, else in a new one (no savepoint in between). */
export function atomically<T> (db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  return (db as unknown) instanceof PgTransaction ? work(db) : db.transaction(work)
}

/** A database or an open transaction on it. */
export type Queryable = Pick<Database, 'select' | 'insert' | 'update'>

/** The pool's use now: its connections, those running a query or a transaction, queries waiting for one. */
export interface PoolUse { size: number, inUse: number, waiting: number }

export interface DatabaseHandle {
  db: Database
  kind: 'postgres' | 'pglite'
  /** For the metrics: postgres.js tells nothing of its connections, so this is what our gate and begin() see. */
  poolUse: () => PoolUse
  /** Throws when the database does not answer (at once while it is known to be down). */
  ping: () => Promise<void>
  /** Calls `listener` when the database goes down and answers again (never on PGlite); returns a stop function. */
  watch: (listener: AvailabilityListener) => () => void
  /**
   * Calls `onPayload` with each notification on `channel` once its transaction commits, from any connection or process;
   * `onResync` when some may have been missed (the listening connection was lost and made again). Resolves to a stop.
   */
  listen: (channel: string, onPayload: (payload: string) => void, onResync: () => void) => Promise<() => Promise<void>>
  /** What opening an embedded database's directory took away from other users, for the start's log. */
  tightened?: Tightened
  close: () => Promise<void>
}

export interface DatabaseOptions {
  DATABASE_URL?: string
  /** A directory, or `memory://` for a throw-away database (tests). */
  DATA_DIR: string
  /** An embedded database to start from instead of initdb: a tarball of PGlite's dumpDataDir (tests). */
  pgliteTarball?: Blob
  poolSize?: number
}

/** The rows of a result as drizzle answers it: an array on postgres.js, {rows} on PGlite. */
export const rowsOf = <T = Record<string, unknown>>(result: unknown): T[] =>
  Array.isArray(result) ? result as T[] : (result as { rows: T[] }).rows

/** A uuid[] parameter as one array literal: drizzle's sql`` spreads a JS array into a list of parameters. */
export const uuidArray = (ids: readonly string[]) => sql`${`{${ids.join(',')}}`}::uuid[]`

/** Makes close() safe to call more than once (the app, a test and a signal handler may all call it). */
function once (close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => (closing ??= close())
}

// Kept short: postgres.js waits ever longer between reconnects, and the health probe already paces them.
const reconnectBackoffSeconds = (retries: number) => Math.min(0.05 * 2 ** retries, 0.5)

export async function openDatabase (options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.DATABASE_URL) {
    const poolSize = options.poolSize ?? 10
    // Loaded only for PostgreSQL, as PGlite's modules only for the embedded database (below).
    const [{ default: connect }, { drizzle: drizzlePostgres }] = await Promise.all([import('postgres'), import('drizzle-orm/postgres-js')])
    const client = connect(options.DATABASE_URL, {
      max: poolSize,
      onnotice: () => {},
      // A database that takes longer to accept a connection counts as away (health.ts): the request gets 503.
      connect_timeout: 2,
      idle_timeout: 60,
      backoff: reconnectBackoffSeconds,
    })
    const health = new DatabaseHealth(() => client`select 1`)
    const gate = new QueryGate(poolSize, health)
    health.watch((available) => {
      if (!available) gate.failWaiting(new DatabaseUnavailableError('DATABASE_DOWN', 'The database went down while the query waited for a connection'))
    })
    // drizzle sets its parsers of times on the client here, before the array types below are built on them.
    const transactions = { open: 0 }
    const db = drizzlePostgres({ client: guardedClient(client, { gate, health, transactions }), schema }) as unknown as Database
    await fetchArrayTypesOnce(client)
    return {
      db,
      kind: 'postgres',
      poolUse: () => {
        // A transaction holds its connection outside the gate; beyond the pool, postgres.js queues the rest.
        const { running, waiting } = gate.use
        const busy = running + transactions.open
        return { size: poolSize, inUse: Math.min(poolSize, busy), waiting: waiting + Math.max(0, busy - poolSize) }
      },
      ping: async () => {
        health.assertUp()
        try {
          await madeAgainIfFailedUnsent(() => client`select 1`)
        } catch (err) {
          health.observe(err)
          throw err
        }
      },
      watch: (listener) => health.watch(listener),
      // postgres.js listens on a connection of its own, made again (and listening again) after it is lost.
      listen: async (channel, onPayload, onResync) => {
        let listened = false
        const { unlisten } = await client.listen(channel, onPayload, () => {
          if (listened) onResync()
          listened = true
        })
        return async () => { await unlisten() }
      },
      // Bounded: hanging connections must not hold a stop past its grace; with the database down, nothing to wait for.
      close: once(() => {
        const timeout = health.isDown ? 0 : 2
        health.close()
        return client.end({ timeout })
      }),
    }
  }
  const inMemory = options.DATA_DIR.startsWith('memory://')
  const unlock = inMemory ? () => {} : lockDataDir(options.DATA_DIR)
  // Its files are its user's alone (data-dir-modes.ts): what was there, and what PGlite's start writes.
  const tighten = () => inMemory ? undefined : tightenDataDir(options.DATA_DIR)
  try {
    const tightened = tighten()
    // Loaded only for the embedded database, so that processes on PostgreSQL do not carry PGlite's memory.
    const [{ openPglite }, { drizzle: drizzlePglite }] = await Promise.all([import('./pglite.ts'), import('drizzle-orm/pglite')])
    const client = await openPglite(inMemory ? 'memory://' : options.DATA_DIR, options.pgliteTarball)
    try {
      tighten() // initdb's files and the relation cache's, written looser than PostgreSQL's own
    } catch (err) {
      await client.close()
      throw err
    }
    const db = drizzlePglite({ client, schema }) as unknown as Database
    const inFlight = countInFlight(client)
    return {
      db,
      kind: 'pglite',
      // One connection: PGlite runs one query or transaction at a time, and queues the others itself.
      poolUse: () => ({ size: 1, inUse: Math.min(1, inFlight.count), waiting: Math.max(0, inFlight.count - 1) }),
      ping: async () => { await db.execute(sql`select 1`) },
      watch: () => () => {},
      // One process, one connection: it hears its own notifications, and loses none.
      listen: async (channel, onPayload) => {
        const unlisten = await client.listen(channel, onPayload)
        return async () => { await unlisten() }
      },
      tightened,
      close: once(async () => {
        try { await client.close() } finally { unlock() }
      }),
    }
  } catch (err) {
    unlock()
    throw err
  }
}

/** Counts the client's queries and transactions from their call to their end (drizzle calls only these two). */
function countInFlight (client: { query: (...args: any[]) => Promise<unknown>, transaction: (...args: any[]) => Promise<unknown> }): { count: number } {
  const inFlight = { count: 0 }
  for (const method of ['query', 'transaction'] as const) {
    const original = client[method].bind(client)
    client[method] = (...args: unknown[]) => {
      inFlight.count++
      return original(...args).finally(() => { inFlight.count-- })
    }
  }
  return inFlight
}
