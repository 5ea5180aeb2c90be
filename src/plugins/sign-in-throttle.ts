// Dashboard sign-in throttle: every attempt is counted atomically before its password is checked, so that
// simultaneous guesses cannot all pass first. Counters are in Redis when REDIS_URL is set, else (and when
// Redis fails) in the database, which every API process shares.
import { createHash } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import type { Database } from '../db/client.ts'
import {
  deleteExpiredAttempts, forgetPair, refusedUntil, releaseAddressAttempt, reserveAddressAttempt, reservePairAttempt,
} from '../repositories/sign-in-attempts.ts'

declare module 'fastify' {
  interface FastifyInstance {
    signInThrottle: SignInThrottle
  }
}

/**
 * No lockout per email: anyone can send one, so a stranger could lock its user out. Per (email, address), failures
 * past the free ones wait, doubling; per address, attempts per window, a successful one given back.
 */
export const SIGN_IN_LIMITS = {
  failuresBeforeDelay: 5,
  firstDelayMs: 60_000,
  maxDelayMs: 3_600_000,
  // A pair's failures are forgotten this long after its last attempt, or at once when it signs in.
  pairMemoryMs: 86_400_000,
  attemptsPerAddress: 50,
  addressWindowMs: 15 * 60_000,
}
const L = SIGN_IN_LIMITS

type SignInAttempt =
  | { allowed: true, /** The password was right: the attempt was no failure and the pair's failures are forgotten. */ succeeded: () => Promise<void> }
  | { allowed: false, retryAfterMs: number }

interface SignInThrottle {
  /** Counts an attempt for this email from this address, as a failure until `succeeded()` says otherwise. */
  reserve: (email: string, address: string, log: FastifyBaseLogger) => Promise<SignInAttempt>
}

interface Keys { address: string, pair: string }
type Reserved = { allowed: true, windowEnd: number } | { allowed: false, retryAfterMs: number }

