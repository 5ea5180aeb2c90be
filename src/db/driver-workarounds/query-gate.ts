// Holds back queries beyond the pool's size, so that postgres.js never pipelines them onto busy connections (porsager/postgres#747).
import { DatabaseUnavailableError } from '../unavailable.ts'

/** What the gate asks before a query and tells after a failed one (health.ts). */
interface Admission {
  assertUp: () => void
  observe: (err: unknown) => void
}

/**
 * postgres.js 3.4.9 pipelines a query onto a busy connection when none is idle, and under sustained load its
 * queue of such connections grows until scanning it dominates CPU (`max_pipeline` strands a BEGIN). Queries
 * outside transactions wait here in order while `max` run; a wait past `maxWaitMs` fails with POOL_TIMEOUT.
 */
export class QueryGate {
  private running = 0
  private readonly waiting: Array<{ resolve: () => void, reject: (err: Error) => void, since: number }> = []
  private sweeper: NodeJS.Timeout | undefined

  private readonly max: number
  private readonly admission: Admission | undefined
  private readonly maxWaitMs: number

  constructor (max: number, admission?: Admission, maxWaitMs = 5000) {
    this.max = max
    this.admission = admission
    this.maxWaitMs = maxWaitMs
  }

  async run<T> (query: PromiseLike<T>): Promise<T> {
    this.admission?.assertUp()
    if (this.running >= this.max) await this.slot()
    else this.running++
    try {
      return await query
    } catch (err) {
      this.admission?.observe(err)
      throw err
    } finally {
      // The slot passes to the next waiting query as it is, or is given back.
      const next = this.waiting.shift()
      if (next) next.resolve()
      else this.running--
    }
  }

  /** The query as drizzle uses it (awaited, or .values() then awaited; .raw() for bytes), run through the gate. */
  wrap<T> (query: PromiseLike<T> & { values: () => unknown, raw: () => unknown }): PromiseLike<T> & { values: () => PromiseLike<T>, raw: () => PromiseLike<T> } {
    const gated = {
      values: () => {
        query.values()
        return gated
      },
      raw: () => {
        query.raw()
        return gated
      },
      then: <A, B>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null) =>
        this.run(query).then(onfulfilled, onrejected),
    }
    return gated
  }

  /** Queries running through the gate and waiting for a slot, for the pool metrics. */
  get use (): { running: number, waiting: number } {
    return { running: this.running, waiting: this.waiting.length }
  }

  /** Refuses every query waiting for a slot: none of them would get an answer. */
  failWaiting (err: Error): void {
    for (const waiter of this.waiting.splice(0)) waiter.reject(err)
  }

  private slot (): Promise<void> {
    // One timer for all waiting queries rather than one each: the waits end in arrival order.
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(250, this.maxWaitMs)).unref()
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject, since: Date.now() }))
  }

  private sweep (): void {
    const cutoff = Date.now() - this.maxWaitMs
    while (this.waiting.length > 0 && this.waiting[0].since <= cutoff) {
      this.waiting.shift()!.reject(new DatabaseUnavailableError('POOL_TIMEOUT', `No database connection came free within ${this.maxWaitMs} ms`))
    }
    if (this.waiting.length === 0) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }
}
