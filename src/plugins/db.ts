// The database plugin: opens (or borrows) the database, applies migrations, logs outages, closes it with the app.
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
  // Once per outage, not per refused request (each of which is logged at debug by the error handler).
  const unwatch = database.watch((available, err) => {
    if (available) app.log.info('database available again')
    else app.log.warn({ err }, 'database unavailable: requests that need it get 503 at once until it answers again')
  })
  app.addHook('onClose', async () => unwatch())
  app.decorate('database', database)
  app.decorate('db', database.db)
  app.decorate('clock', options.clock)
}, { name: 'db', fastify: '5.x' })
