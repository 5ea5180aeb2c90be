// A background job of a checker process (src/jobs.ts): a task run on an interval, one run at a time, its failures
// logged and retried at the next tick; stopping aborts the run under way at its next check and waits for it.
import type { FastifyBaseLogger } from 'fastify'

export interface PeriodicTask {
  everyMs: number
  /** The first run, sooner than a whole interval after the start (the job's catch-up); none: after `everyMs`. */
  firstAfterMs?: number
  /** Names the job in the log: `<what>: failed, will retry`. */
  what: string
  log: FastifyBaseLogger
  task: (signal: AbortSignal) => Promise<unknown>
}

/** Starts the task; the returned function stops it and resolves once the run under way has ended. */
export function startPeriodic (options: PeriodicTask): () => Promise<void> {
  const stopping = new AbortController()
  let current: Promise<unknown> = Promise.resolve()
  let running = false
  const run = () => {
    if (running) return
    running = true
    current = options.task(stopping.signal)
      .catch((err) => options.log.warn({ err }, `${options.what}: failed, will retry`))
      .finally(() => { running = false })
  }
  const first = options.firstAfterMs === undefined ? undefined : setTimeout(run, options.firstAfterMs)
  const timer = setInterval(run, options.everyMs)
  return async () => {
    clearTimeout(first)
    clearInterval(timer)
    stopping.abort()
    await current
  }
}
