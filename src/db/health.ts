// Whether PostgreSQL answers, as a small circuit breaker: while it is known to be down, queries fail at once.
import { DatabaseUnavailableError, isDatabaseUnavailable, refusalCode } from './unavailable.ts'

/** Called when the database goes down (with the error that showed it) and when it answers again. */
export type AvailabilityListener = (available: boolean, err?: unknown) => void

interface HealthOptions {
  /** Pause before the first probe after a failure (see below). */
  firstProbeMs?: number
  /** Pause between probes while the database is down. */
  probeEveryMs?: number
  /** A probe not answered within this long failed (a connection that hangs instead of failing). */
  probeTimeoutMs?: number
}

/**
 * A query that fails for want of the database (a refused, timed-out or dropped connection, a server
 * shutting down: isDatabaseUnavailable) marks it down. While it is down, queries are refused at once
 * (`DatabaseUnavailableError`, 503 at the edge) instead of each waiting for a connection that cannot be
 * made, and one cheap query probes it, every `probeEveryMs` until one answers. So a single dropped
 * connection on a healthy server costs the requests of about `firstProbeMs`.
 *
 * The first probe waits `firstProbeMs` rather than going at once: a server that stops closes all its
 * connections within a few milliseconds, and a query written to a connection whose close postgres.js has
 * not yet read can leave that connection unable to send anything for its next few connects (3.4.9 keeps
 * a cleared write timer; see transaction-guard.ts for its other flaw). Refusing everything at once
 * while down also keeps the rest of the traffic from being written into those closes.
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

  constructor (private readonly probe: () => Promise<unknown>, options: HealthOptions = {}) {
    this.firstProbeMs = options.firstProbeMs ?? 100
    this.probeEveryMs = options.probeEveryMs ?? 500
    this.probeTimeoutMs = options.probeTimeoutMs ?? 2000
  }

  get isDown (): boolean {
    return this.down
  }

  /** Throws `DatabaseUnavailableError` while the database is known to be down. */
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
