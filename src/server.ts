// The API process: load config, open and migrate the database, build the app, listen, stop gracefully.
import type { AddressInfo } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { bootstrapFirstUser, firstKeyBanner } from './bootstrap.ts'
import { loadConfig } from './config.ts'
import { DataDirLockedError } from './db/data-dir-lock.ts'
import { startChecker } from './checker/index.ts'

async function main (): Promise<void> {
  const config = loadConfig()
  const app = await buildApp({ config })

  const checker = config.CHECKER === 'on' ? startChecker({ config, db: app.db, log: app.log }) : undefined

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'stopping after an error')
    else app.log.info({ signal }, 'stopping')
    // The checker stops first so that it can record what it finished while the database is still open.
    await checker?.stop()
    await app.close()
  })

  await app.listen({ port: config.PORT, host: config.HOST })
  // After listen: the banner shows the real port (PORT=0 picks a free one), and a failed listen
  // does not use up the one-time key before anyone could see it work.
  const key = await bootstrapFirstUser(app.db, config.ADMIN_EMAIL)
  const { port } = app.server.address() as AddressInfo
  const baseUrl = `http://${config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST}:${port}`
  if (key) process.stdout.write(firstKeyBanner(config.ADMIN_EMAIL, key, baseUrl))
}

main().catch((err: unknown) => {
  const known = err instanceof DataDirLockedError || (err instanceof Error && err.message.startsWith('Invalid configuration'))
  process.stderr.write(`pingward: ${known ? (err as Error).message : (err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
