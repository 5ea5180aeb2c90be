// Holds back queries beyond the pool's size, so that postgres.js never pipelines them onto busy connections.
import { DatabaseUnavailableError } from './unavailable.ts'

/** What the gate asks before a query and tells after a failed one (health.ts). */
interface Admission {
  /** Throws when the query should not even be tried (the database is known to be down). */
  assertUp: () => void
  observe: (err: unknown) => void
}

/**
 * postgres.js (3.4.9) sends a query on a busy connection, behind the one running there, when no
 * connection is idle; it keeps those connections in a queue that is only reset when it empties, so
 * under sustained load the queue grows by one entry per query and every query scans it (indexOf).
 * That scan grew with the length of the load into a large share of the API server's CPU
 * (bench/results.md, "Measurements behind the source"). (Its undeclared `max_pipeline` option is no cure: a BEGIN that
 * fills a pipeline is never given its connection, and the transaction fails.)
 * Queries outside transactions therefore wait here, in order, while `max` are running: the one that
 * goes next finds the connection of the one that finished idle. A query's promise settles after
 * postgres.js has made its connection idle again.
 *
 * The wait is bounded: a query that gets no slot within `maxWaitMs` fails (`POOL_TIMEOUT`, 503 at the
 * edge) rather than holding its request indefinitely, and `failWaiting` refuses every waiting query at
 * once when the database goes down.
 */
export class QueryGate {
  private running = 0
  private readonly waiting: Array<{ resolve: () => void, reject: (err: Error) => void, since: number }> = []
  private sweeper: NodeJS.Timeout | undefined

  constructor (private readonly max: number, private readonly admission?: Admission, private readonly maxWaitMs = 5000) {}

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

  /** Queries running through the gate now, and waiting for a slot (the metrics' pool use). */
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
