// One-time setup links of the dashboard (a first password): rows keyed by the SHA-256 of the link's token, so
// every instance on the database accepts a link any of them printed, and a read of the table opens nothing.
import { and, eq, gt, lte } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { setupTokens } from '../db/schema.ts'

export async function createSetupToken (
  db: Database, input: { id: string, userId: string, now: Date, expiresAt: Date }
): Promise<void> {
  await db.insert(setupTokens).values({ id: input.id, userId: input.userId, createdAt: input.now, expiresAt: input.expiresAt })
}

/** The user of the live token with this id (the token's hash); undefined when unknown, used or expired. */
export async function findSetupTokenUser (db: Database, id: string, now: Date): Promise<string | undefined> {
  const [row] = await db.select({ userId: setupTokens.userId }).from(setupTokens)
    .where(and(eq(setupTokens.id, id), gt(setupTokens.expiresAt, now)))
  return row?.userId
}

/**
 * Takes the live token out of the table and answers its user: only one of two simultaneous uses gets it.
 * Undefined when it was unknown, already used or expired.
 */
export async function takeSetupToken (db: Database, id: string, now: Date): Promise<string | undefined> {
  const [row] = await db.delete(setupTokens).where(and(eq(setupTokens.id, id), gt(setupTokens.expiresAt, now)))
    .returning({ userId: setupTokens.userId })
  return row?.userId
}

/** Ends every setup link of the user (their password is set: none of them may set it again). */
export async function deleteSetupTokensOfUser (db: Database, userId: string): Promise<void> {
  await db.delete(setupTokens).where(eq(setupTokens.userId, userId))
}

/** Removes expired links (called when one is issued, so the table holds only the live ones and a few). */
export async function deleteExpiredSetupTokens (db: Database, now: Date): Promise<void> {
  await db.delete(setupTokens).where(lte(setupTokens.expiresAt, now))
}
