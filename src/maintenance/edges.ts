// The clock of maintenance windows: every second, the windows whose occurrence began or ended are acted on, so an
// edge takes effect within a second of its time, on whichever checker process gets there first.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import type { Clock } from '../runtime/clock.ts'
import { actOnDueEdges } from './service.ts'

const EVERY_MS = 1000

/** Acts on due window edges every second until the returned stop function is called. */
export function startMaintenanceEdges (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  let current: Promise<unknown> = Promise.resolve()
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    current = actOnDueEdges(options.db, options.clock())
      .then((acted) => { if (acted > 0) options.log.info({ windows: acted }, 'maintenance windows began or ended') })
      .catch((err) => options.log.warn({ err }, 'maintenance windows: failed, will retry'))
      .finally(() => { running = false })
  }, EVERY_MS)
  return async () => {
    clearInterval(timer)
    await current
  }
}
