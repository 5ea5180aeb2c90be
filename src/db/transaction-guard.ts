// Keeps postgres.js from writing to a transaction's connection after it closed, which crashes the process.
import { isDatabaseUnavailable } from './unavailable.ts'

/**
 * How long a callback that failed for want of the database waits for its transaction to end with the
 * connection (postgres.js rejects begin() when it sees the connection close, normally at once).
 */
const CONNECTION_CLOSE_WAIT_MS = 1000

/**
 * postgres.js (3.4.9) sends ROLLBACK when a transaction's callback rejects, or COMMIT when it resolves,
 * on the transaction's connection, even when that connection has just closed. Its write then runs from a
 * setImmediate on a socket it has set to null, and the TypeError escapes every caller and ends the
 * process (porsager/postgres#1154, #1208; no release fixes it). A database outage with a transaction
 * running (the checker records every check in one) was enough.
 *
 * So the callback may not settle once the connection is gone: begin() itself rejects then (postgres.js
 * rejects it when the connection closes), and the callback's promise is left pending, so that nothing
 * more is written to the dead connection (postgres.js has already released it to its pool). A callback
 * that failed for want of the database first waits for that, briefly; should the connection not close
 * after all, the callback rejects as usual and ROLLBACK goes to a live socket.
 */
export function guardedBegin<Tx, T> (begin: (callback: (tx: Tx) => Promise<T>) => Promise<T>, callback: (tx: Tx) => Promise<T>): Promise<T> {
  let connectionGone!: () => void
  const gone = new Promise<void>((resolve) => { connectionGone = resolve })
  let ended = false
  const transaction = begin(async (tx) => {
    let outcome: { value: T } | { err: unknown }
    try {
      outcome = { value: await callback(tx) }
    } catch (err) {
      outcome = { err }
      if (!ended && isDatabaseUnavailable(err)) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([gone, new Promise((resolve) => { timer = setTimeout(resolve, CONNECTION_CLOSE_WAIT_MS) })])
        clearTimeout(timer)
      }
    }
    if (ended) return new Promise<T>(() => {})
    if ('err' in outcome) throw outcome.err
    return outcome.value
  })
  // Once the transaction has settled, a callback still running is one whose connection closed: nothing
  // else settles a transaction before its callback.
  transaction.then(() => { ended = true; connectionGone() }, () => { ended = true; connectionGone() })
  return transaction
}
