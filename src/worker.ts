// The checker process without the API, for scaling out on PostgreSQL: `npm run worker`.
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { logSerializers } from './runtime/log-redaction.ts'
import { loadConfig } from './runtime/config.ts'
import { runMain } from './runtime/run-main.ts'
import { openMigratedDatabase } from './db/migrate.ts'
import { startChecker } from './checker/index.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  const log = pino({ level: config.LOG_LEVEL, base: { role: 'worker', pid: process.pid }, serializers: logSerializers })
  const database = await openMigratedDatabase({ ...config, poolSize: Math.min(20, Math.max(4, Math.ceil(config.CHECK_CONCURRENCY / 10))) })
  // The handler before the checker: a signal that arrives the moment "checker started" is logged must
  // find it, not Node's default action (death without closing the database).
  const running: { checker?: ReturnType<typeof startChecker> } = {}
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error')
    else log.info({ signal }, 'stopping')
    await running.checker?.stop()
    await database.close()
  })
  running.checker = startChecker({ config, db: database.db, log })
}

runMain('pingward worker', main)
