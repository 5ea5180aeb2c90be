// What one organization holds, counted for the operator's limits under a lock on its row.
import { eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitors, notificationChannels, organizations } from '../db/schema.ts'
import { ownerOrgId, type Owner } from './owner.ts'

/**
 * Locks the owner's organization row for the transaction and returns its id. FOR NO KEY UPDATE waits for another
 * such lock but not for inserts of rows that reference the organization.
 */
export async function lockOwner (tx: Database, owner: Owner): Promise<string> {
  const orgId = await ownerOrgId(tx, owner)
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for('no key update')
  return orgId
}

/** The organization's live monitors, counted up to `upTo` at most. */
export async function countLiveMonitors (db: Database, orgId: string, upTo: number): Promise<number> {
  const rows = rowsOf<{ held: number }>(await db.execute(sql`select count(*)::int as held from (select 1 from ${monitors}
    where ${monitors.orgId} = ${orgId} and ${monitors.deletedAt} is null limit ${upTo}) m`))
  return Number(rows[0].held)
}

/** The organization's notification channels, counted up to `upTo` at most. */
export async function countChannels (db: Database, orgId: string, upTo: number): Promise<number> {
  const rows = rowsOf<{ held: number }>(await db.execute(sql`select count(*)::int as held from (select 1 from ${notificationChannels}
    where ${notificationChannels.orgId} = ${orgId} limit ${upTo}) c`))
  return Number(rows[0].held)
}
