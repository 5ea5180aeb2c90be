// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a repeated request gets the first answer; the
// same key with another request, or while the first is in progress, is refused.
import { createHash } from 'node:crypto'
import type { Database } from '../db/client.ts'
import {
  claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey, type StoredResponse,
} from '../repositories/idempotency-keys.ts'
import { ConflictError } from '../domain/errors.ts'

export type { StoredResponse } from '../repositories/idempotency-keys.ts'

type KeyedOutcome =
  | { kind: 'answer', response: StoredResponse, replayed: boolean }
  | { kind: 'other-request' }
  | { kind: 'in-progress' }

/** JSON with sorted keys: the same body whatever order its fields came in. */
function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** A request's fingerprint: method, path and validated body. */
export function requestFingerprint (method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('base64url')
}

/** The key quoted as the draft writes it (a Structured Field string) or bare as many clients send it: the same key. */
export const idempotencyKeyOf = (header: string): string => header.length >= 2 && header.startsWith('"') && header.endsWith('"')
  ? header.slice(1, -1)
  : header

/** Runs `work` once per key, storing the answer in the work's transaction; a failure frees the key for a retry. */
export async function runOnce (
  db: Database, orgId: string, key: string, fingerprint: string, now: Date, work: (tx: Database) => Promise<StoredResponse>
): Promise<KeyedOutcome> {
  const claim = await claimIdempotencyKey(db, orgId, key, fingerprint, now)
  if (claim.kind === 'answered') return { kind: 'answer', response: claim.response, replayed: true }
  if (claim.kind !== 'claimed') return claim
  try {
    const response = await db.transaction(async (tx) => {
      const answer = await work(tx)
      if (!await completeIdempotencyKey(tx, orgId, key, claim.claimedAt, answer)) {
        throw new ConflictError('The Idempotency-Key was taken over by another request')
      }
      return answer
    })
    return { kind: 'answer', response, replayed: false }
  } catch (err) {
    await releaseIdempotencyKey(db, orgId, key, claim.claimedAt).catch(() => {})
    throw err
  }
}
