// The database plugin: opens (or borrows) the database, applies migrations, closes it with the app.
import fp from 'fastify-plugin'
import type { Database, DatabaseHandle } from '../db/client.ts'
import { openMigratedDatabase } from '../db/migrate.ts'
import type { Clock } from '../runtime/clock.ts'

declare module 'fastify' {
  interface FastifyInstance {
    db: Database
    database: DatabaseHandle
    clock: Clock
  }
}

interface DbPluginOptions {
  DATABASE_URL?: string
  DATA_DIR: string
  clock: Clock
  /** An open database to use instead of opening one; the caller keeps ownership and closes it. */
  database?: DatabaseHandle
}

export default fp<DbPluginOptions>(async (app, options) => {
  const database = options.database ?? await openMigratedDatabase(options)
  if (!options.database) app.addHook('onClose', () => database.close())
  app.decorate('database', database)
  app.decorate('db', database.db)
  app.decorate('clock', options.clock)
}, { name: 'db', fastify: '5.x' })
