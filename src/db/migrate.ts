// Applies the drizzle-kit migrations in drizzle/, once even when several processes start together.
import { fileURLToPath } from 'node:url'
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from './client.ts'

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))
const MIGRATION_LOCK = 720_011_001

export async function migrate (handle: DatabaseHandle, databaseUrl?: string): Promise<void> {
  // Each database's migrator and driver loaded only for it (as in client.ts).
  if (handle.kind === 'pglite') {
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator')
    await migratePglite(handle.db as never, { migrationsFolder })
    return
  }
  // drizzle's migrator does not lock: an advisory lock on a connection of its own makes concurrent starts wait.
  const [{ default: postgres }, { migrate: migratePostgres }] = await Promise.all([import('postgres'), import('drizzle-orm/postgres-js/migrator')])
  const lock = postgres(databaseUrl!, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK})`
    await migratePostgres(handle.db as never, { migrationsFolder })
  } finally {
    await lock.end({ timeout: 5 })
  }
}

/** Opens the configured database and brings its schema up to date: what every process does first. */
export async function openMigratedDatabase (options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = await openDatabase(options)
  try {
    await migrate(handle, options.DATABASE_URL)
  } catch (err) {
    await handle.close()
    throw err
  }
  return handle
}
