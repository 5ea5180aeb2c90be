// The clock of maintenance windows: every second, the windows whose occurrence began or ended are acted on, so an
// edge takes effect within a second of its time, on whichever checker process gets there first.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import { actOnDueEdges } from './service.ts'

/** Acts on due window edges every second until the returned stop function is called. */
export function startMaintenanceEdges (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  return startPeriodic({
    everyMs: 1000,
    what: 'maintenance windows',
    log: options.log,
    task: async () => {
      const acted = await actOnDueEdges(options.db, options.clock())
      if (acted > 0) options.log.info({ windows: acted }, 'maintenance windows began or ended')
    },
  })
}
