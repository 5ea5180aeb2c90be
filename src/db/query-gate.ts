// Holds back queries beyond the pool's size, so that postgres.js never pipelines them onto busy connections.
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
 */
export class QueryGate {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor (private readonly max: number) {}

  async run<T> (query: PromiseLike<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      return await query
    } finally {
      // The slot passes to the next waiting query as it is, or is given back.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  /** The query as drizzle uses it (awaited, or .values() then awaited), run through the gate. */
  wrap<T> (query: PromiseLike<T> & { values: () => unknown }): PromiseLike<T> & { values: () => PromiseLike<T> } {
    const gated = {
      values: () => {
        query.values()
        return gated
      },
      then: <A, B>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null) =>
        this.run(query).then(onfulfilled, onrejected),
    }
    return gated
  }
}
