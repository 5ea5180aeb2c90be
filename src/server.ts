// The API process: load config, open and migrate the database, build the app, listen, stop gracefully.
import type { AddressInfo } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { bootstrapFirstUser, firstKeyBanner, passwordSetupUrl, setupBanner } from './services/first-user.ts'
import { loadConfig } from './runtime/config.ts'
import { runMain } from './runtime/run-main.ts'
import { openMigratedDatabase } from './db/migrate.ts'
import type { Database } from './db/client.ts'
import { TIGHTENED_MESSAGE } from './db/data-dir-modes.ts'
import { jobsPoolSize, startJobs } from './jobs.ts'
import { startJobsThread } from './runtime/jobs-thread.ts'
import { batchedLogStream, type LogStream } from './http/log-stream.ts'
import { startAdminSocket } from './cli/admin-socket.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  // Opened here, not by the app, so that it outlives both the app and the checker at shutdown.
  const database = await openMigratedDatabase(config)
  const logs = batchedLogStream()
  const app = await buildApp({ config, database, logger: { level: config.LOG_LEVEL, stream: logs.stream } })
  if (database.tightened) app.log.warn(database.tightened, TIGHTENED_MESSAGE)
  // The CLI's way in while this process holds the embedded database.
  const admin = database.kind === 'pglite' && !config.DATA_DIR.startsWith('memory://')
    ? await startAdminSocket({ dataDir: config.DATA_DIR, db: app.db, log: app.log })
    : undefined

  let jobs: { stop: () => Promise<void> } | undefined
  const started: { firstUser?: Promise<void> } = {}
  let stopping = false
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    stopping = true
    if (err) app.log.error({ err }, 'stopping after an error')
    else app.log.info({ signal }, 'stopping')
    // The database closes after requests in flight, the checker's last probes and the first start's writes, so that
    // all of them get written. A failure of the first start is main()'s to report, not the stop's.
    await Promise.all([admin?.close(), jobs?.stop(), app.close(), started.firstUser?.catch(() => {})])
    await database.close()
  })

  try {
    await app.listen({ port: config.PORT, host: config.HOST })
  } catch (err) {
    // A stop that began while the app was getting ready closes it: that listen was never going to serve.
    if (stopping) return
    throw err
  }
  // Checked in the same turn as the assignments below: a stop either finds them or they never happen.
  if (stopping) return
  const { port } = app.server.address() as AddressInfo
  // The jobs start after listen: its first claims after a restart would otherwise hold up Fastify's ready(). On
  // PostgreSQL they run on a thread of their own; the embedded database has one connection, this thread's.
  if (config.CHECKER === 'on') {
    jobs = database.kind === 'postgres'
      ? startJobsThread({ log: app.log, metrics: app.metrics, poolSize: jobsPoolSize(config.CHECK_CONCURRENCY) })
      : startJobs({ config, db: app.db, log: app.log, metrics: app.metrics })
  }
  // After listen: the banner shows the real port, and a failed listen does not use up the one-time key.
  started.firstUser = announceFirstUser(app.db, config.ADMIN_EMAIL, baseUrlOf(config.HOST, port), logs)
  await started.firstUser
}

const baseUrlOf = (host: string, port: number) => `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`

/** Creates the first user and its key on an empty database, issues a setup link while it has no password, prints them. */
async function announceFirstUser (db: Database, email: string, baseUrl: string, logs: LogStream): Promise<void> {
  const key = await bootstrapFirstUser(db, email)
  const setupUrl = await passwordSetupUrl(db, email, baseUrl)
  // The banner follows the log lines before it ("Server listening ..."), which may still be in the batch.
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  if (key) process.stdout.write(firstKeyBanner(email, key, baseUrl, setupUrl))
  else if (setupUrl) process.stdout.write(setupBanner(email, setupUrl))
}

runMain('pingward', main)
