// Whether PostgreSQL answers, as a small circuit breaker: while it is known to be down, queries fail at once.
import { DatabaseUnavailableError, isDatabaseUnavailable, refusalCode } from './unavailable.ts'

/** Called when the database goes down (with the error that showed it) and when it answers again. */
export type AvailabilityListener = (available: boolean, err?: unknown) => void

interface HealthOptions {
  /** Pause before the first probe after a failure. */
  firstProbeMs?: number
  probeEveryMs?: number
  /** A probe not answered within this long failed (a connection that hangs instead of failing). */
  probeTimeoutMs?: number
}

/**
 * While down, queries are refused at once and one query probes until it answers. The first probe waits: a query
 * written into a connection's unread close can leave postgres.js 3.4.9 unable to send on it.
 */
export class DatabaseHealth {
  private down = false
  private closed = false
  private probing = false
  private timer: NodeJS.Timeout | undefined
  private readonly listeners = new Set<AvailabilityListener>()
  private readonly firstProbeMs: number
  private readonly probeEveryMs: number
  private readonly probeTimeoutMs: number

  private readonly probe: () => Promise<unknown>

  constructor (probe: () => Promise<unknown>, options: HealthOptions = {}) {
    this.probe = probe
    this.firstProbeMs = options.firstProbeMs ?? 100
    this.probeEveryMs = options.probeEveryMs ?? 500
    this.probeTimeoutMs = options.probeTimeoutMs ?? 2000
  }

  get isDown (): boolean {
    return this.down
  }

  assertUp (): void {
    if (this.down) throw new DatabaseUnavailableError('DATABASE_DOWN', 'The database is down: refused without asking it')
  }

  /** Hears of a failed query: one that failed for want of the database marks it down and starts probing. */
  observe (err: unknown): void {
    // Our own refusals say nothing new about the database.
    if (this.closed || !isDatabaseUnavailable(err) || refusalCode(err)) return
    if (this.down) return
    this.down = true
    this.emit(false, err)
    this.probeIn(this.firstProbeMs)
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  watch (listener: AvailabilityListener): () => void {
    this.listeners.add(listener)
    return () => { this.listeners.delete(listener) }
  }

  /** Stops probing (the pool is closing); queries are no longer refused here. */
  close (): void {
    this.closed = true
    this.down = false
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private probeIn (ms: number): void {
    if (this.probing || this.timer || this.closed) return
    // unref: a process whose work is done does not stay alive to probe.
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.runProbe().catch(() => {})
    }, ms).unref()
  }

  private async runProbe (): Promise<void> {
    this.probing = true
    let timeout: NodeJS.Timeout | undefined
    try {
      const probe = this.probe()
      probe.catch(() => {}) // when it settles after the timeout, nobody is listening any more
      await Promise.race([probe, new Promise((_resolve, reject) => {
        timeout = setTimeout(() => reject(new Error('probe timed out')), this.probeTimeoutMs).unref()
      })])
      if (this.down && !this.closed) {
        this.down = false
        this.emit(true)
      }
    } catch {
      // Still down: the next probe follows.
    } finally {
      clearTimeout(timeout)
      this.probing = false
    }
    if (this.down) this.probeIn(this.probeEveryMs)
  }

  private emit (available: boolean, err?: unknown): void {
    for (const listener of this.listeners) listener(available, err)
  }
}
