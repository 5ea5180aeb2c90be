// The API process: load config, open and migrate the database, build the app, listen, stop gracefully.
import type { AddressInfo } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './http/app.ts'
import { bootstrapFirstUser, firstKeyBanner, passwordSetupUrl, setupBanner } from './services/first-user.ts'
import { loadConfig } from './runtime/config.ts'
import { runMain } from './runtime/run-main.ts'
import { openMigratedDatabase } from './db/migrate.ts'
import { startChecker } from './checker/index.ts'
import { batchedLogStream } from './http/log-stream.ts'
import { startAdminSocket } from './cli/admin-socket.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  // Opened here, not by the app, so that it outlives both the app and the checker at shutdown.
  const database = await openMigratedDatabase(config)
  const logs = batchedLogStream()
  const app = await buildApp({ config, database, logger: { level: config.LOG_LEVEL, stream: logs.stream } })
  // The CLI's way in while this process holds the embedded database (src/cli/admin-socket.ts).
  const admin = database.kind === 'pglite' && !config.DATA_DIR.startsWith('memory://')
    ? await startAdminSocket({ dataDir: config.DATA_DIR, db: app.db, log: app.log })
    : undefined

  let checker: ReturnType<typeof startChecker> | undefined
  let stopping = false
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    stopping = true
    if (err) app.log.error({ err }, 'stopping after an error')
    else app.log.info({ signal }, 'stopping')
    // New requests get 503 at once while in-flight ones and the checker's last probes finish; the
    // database closes after both, so that everything they write gets written.
    await Promise.all([admin?.close(), checker?.stop(), app.close()])
    await database.close()
  })

  await app.listen({ port: config.PORT, host: config.HOST })
  // Read at once: a signal during the awaits below closes the server, and its address with it.
  const { port } = app.server.address() as AddressInfo
  // The checker after listen, in the same turn: on a restart its first claims (every monitor that came due while
  // the server was down) and their PGlite queries shared the event loop with Fastify's ready(), ~1 s later to listen.
  if (config.CHECKER === 'on' && !stopping) checker = startChecker({ config, db: app.db, log: app.log, metrics: app.metrics })
  // After listen: the banner shows the real port (PORT=0 picks a free one), and a failed listen
  // does not use up the one-time key before anyone could see it work.
  const key = await bootstrapFirstUser(app.db, config.ADMIN_EMAIL)
  const baseUrl = `http://${config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST}:${port}`
  const setupUrl = await passwordSetupUrl(app.db, config.ADMIN_EMAIL, baseUrl)
  // The banner follows the log lines before it ("Server listening ..."), which may still be in the batch.
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  if (key) process.stdout.write(firstKeyBanner(config.ADMIN_EMAIL, key, baseUrl, setupUrl))
  else if (setupUrl) process.stdout.write(setupBanner(config.ADMIN_EMAIL, setupUrl))
}

runMain('pingward', main)
