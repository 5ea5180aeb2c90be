// The postgres.js client as drizzle is given it: the pool's guards around the two calls drizzle makes on it.
import type postgres from 'postgres'
import type { DatabaseHealth } from '../health.ts'
import type { QueryGate } from './query-gate.ts'
import { begunAgainIfFailedUnsent, madeAgainIfFailedUnsent } from './replayed-errors.ts'
import { guardedBegin } from './transaction-guard.ts'

export interface PoolGuards {
  gate: QueryGate
  health: DatabaseHealth
  /** Transactions begun and not yet ended, for the pool metrics. */
  transactions: { open: number }
}

type Unsafe = (query: string, args?: unknown[], options?: object) => ReturnType<postgres.Sql['unsafe']>
type Begin = (...args: unknown[]) => Promise<unknown>

/**
 * drizzle's session calls only `unsafe` and `begin` (and reads `options`): queries outside a transaction wait at
 * the gate, and no transaction begins while the database is known to be down. A transaction's queries run unguarded.
 */
export function guardedClient (client: postgres.Sql, { gate, health, transactions }: PoolGuards): postgres.Sql {
  const unsafe = client.unsafe as Unsafe
  const begin = begunAgainIfFailedUnsent((client.begin as Begin).bind(client))
  const guarded = {
    options: client.options,
    unsafe: (query: string, args?: unknown[], options?: object) => gate.wrap(madeAgainIfFailedUnsent(() => unsafe(query, args, options))),
    begin: (...args: unknown[]) => {
      const callback = args.pop() as (tx: postgres.TransactionSql) => Promise<unknown>
      try {
        health.assertUp()
      } catch (err) {
        return Promise.reject(err)
      }
      transactions.open++
      return guardedBegin((guardedCallback: typeof callback) => begin.call(client, ...args, guardedCallback), callback)
        .catch((err: unknown) => {
          health.observe(err)
          throw err
        })
        .finally(() => { transactions.open-- })
    },
  }
  return guarded as unknown as postgres.Sql
}

/**
 * postgres.js asks each new connection for the array types, and a connection dying with that question open ends
 * the process with an unhandled rejection (porsager/postgres#1192): asked once here, the answer serves the pool.
 */
export async function fetchArrayTypesOnce (client: postgres.Sql): Promise<void> {
  try {
    await client`select 1`
  } catch (err) {
    await client.end({ timeout: 0 })
    throw err
  }
  client.options.fetch_types = false
}
