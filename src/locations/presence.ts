// A checker process's built-in location (CHECKER_LOCATION): made or told alive at start, then every 15 seconds, with
// the version this process runs, so that GET /locations shows it online. One statement each time.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { LOCATION_TIMING } from '../domain/locations.ts'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import { PINGWARD_VERSION } from '../runtime/version.ts'
import { upsertBuiltin } from './repository.ts'

/** Keeps the built-in location `code` alive until the returned stop function is called. */
export function startLocationPresence (options: { db: Database, clock: Clock, log: FastifyBaseLogger, code: string }): () => Promise<void> {
  const { db, clock, code } = options
  return startPeriodic({
    everyMs: LOCATION_TIMING.builtinRefreshMs,
    firstAfterMs: 0,
    what: `location ${code}`,
    log: options.log,
    task: async () => upsertBuiltin(db, code, { at: clock(), version: PINGWARD_VERSION }),
  })
}
