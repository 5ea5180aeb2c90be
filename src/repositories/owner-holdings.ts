// What one user holds, counted for the operator's limits under a lock on the user's row.
import { eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitors, notificationChannels, users } from '../db/schema.ts'
import { ownerUserId, type Owner } from './owner.ts'

/**
 * Locks the owner's user row for the transaction and returns its id. FOR NO KEY UPDATE waits for another such
 * lock but not for inserts of rows that reference the user.
 */
export async function lockOwner (tx: Database, owner: Owner): Promise<string> {
  const userId = await ownerUserId(tx, owner)
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update')
  return userId
}

/** The user's live monitors, counted up to `upTo` at most. */
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
