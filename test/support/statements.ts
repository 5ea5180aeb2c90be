// Counts the statements an app sends to its database, at the driver: postgres.js's query log (its `debug` hook,
// called for every statement on every connection, a transaction's BEGIN and COMMIT included), or PGlite's
// query and exec, in a transaction too, and each transaction once (its BEGIN and COMMIT run inside PGlite).
import type { Database } from '../../src/db/client.ts'

type Method = (...args: unknown[]) => Promise<unknown>
type PgliteLike = Record<'query' | 'exec' | 'transaction', Method>

export interface StatementCounter {
  readonly count: number
  /** Puts the driver back as it was. */
  stop: () => void
}

/** `only`: count just the statements whose text it matches (a transaction's own BEGIN and COMMIT are then not counted). */
export function countStatements (db: Database, only?: RegExp): StatementCounter {
  const client = (db as unknown as { $client: Record<string, unknown> }).$client
  const counter = { count: 0, stop: () => {} }
  if (typeof client.unsafe === 'function') {
    const options = client.options as { debug: unknown }
    const before = options.debug
    options.debug = (_connection: unknown, text: string) => { if (!only || only.test(text)) counter.count++ }
    counter.stop = () => { options.debug = before }
    return counter
  }
  const pglite = client as unknown as PgliteLike
  const counted = (run: Method, counts = (args: unknown[]) => !only || only.test(String(args[0]))): Method => (...args) => {
    if (counts(args)) counter.count++
    return run(...args)
  }
  const originals = { query: pglite.query, exec: pglite.exec, transaction: pglite.transaction }
  pglite.query = counted(originals.query.bind(pglite))
  pglite.exec = counted(originals.exec.bind(pglite))
  pglite.transaction = counted((callback) => originals.transaction.call(pglite, (tx: PgliteLike) => {
    tx.query = counted(tx.query.bind(tx))
    tx.exec = counted(tx.exec.bind(tx))
    return (callback as (tx: PgliteLike) => Promise<unknown>)(tx)
  }), () => !only)
  counter.stop = () => Object.assign(pglite, originals)
  return counter
}
