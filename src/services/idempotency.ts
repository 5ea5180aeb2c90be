// Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header): a request repeated with the same key
// within 24 h gets the first answer instead of doing its work again; the same key with another request,
// or while the first is still in progress, is refused.
import { createHash } from 'node:crypto'
import type { Database } from '../db/client.ts'
import {
  claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type StoredResponse,
} from '../repositories/idempotency-keys.ts'
import { ConflictError } from '../domain/errors.ts'

export type { StoredResponse } from '../repositories/idempotency-keys.ts'

/** What a keyed request comes to: its answer (given again when `replayed`), or a refusal. */
type KeyedOutcome =
  | { kind: 'answer', response: StoredResponse, replayed: boolean }
  | { kind: 'other-request' }
  | { kind: 'in-progress' }

/** JSON with the keys of every object sorted: the same body whatever order its fields came in. */
function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** The fingerprint of a request: its method, path and body (as validated, defaults applied). */
export function requestFingerprint (method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('base64url')
}

/**
 * The key's value as the draft writes it, a Structured Field string (`"8e03..."`), or bare, as many
 * clients send it: both name the same key.
 */
export const idempotencyKeyOf = (header: string): string => header.length >= 2 && header.startsWith('"') && header.endsWith('"')
  ? header.slice(1, -1)
  : header

/**
 * Runs `work` once for the user's key: a first request claims the key, does its work and stores its answer
 * in one transaction (so the answer exists exactly when the effect does); a failed one gives the key up,
 * for a retry. A repeat gets the stored answer, with nothing done.
 */
export async function runOnce (
  db: Database, userId: string, key: string, fingerprint: string, now: Date, work: (tx: Database) => Promise<StoredResponse>
): Promise<KeyedOutcome> {
  const claim = await claimIdempotencyKey(db, userId, key, fingerprint, now)
  if (claim.kind === 'answered') return { kind: 'answer', response: claim.response, replayed: true }
  if (claim.kind !== 'claimed') return claim
  try {
    const response = await db.transaction(async (tx) => {
      const answer = await work(tx)
      if (!await completeIdempotencyKey(tx, userId, key, claim.claimedAt, answer)) {
        throw new ConflictError('The Idempotency-Key was taken over by another request')
      }
      return answer
    })
    return { kind: 'answer', response, replayed: false }
  } catch (err) {
    await releaseIdempotencyKey(db, userId, key, claim.claimedAt).catch(() => {})
    throw err
  }
}
