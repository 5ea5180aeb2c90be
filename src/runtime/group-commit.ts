// Group commit: what callers hand in while batches are being written goes together in the next batch.

export interface GroupCommitOptions {
  /** The most items in one batch (one statement's size bound). */
  maxBatch: number
  /** Batches written at once, each its own transaction; default 1: a second in flight makes smaller batches and more commits. */
  maxInFlight?: number
  /** How long an item arriving at an idle writer waits for others to join its batch (default 0); without it a steady
   * trickle would be written one item at a time. A function is asked each time. */
  gatherMs?: number | (() => number)
}

/** Batches the items that arrive while earlier batches are written, one commit for many under load; a failed batch
 * is written again item by item, so that one bad item fails alone. `write` answers one result per item, in order. */
export function groupCommit<T, R> (write: (items: T[]) => Promise<R[]>, options: GroupCommitOptions): (item: T) => Promise<R> {
  const maxInFlight = options.maxInFlight ?? 1
  const gatherOption = options.gatherMs ?? 0
  const gatherMs = typeof gatherOption === 'function' ? gatherOption : () => gatherOption
  const queue: Array<{ item: T, at: number, resolve: (result: R) => void, reject: (err: unknown) => void }> = []
  let inFlight = 0
  let gathering: NodeJS.Timeout | undefined

  async function writeBatch (batch: typeof queue): Promise<void> {
    try {
      const results = await write(batch.map((entry) => entry.item))
      batch.forEach((entry, i) => entry.resolve(results[i]))
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err)
      else for (const entry of batch) await writeBatch([entry])
    }
  }

  function pump (): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const waitMs = queue[0].at === -Infinity ? 0 : gatherMs() - (Date.now() - queue[0].at)
      if (waitMs > 0 && queue.length < options.maxBatch) {
        gathering ??= setTimeout(() => {
          gathering = undefined
          pump()
        }, waitMs)
        return
      }
      clearTimeout(gathering)
      gathering = undefined
      inFlight++
      // writeBatch settles every promise of its batch itself.
      writeBatch(queue.splice(0, options.maxBatch)).catch(() => {}).finally(() => {
        inFlight--
        pump()
      })
    }
  }

  return (item) => new Promise((resolve, reject) => {
    // Only an item arriving at an idle writer gathers others (the batch's first); any other goes when a slot is free.
    queue.push({ item, at: inFlight === 0 && queue.length === 0 ? Date.now() : -Infinity, resolve, reject })
    pump()
  })
}
