// The uptime rollups' job, in every checker process: builds the hours (and then the days) that are due,
// one bucket per transaction and one process at a time, and deletes rows past their retention.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../runtime/clock.ts'
import type { Database } from '../db/client.ts'
import { buildNextRollup, pruneRollups, vacuumRollups } from '../repositories/rollups.ts'
import { pause } from '../runtime/pause.ts'
import { startPeriodic } from '../runtime/periodic.ts'

const EVERY_MS = 60_000
/** Buckets built per run at most: a long catch-up (a first start over old checks) spreads over several runs. */
const MAX_PER_RUN = 200

// After each bucket the job rests as long as the bucket took: a catch-up over many buckets then takes at most half
// of one connection's time and does not make the checker late.
const REST_RATIO = 1

export interface RollupRunOptions {
  /** Rest after each bucket, as a multiple of its build time (0, the default: none). */
  restRatio?: number
  /** Ends the run at its next rest (the process is stopping); what is built stays built. */
  signal?: AbortSignal
}

/** Builds every due bucket (at most MAX_PER_RUN), prunes old rows and vacuums after building a day; returns how many were built. */
export async function runRollups (db: Database, clock: Clock, options: RollupRunOptions = {}): Promise<number> {
  const { restRatio = 0, signal } = options
  let [built, days] = [0, 0]
  while (built < MAX_PER_RUN && !signal?.aborted) {
    const started = performance.now()
    const result = await buildNextRollup(db, clock())
    if (result === 'idle' || result === 'busy') break
    built++
    if (result === 'day') days++
    // Let other queries through between buckets (PGlite runs one statement at a time), for a while in a catch-up.
    await pause((performance.now() - started) * restRatio, signal)
  }
  if (!signal?.aborted) await pruneRollups(db, clock())
  if (days > 0 && !signal?.aborted) await vacuumRollups(db)
  return built
}

/** Runs runRollups soon and then every minute until the returned stop function is called. */
export function startRollups (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  return startPeriodic({
    everyMs: EVERY_MS,
    firstAfterMs: 5_000,
    what: 'rollups',
    log: options.log,
    task: async (signal) => {
      const built = await runRollups(options.db, options.clock, { restRatio: REST_RATIO, signal })
      if (built > 0) options.log.debug({ built }, 'rollups: buckets built')
    },
  })
}
