// One-time setup links, keyed by the SHA-256 of the token: any instance accepts a link another printed, and
// reading the table opens nothing.
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

/** Deletes the live token and returns its user, so only one of two simultaneous uses gets it. */
export async function takeSetupToken (db: Database, id: string, now: Date): Promise<string | undefined> {
  const [row] = await db.delete(setupTokens).where(and(eq(setupTokens.id, id), gt(setupTokens.expiresAt, now)))
    .returning({ userId: setupTokens.userId })
  return row?.userId
}

/** Ends every setup link of the user once their password is set. */
export async function deleteSetupTokensOfUser (db: Database, userId: string): Promise<void> {
  await db.delete(setupTokens).where(eq(setupTokens.userId, userId))
}

/** Removes expired links; called whenever one is issued. */
export async function deleteExpiredSetupTokens (db: Database, now: Date): Promise<void> {
  await db.delete(setupTokens).where(lte(setupTokens.expiresAt, now))
}
