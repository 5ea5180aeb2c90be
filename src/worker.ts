// The checker process without the API, for scaling out on PostgreSQL: `npm run worker`.
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { loadConfig } from './config.ts'
import { openDatabase } from './db/client.ts'
import { DataDirLockedError } from './db/data-dir-lock.ts'
import { migrate } from './db/migrate.ts'
import { startChecker } from './checker/index.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  const log = pino({ level: config.LOG_LEVEL, base: { role: 'worker', pid: process.pid } })
  const database = await openDatabase({ ...config, poolSize: Math.min(20, Math.max(4, Math.ceil(config.CHECK_CONCURRENCY / 10))) })
  await migrate(database, config.DATABASE_URL)
  const checker = startChecker({ config, db: database.db, log })
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error')
    else log.info({ signal }, 'stopping')
    await checker.stop()
    await database.close()
  })
}

main().catch((err: unknown) => {
  const known = err instanceof DataDirLockedError || (err instanceof Error && err.message.startsWith('Invalid configuration'))
  process.stderr.write(`pingward worker: ${known ? (err as Error).message : (err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
