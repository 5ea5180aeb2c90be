// The checker loop: claim due monitors in batches, probe them concurrently, record each result.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../runtime/clock.ts'
import type { Database } from '../db/client.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { claimDueMonitors, nextDueAt, releaseMonitors, type ClaimedMonitor } from '../repositories/scheduling.ts'
import { recordCheck } from './record-check.ts'
import type { Prober } from './probe.ts'

export interface CheckerOptions {
  db: Database
  prober: Prober
  clock: Clock
  log: FastifyBaseLogger
  /** Probes in flight at once. */
  concurrency: number
  confirmDelayMs: number
  /** Longest sleep of an idle loop: new monitors are noticed within it. */
  pollMs?: number
  /** How long stop() lets in-flight probes finish (and be recorded) before abandoning them. */
  stopGraceMs?: number
  /** How long stop() keeps trying to give back the leases of abandoned checks while the database is away. */
  releaseWaitMs?: number
  /** Called with each recorded check's lateness (probe start minus due time), for measurements. */
  onCheck?: (monitor: ClaimedMonitor, latenessMs: number) => void
}

// A lease outlives the longest possible probe (60 s) with room to record: a crashed worker's monitors
// are claimed again by another worker after it expires.
const LEASE_MS = 90_000
// While stopping, a write the database refused is tried again this often (it may have just come back).
const STOPPING_RETRY_MS = 250

export class Checker {
  private readonly inFlight = new Map<string, { monitor: ClaimedMonitor, abort: AbortController, done: Promise<void> }>()
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** Aborted when stop() begins: recordings waiting to retry try again at once, and then more often. */
  private readonly stopping = new AbortController()

  constructor (private readonly options: CheckerOptions) {}

  start (): void {
    if (this.running) return
    this.running = true
    this.loop = this.run()
  }

  /** Claims what is due now (up to the free concurrency), starts the probes and returns how many. */
  async tick (): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size
    if (free <= 0) return 0
    const claimed = await claimDueMonitors(this.options.db, this.options.clock(), free, LEASE_MS)
    for (const monitor of claimed) this.launch(monitor)
    return claimed.length
  }

  /** Claims, probes and records everything due now; resolves when all of it is recorded (for tests). */
  async runOnce (): Promise<number> {
    const count = await this.tick()
    await Promise.all([...this.inFlight.values()].map((probe) => probe.done))
    return count
  }

  private launch (monitor: ClaimedMonitor): void {
    const abort = new AbortController()
    const done = (async () => {
      const startedAt = this.options.clock()
      const result = await this.options.prober.probe({
        url: monitor.url, method: monitor.method, expectedStatus: monitor.expectedStatus, timeoutSeconds: monitor.timeoutSeconds,
      }, abort.signal)
      if (abort.signal.aborted) return
      for (let attempt = 0; ; attempt++) {
        try {
          await recordCheck(this.options.db, monitor.id, { ...result, checkedAt: startedAt }, this.options.confirmDelayMs)
        } catch (err) {
          // The database is away: keep the result and try again while the lease holds (an outage does not
          // cost the check). Otherwise the lease expires and the monitor is checked again.
          const delayMs = this.stopping.signal.aborted ? STOPPING_RETRY_MS : Math.min(5000, 500 * 2 ** attempt)
          if (!isDatabaseUnavailable(err) || this.options.clock().getTime() + delayMs >= monitor.leaseUntil.getTime()) {
            this.options.log.error({ err, monitorId: monitor.id }, 'could not record a check')
            return
          }
          if (attempt === 0) this.options.log.warn({ err, monitorId: monitor.id }, 'checker: database unavailable, will retry recording a check')
          // Abandoned by stop(): it gives the lease back instead.
          if (!await this.retryPause(delayMs, abort.signal)) return
          continue
        }
        this.options.onCheck?.(monitor, startedAt.getTime() - monitor.dueAt.getTime())
        return
      }
    })().finally(() => {
      this.inFlight.delete(monitor.id)
      this.wake?.()
    })
    this.inFlight.set(monitor.id, { monitor, abort, done })
  }

  private async run (): Promise<void> {
    const pollMs = this.options.pollMs ?? 1000
    while (this.running) {
      let sleepMs = pollMs
      try {
        const claimed = await this.tick()
        if (claimed > 0 && this.inFlight.size < this.options.concurrency) continue
        if (this.inFlight.size < this.options.concurrency) {
          const next = await nextDueAt(this.options.db)
          if (next) sleepMs = Math.max(0, Math.min(pollMs, next.getTime() - this.options.clock().getTime()))
        }
      } catch (err) {
        // A database outage must not kill the checker: log, wait, try again.
        if (isDatabaseUnavailable(err)) this.options.log.warn({ err }, 'checker: database unavailable')
        else this.options.log.error({ err }, 'checker: claiming failed')
        sleepMs = pollMs * 2
      }
      if (!this.running) break
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs)
        // A finished probe frees a slot: claim again at once when the checker is saturated.
        this.wake = () => { clearTimeout(timer); resolve() }
      })
      this.wake = undefined
    }
  }

  /**
   * Stops claiming, lets in-flight probes finish and be recorded for a few seconds, then abandons the rest
   * and gives their leases back, so that no claimed monitor waits for its lease to expire: every check
   * claimed is recorded or released, unless the database stays away throughout.
   */
  async stop (): Promise<void> {
    this.running = false
    this.stopping.abort()
    this.wake?.()
    await this.loop
    const grace = this.options.stopGraceMs ?? 3000
    const pending = [...this.inFlight.values()]
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all(pending.map((p) => p.done)),
      new Promise((resolve) => { timer = setTimeout(resolve, grace) }),
    ])
    clearTimeout(timer)
    const abandoned = [...this.inFlight.values()]
    for (const probe of abandoned) probe.abort.abort()
    await Promise.all(abandoned.map((p) => p.done))
    await this.release(abandoned.map((p) => p.monitor))
    await this.options.prober.close()
  }

  /** Gives the leases back, trying again for a while when the database is away (it may be back in a moment). */
  private async release (monitors: ClaimedMonitor[]): Promise<void> {
    if (monitors.length === 0) return
    const giveUpAt = Date.now() + (this.options.releaseWaitMs ?? 2000)
    for (;;) {
      try {
        await releaseMonitors(this.options.db, monitors, this.options.clock())
        return
      } catch (err) {
        if (!isDatabaseUnavailable(err) || Date.now() + STOPPING_RETRY_MS > giveUpAt) {
          this.options.log.warn({ err, monitors: monitors.length }, 'checker: could not release abandoned monitors; their leases will expire')
          return
        }
        await pause(STOPPING_RETRY_MS)
      }
    }
  }

  /**
   * Waits `ms` before a recording is tried again; a stop cuts the wait short. False when the check was
   * abandoned meanwhile.
   */
  private async retryPause (ms: number, abandoned: AbortSignal): Promise<boolean> {
    await pause(ms, this.stopping.signal.aborted ? abandoned : AbortSignal.any([abandoned, this.stopping.signal]))
    return !abandoned.aborted
  }
}

/** Waits `ms`, or less when the signal aborts first. */
function pause (ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
