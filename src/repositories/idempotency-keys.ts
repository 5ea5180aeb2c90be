// Idempotency keys: a key is claimed before the work and completed in the work's own transaction, so an
// answer is stored exactly when its effect is.
import { and, eq, isNull, lt, or } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { idempotencyKeys } from '../db/schema.ts'

/** An answer as it is given again. */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** How long a key holds its first answer. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000
/** An unanswered claim this old belongs to a request that died, so the key is free again. */
const ABANDONED_AFTER_MS = 60_000

/** A claim: `claimedAt` identifies it when it is completed or released. */
type KeyClaim =
  | { kind: 'claimed', claimedAt: Date }
  | { kind: 'answered', response: StoredResponse }
  | { kind: 'other-request' }
  | { kind: 'in-progress' }

const ofKey = (orgId: string, key: string) => and(eq(idempotencyKeys.orgId, orgId), eq(idempotencyKeys.key, key))

/** Claims a new, expired or abandoned key (one statement each, so two requests cannot both win), else reports its state. */
export async function claimIdempotencyKey (db: Database, orgId: string, key: string, requestHash: string, now: Date): Promise<KeyClaim> {
  // A row deleted between the statements is a free key: try again.
  for (let attempt = 0; ; attempt++) {
    const [inserted] = await db.insert(idempotencyKeys).values({ orgId, key, requestHash, createdAt: now })
      .onConflictDoNothing().returning({ createdAt: idempotencyKeys.createdAt })
    if (inserted) return { kind: 'claimed', claimedAt: inserted.createdAt }
    const [taken] = await db.update(idempotencyKeys).set({ requestHash, response: null, createdAt: now })
      .where(and(ofKey(orgId, key), or(
        lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS)),
        and(isNull(idempotencyKeys.response), lt(idempotencyKeys.createdAt, new Date(now.getTime() - ABANDONED_AFTER_MS)))
      )))
      .returning({ createdAt: idempotencyKeys.createdAt })
    if (taken) return { kind: 'claimed', claimedAt: taken.createdAt }
    const [row] = await db.select().from(idempotencyKeys).where(ofKey(orgId, key))
    if (!row) {
      if (attempt < 3) continue
      return { kind: 'in-progress' }
    }
    if (row.requestHash !== requestHash) return { kind: 'other-request' }
    if (row.response === null) return { kind: 'in-progress' }
    return { kind: 'answered', response: row.response as StoredResponse }
  }
}

/** Stores the answer in the work's transaction; false when the claim was taken over, and the caller rolls back. */
export async function completeIdempotencyKey (
  tx: Database, orgId: string, key: string, claimedAt: Date, response: StoredResponse
): Promise<boolean> {
  const updated = await tx.update(idempotencyKeys).set({ response })
    .where(and(ofKey(orgId, key), eq(idempotencyKeys.createdAt, claimedAt), isNull(idempotencyKeys.response)))
    .returning({ key: idempotencyKeys.key })
  return updated.length === 1
}

/** Gives up a claim whose request changed nothing, so a retry can take the key at once. */
export async function releaseIdempotencyKey (db: Database, orgId: string, key: string, claimedAt: Date): Promise<void> {
  await db.delete(idempotencyKeys)
    .where(and(ofKey(orgId, key), eq(idempotencyKeys.createdAt, claimedAt), isNull(idempotencyKeys.response)))
}

/** Deletes the keys older than `cutoff`; returns how many went. */
export async function deleteExpiredIdempotencyKeys (db: Database, cutoff: Date): Promise<number> {
  const deleted = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff)).returning({ key: idempotencyKeys.key })
  return deleted.length
}
