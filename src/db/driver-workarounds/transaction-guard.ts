// Keeps postgres.js from writing to a transaction's connection after it closed, which crashes the process.
import { isDatabaseUnavailable } from '../unavailable.ts'

// How long a callback that failed for want of the database waits for begin() to see the connection close.
const CONNECTION_CLOSE_WAIT_MS = 1000

/**
 * postgres.js 3.4.9 writes ROLLBACK or COMMIT to a closed connection and the TypeError ends the process
 * (porsager/postgres#1154, #1208): once the connection is gone, the callback never settles.
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
