// What one user holds, counted for the operator's limits, and the lock on the user's row under which it is counted.
import { eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitors, notificationChannels, users } from '../db/schema.ts'
import { ownerUserId, type Owner } from './owner.ts'

/**
 * Locks the owner's user row until the transaction ends and returns its id (ApiKeyGoneError when the key is
 * gone). FOR NO KEY UPDATE: it waits for another such lock, not for inserts of rows that reference the user.
 */
export async function lockOwner (tx: Database, owner: Owner): Promise<string> {
  const userId = await ownerUserId(tx, owner)
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')
  return userId
}

/** The user's monitors that are not deleted, counted up to `upTo` at most (an index-only read of that many entries). */
export async function countLiveMonitors (db: Database, userId: string, upTo: number): Promise<number> {
  const rows = rowsOf<{ held: number }>(await db.execute(sql`select count(*)::int as held from (select 1 from ${monitors}
    where ${monitors.userId} = ${userId} and ${monitors.deletedAt} is null limit ${upTo}) m`))
  return Number(rows[0].held)
}

/** The user's notification channels, counted up to `upTo` at most. */
export async function countChannels (db: Database, userId: string, upTo: number): Promise<number> {
  const rows = rowsOf<{ held: number }>(await db.execute(sql`select count(*)::int as held from (select 1 from ${notificationChannels}
    where ${notificationChannels.userId} = ${userId} limit ${upTo}) c`))
  return Number(rows[0].held)
}
