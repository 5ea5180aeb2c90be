// Sign-in attempt counters when there is no Redis: each reservation counts and decides in one statement,
// under the row's lock, so simultaneous attempts cannot both slip through.
import { eq, lte, sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { signInAttempts } from '../db/schema.ts'

/** See SIGN_IN_LIMITS in src/plugins/sign-in-throttle.ts. */
interface PairPolicy {
  failuresBeforeDelay: number
  firstDelayMs: number
  maxDelayMs: number
  pairMemoryMs: number
}

const at = (time: Date) => sql`${time.toISOString()}::timestamptz`

/** Counts an attempt unless the window is used up; returns the window's end (for a release), undefined when refused. */
export async function reserveAddressAttempt (
  db: Database, key: string, now: Date, limit: number, windowMs: number
): Promise<Date | undefined> {
  const expired = sql`a.expires_at <= ${at(now)}`
  const windowEnd = at(new Date(now.getTime() + windowMs))
  const result = await db.execute(sql`
    insert into ${signInAttempts} as a (key, attempts, expires_at) values (${key}, 1, ${windowEnd})
    on conflict (key) do update set
      attempts = case when ${expired} then 1 else a.attempts + 1 end,
      expires_at = case when ${expired} then ${windowEnd} else a.expires_at end
    where a.attempts < ${limit}::int or ${expired}
    returning a.expires_at`)
  const [row] = rowsOf<{ expires_at: string | Date }>(result)
  return row ? new Date(row.expires_at) : undefined
}

/** Gives back an attempt reserved in that window only. */
export async function releaseAddressAttempt (db: Database, key: string, windowEnd: Date): Promise<void> {
  await db.execute(sql`
    update ${signInAttempts} set attempts = attempts - 1
    where key = ${key} and expires_at = ${at(windowEnd)} and attempts > 0`)
}

/** The wait after the `n`-th attempt: none, then doubling up to the ceiling. */
function delayAfter (n: SQL, policy: PairPolicy): SQL {
  return sql`case when ${n} < ${policy.failuresBeforeDelay}::int then interval '0'
    else least(${policy.maxDelayMs}::float8, ${policy.firstDelayMs}::float8 * power(2, least(${n} - ${policy.failuresBeforeDelay}::int, 30)))
      * interval '1 millisecond' end`
}

/** Counts an attempt of the pair, as a failure in advance, unless it must still wait; true when counted. */
export async function reservePairAttempt (db: Database, key: string, now: Date, policy: PairPolicy): Promise<boolean> {
  const nth = sql`(case when a.expires_at <= ${at(now)} then 1 else a.attempts + 1 end)`
  const forgetAt = at(new Date(now.getTime() + policy.pairMemoryMs))
  const result = await db.execute(sql`
    insert into ${signInAttempts} as a (key, attempts, locked_until, expires_at)
    values (${key}, 1, ${at(now)} + ${delayAfter(sql`1`, policy)}, ${forgetAt})
    on conflict (key) do update set
      attempts = ${nth},
      locked_until = ${at(now)} + ${delayAfter(nth, policy)},
      expires_at = ${forgetAt}
    where a.locked_until <= ${at(now)} or a.expires_at <= ${at(now)}
    returning a.attempts`)
  return rowsOf(result).length > 0
}

/** Until when a refused key stays refused: a pair's lock, or an address's window end. */
export async function refusedUntil (db: Database, key: string): Promise<Date | undefined> {
  const [row] = await db.select({ lockedUntil: signInAttempts.lockedUntil, expiresAt: signInAttempts.expiresAt })
    .from(signInAttempts).where(eq(signInAttempts.key, key))
  return row ? row.lockedUntil ?? row.expiresAt : undefined
}

/** Forgets the pair's failures (its password was right). */
export async function forgetPair (db: Database, key: string): Promise<void> {
  await db.delete(signInAttempts).where(eq(signInAttempts.key, key))
}

/** Removes counters whose window has ended or whose pair is forgotten. */
export async function deleteExpiredAttempts (db: Database, now: Date): Promise<number> {
  const rows = await db.delete(signInAttempts).where(lte(signInAttempts.expiresAt, now)).returning({ key: signInAttempts.key })
  return rows.length
}
