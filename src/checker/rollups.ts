// The uptime rollups' job, in every checker process: builds the hours (and then the days) that are due,
// one bucket per transaction and one process at a time, and deletes rows past their retention.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../runtime/clock.ts'
import type { Database } from '../db/client.ts'
import { buildNextRollup, pruneRollups } from '../repositories/rollups.ts'

const EVERY_MS = 60_000
/** Buckets built per run at most: a long catch-up (a first start over old checks) spreads over several runs. */
const MAX_PER_RUN = 200

/** Builds every bucket that is due (at most MAX_PER_RUN) and prunes old rows; returns how many buckets were built. */
export async function runRollups (db: Database, clock: Clock): Promise<number> {
  let built = 0
  while (built < MAX_PER_RUN && await buildNextRollup(db, clock()) === 'built') {
    built++
    // Let other queries through between buckets (PGlite runs one statement at a time).
    await new Promise((resolve) => setImmediate(resolve))
  }
  await pruneRollups(db, clock())
  return built
}

/** Runs runRollups soon and then every minute until the returned stop function is called. */
export function startRollups (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  let current: Promise<unknown> = Promise.resolve()
  let running = false
  const run = () => {
    if (running) return
    running = true
    current = runRollups(options.db, options.clock)
      .then((built) => { if (built > 0) options.log.debug({ built }, 'rollups: buckets built') })
      .catch((err) => options.log.warn({ err }, 'rollups: failed, will retry'))
      .finally(() => { running = false })
  }
  const first = setTimeout(run, 5_000)
  const timer = setInterval(run, EVERY_MS)
  return async () => {
    clearTimeout(first)
    clearInterval(timer)
    await current
  }
}
