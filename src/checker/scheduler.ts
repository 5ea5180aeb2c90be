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
  /** How long stop() lets in-flight probes finish before abandoning them. */
  stopGraceMs?: number
  /** Called with each recorded check's lateness (probe start minus due time), for measurements. */
  onCheck?: (monitor: ClaimedMonitor, latenessMs: number) => void
}

// A lease outlives the longest possible probe (60 s) with room to record: a crashed worker's monitors
// are claimed again by another worker after it expires.
const LEASE_MS = 90_000

export class Checker {
  private readonly inFlight = new Map<string, { monitor: ClaimedMonitor, abort: AbortController, done: Promise<void> }>()
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined

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
          const delayMs = Math.min(5000, 500 * 2 ** attempt)
          if (!isDatabaseUnavailable(err) || this.options.clock().getTime() + delayMs >= monitor.leaseUntil.getTime()) {
            this.options.log.error({ err, monitorId: monitor.id }, 'could not record a check')
            return
          }
          if (attempt === 0) this.options.log.warn({ err, monitorId: monitor.id }, 'checker: database unavailable, will retry recording a check')
          if (!await sleepUnlessAborted(delayMs, abort.signal)) return
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

  /** Stops claiming, lets in-flight probes finish for a few seconds, abandons and releases the rest. */
  async stop (): Promise<void> {
    this.running = false
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
    try {
      await releaseMonitors(this.options.db, abandoned.map((p) => p.monitor), this.options.clock())
    } catch (err) {
      this.options.log.warn({ err }, 'checker: could not release abandoned monitors; their leases will expire')
    }
    await this.options.prober.close()
  }
}

/** Waits `ms`; false when the signal aborted first (the checker is stopping). */
function sleepUnlessAborted (ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(true) }, ms)
    const onAbort = () => { clearTimeout(timer); resolve(false) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
