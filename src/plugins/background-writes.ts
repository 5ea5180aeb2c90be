// Writes a request starts but does not wait for (a key's last use, a session's last visit): tracked, so
// that shutdown lets them finish before the database closes, and tests wait for them instead of for time.
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    backgroundWrites: BackgroundWrites
  }
}

interface BackgroundWrites {
  /** Lets `write` run on without the caller: a failure is logged at warn ("could not <what>"), never rejected. */
  track: (write: Promise<unknown>, what: string, log?: FastifyBaseLogger) => void
  /** Resolves once every write tracked until now has finished, whether it succeeded or not. */
  settled: () => Promise<void>
}

export default fp(async (app) => {
  const pending = new Set<Promise<void>>()

  const backgroundWrites: BackgroundWrites = {
    track (write, what, log = app.log) {
      const tracked: Promise<void> = write.then(() => {}, (err) => { log.warn({ err }, `could not ${what}`) })
        .finally(() => { pending.delete(tracked) })
      pending.add(tracked)
    },
    async settled () {
      await Promise.all(pending)
    },
  }
  app.decorate('backgroundWrites', backgroundWrites)
  // onClose hooks run in reverse order of registration: these writes finish before the database closes.
  app.addHook('onClose', () => backgroundWrites.settled())
}, { name: 'background-writes', fastify: '5.x', dependencies: ['db'] })
