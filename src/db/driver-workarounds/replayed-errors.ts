// postgres.js 3.4.9 keeps the error of a backend that ended mid-query (57P01 at a shutdown) and fails with it,
// unsent, the first query its connection makes once reconnected (porsager/postgres#1223): that query is made once more.

/** A server's error: a socket's (ECONNREFUSED) on an unsent query means the database is away, as the health must hear. */
const isServerError = (err: unknown) => (err as { name?: unknown } | null)?.name === 'PostgresError'

/** postgres.js sets a query's `state` (its backend) when it writes the query to a connection. */
const neverSent = (query: object) => (query as { state?: unknown }).state === null

interface PendingQuery<T> extends PromiseLike<T> {
  values: () => unknown
  raw: () => unknown
}

/** The query `make` makes (with drizzle's .values() or .raw()), made again once if it failed before it was sent. */
export function madeAgainIfFailedUnsent<T> (make: () => PendingQuery<T>): PendingQuery<T> {
  let mode: 'values' | 'raw' | undefined
  const made = () => {
    const query = make()
    if (mode) query[mode]()
    return query
  }
  const answer = async (): Promise<T> => {
    const first = made()
    try {
      return await first
    } catch (err) {
      if (!isServerError(err) || !neverSent(first)) throw err
      return await made()
    }
  }
  const pending: PendingQuery<T> = {
    values: () => {
      mode = 'values'
      return pending
    },
    raw: () => {
      mode = 'raw'
      return pending
    },
    then: (onfulfilled, onrejected) => answer().then(onfulfilled, onrejected),
  }
  return pending
}

type Begin = (...args: unknown[]) => Promise<unknown>

/** `begin`, begun once more when it failed with a server's error before its callback ran (its BEGIN was refused so). */
export function begunAgainIfFailedUnsent (begin: Begin): Begin {
  return async (...args) => {
    const callback = args.pop() as (tx: unknown) => unknown
    let ran = false
    const tracked = (tx: unknown) => {
      ran = true
      return callback(tx)
    }
    try {
      return await begin(...args, tracked)
    } catch (err) {
      if (ran || !isServerError(err)) throw err
      return await begin(...args, callback)
    }
  }
}