/** Where the counters are kept; `windowEnd` identifies the address window an attempt was counted in. */
interface AttemptStore {
  reserve: (keys: Keys, now: number) => Promise<Reserved>
  succeeded: (keys: Keys, windowEnd: number) => Promise<void>
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url')

// Times are the app's clock, passed in as for the database; the keys' TTLs only let Redis drop stale counters.
const RESERVE = `
local now = tonumber(ARGV[1])
local used, windowEnd = unpack(redis.call('HMGET', KEYS[1], 'attempts', 'window_end'))
used = tonumber(used) or 0
windowEnd = tonumber(windowEnd) or 0
if windowEnd <= now then used = 0; windowEnd = now + tonumber(ARGV[3]) end
if used >= tonumber(ARGV[2]) then return {0, windowEnd - now} end
local attempts, lockedUntil, forgetAt = unpack(redis.call('HMGET', KEYS[2], 'attempts', 'locked_until', 'forget_at'))
attempts = tonumber(attempts) or 0
lockedUntil = tonumber(lockedUntil) or 0
if (tonumber(forgetAt) or 0) <= now then attempts = 0; lockedUntil = 0 end
if lockedUntil > now then return {0, lockedUntil - now} end
attempts = attempts + 1
local free, delay = tonumber(ARGV[4]), 0
if attempts >= free then delay = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ math.min(attempts - free, 30)) end
redis.call('HSET', KEYS[1], 'attempts', used + 1, 'window_end', windowEnd)
redis.call('PEXPIRE', KEYS[1], windowEnd - now)
redis.call('HSET', KEYS[2], 'attempts', attempts, 'locked_until', now + delay, 'forget_at', now + tonumber(ARGV[7]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[7]))
return {1, windowEnd}`

const SUCCEEDED = `
redis.call('DEL', KEYS[2])
if tonumber(redis.call('HGET', KEYS[1], 'window_end')) == tonumber(ARGV[1]) then
  redis.call('HINCRBY', KEYS[1], 'attempts', -1)
end`

/** Both limits checked and both counters written in one script: Redis runs it atomically. */
function redisStore (redis: Redis, prefix: string): AttemptStore {
  const redisKeys = (keys: Keys) => [`${prefix}sign-in:${keys.address}`, `${prefix}sign-in:${keys.pair}`]
  return {
    async reserve (keys, now) {
      const [allowed, time] = await redis.eval(RESERVE, 2, ...redisKeys(keys), now, L.attemptsPerAddress, L.addressWindowMs,
        L.failuresBeforeDelay, L.firstDelayMs, L.maxDelayMs, L.pairMemoryMs) as [number, number]
      return allowed ? { allowed: true, windowEnd: time } : { allowed: false, retryAfterMs: time }
    },
    async succeeded (keys, windowEnd) {
      await redis.eval(SUCCEEDED, 2, ...redisKeys(keys), windowEnd)
    },
  }
}

/**
 * One statement per limit, each under its row's lock. The address's attempt is counted first and given back if
 * the pair must wait: meanwhile it can only make a simultaneous attempt wait, never let one more through.
 */
function databaseStore (db: Database): AttemptStore {
  return {
    async reserve (keys, nowMs) {
      const now = new Date(nowMs)
      const refusal = async (key: string): Promise<Reserved> =>
        ({ allowed: false, retryAfterMs: ((await refusedUntil(db, key))?.getTime() ?? nowMs) - nowMs })
      const windowEnd = await reserveAddressAttempt(db, keys.address, now, L.attemptsPerAddress, L.addressWindowMs)
      if (!windowEnd) return refusal(keys.address)
      if (!await reservePairAttempt(db, keys.pair, now, L)) {
        await releaseAddressAttempt(db, keys.address, windowEnd)
        return refusal(keys.pair)
      }
      return { allowed: true, windowEnd: windowEnd.getTime() }
    },
    async succeeded (keys, windowEnd) {
      await forgetPair(db, keys.pair)
      await releaseAddressAttempt(db, keys.address, new Date(windowEnd))
    },
  }
}

interface SignInThrottleOptions {
  redisUrl?: string
  redisPrefix: string
}

export default fp<SignInThrottleOptions>(async (app, options) => {
  const database = databaseStore(app.db)
  let redis: Redis | undefined
  if (options.redisUrl) {
    const { Redis } = await import('ioredis') // only when configured, as in rate-limit.ts
    redis = new Redis(options.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: true })
    // Each sign-in that falls back says why (below); the reconnection attempts need not.
    redis.on('error', (err) => { app.log.debug({ err }, 'sign-in throttle: Redis connection error') })
    app.addHook('onClose', async () => { await redis!.quit().catch(() => redis!.disconnect()) })
  }
  const shared = redis && redisStore(redis, options.redisPrefix)
  let lastSweep = 0

  async function reserveIn (keys: Keys, now: number, log: FastifyBaseLogger): Promise<[AttemptStore, Reserved]> {
    if (shared) {
      try {
        return [shared, await shared.reserve(keys, now)]
      } catch (err) {
        log.warn({ err }, 'sign-in throttle: Redis failed, counting this attempt in the database')
      }
    }
    // Expired rows are swept now and then, off the request's path.
    if (now - lastSweep >= L.addressWindowMs) {
      lastSweep = now
      app.backgroundWrites.track(deleteExpiredAttempts(app.db, new Date(now)), 'delete expired sign-in attempts', log)
    }
    return [database, await database.reserve(keys, now)]
  }

  app.decorate('signInThrottle', {
    async reserve (email, address, log) {
      const keys = { address: `address:${hash(address)}`, pair: `pair:${hash(`${email}\n${address}`)}` }
      const [store, reserved] = await reserveIn(keys, app.clock().getTime(), log)
      if (!reserved.allowed) return reserved
      return {
        allowed: true,
        // A failure here leaves a failure counted: the user still signs in, and the count runs out in time.
        succeeded: () => store.succeeded(keys, reserved.windowEnd)
          .catch((err) => { log.warn({ err }, 'sign-in throttle: could not forget the attempts of a successful sign-in') }),
      }
    },
  } satisfies SignInThrottle)
}, { name: 'sign-in-throttle', fastify: '5.x', dependencies: ['db', 'background-writes'] })
