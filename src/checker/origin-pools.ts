// One undici Pool per checked origin, kept between checks: undici's Agent closes an origin's pool with its last
// connection, so with a new connection per check it would build the pool, its client and its parser every time.
import { Pool } from 'undici'

export interface OriginPools {
  /** The pool of `origin` (`scheme://address:port`), made on first use; the most recently used are kept. */
  get (origin: string): Pool
  close (): Promise<void>
}

/** At most `max` pools (least recently used closed first), none idle past `idleMs`; a pool holds no socket between checks. */
export function originPools (options: Pool.Options, { max = 2000, idleMs = 150_000 } = {}): OriginPools {
  // Insertion order is use order: get() moves an origin to the end.
  const pools = new Map<string, { pool: Pool, usedAt: number }>()
  const retire = (origin: string, pool: Pool) => {
    pools.delete(origin)
    pool.close().catch(() => {}) // lets requests in flight finish; a later check of the origin makes a new pool
  }
  const sweep = setInterval(() => {
    const oldest = Date.now() - idleMs
    for (const [origin, { pool, usedAt }] of pools) {
      if (usedAt > oldest) break
      retire(origin, pool)
    }
  }, idleMs / 2).unref()

  return {
    get (origin) {
      const entry = pools.get(origin)
      pools.delete(origin)
      const pool = entry?.pool ?? new Pool(origin, options)
      pools.set(origin, { pool, usedAt: Date.now() })
      if (pools.size > max) {
        const [lru] = pools
        retire(lru[0], lru[1].pool)
      }
      return pool
    },
    async close () {
      clearInterval(sweep)
      const all = [...pools.values()].map(({ pool }) => pool.close())
      pools.clear()
      await Promise.all(all)
    },
  }
}
