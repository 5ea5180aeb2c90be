// The checker process without the API, for scaling out on PostgreSQL: `npm run worker`.
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { logSerializers } from './runtime/log-redaction.ts'
import { loadConfig } from './runtime/config.ts'
import { runMain } from './runtime/run-main.ts'
import { openMigratedDatabase } from './db/migrate.ts'
import { TIGHTENED_MESSAGE } from './db/data-dir-modes.ts'
import { jobsPoolSize, startJobs } from './jobs.ts'
import { createMetrics } from './runtime/metrics.ts'
import { serveMetrics, type MetricsServer } from './runtime/metrics-server.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  const log = pino({ level: config.LOG_LEVEL, base: { role: 'worker', pid: process.pid }, serializers: logSerializers })
  const database = await openMigratedDatabase({ ...config, poolSize: jobsPoolSize(config.CHECK_CONCURRENCY) })
  if (database.tightened) log.warn(database.tightened, TIGHTENED_MESSAGE)
  // The handler goes first, so that an early signal closes the database instead of killing the process.
  const running: { jobs?: ReturnType<typeof startJobs>, metrics?: MetricsServer } = {}
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error')
    else log.info({ signal }, 'stopping')
    await Promise.all([running.jobs?.stop(), running.metrics?.close()])
    await database.close()
  })
  // Its own metrics only with METRICS_PORT; the status counts are the database's, served by the API process.
  const metrics = config.METRICS_PORT === undefined ? undefined : await createMetrics({ pool: () => database.poolUse() })
  // Listening first: a port in use stops the worker before it claims anything.
  if (metrics) {
    running.metrics = await serveMetrics(metrics, {
      host: config.HOST, port: config.METRICS_PORT!, token: config.METRICS_TOKEN!, onError: (err) => log.error({ err }, 'metrics: scrape failed'),
    })
    log.info({ port: running.metrics.port }, 'metrics served at /metrics')
  }
  running.jobs = startJobs({ config, db: database.db, log, metrics })
}

runMain('pingward worker', main)
