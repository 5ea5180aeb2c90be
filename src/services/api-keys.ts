// An API key made or deleted, with its audit event in the same transaction. The key itself is never recorded.
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import type { ApiKeyScope } from '../domain/vocabulary.ts'
import { createApiKey, deleteApiKey, type ApiKeyRecord } from '../repositories/api-keys.ts'

const AUDITED_FIELDS = ['name', 'prefix', 'scope', 'user_id', 'expires_at']
const keyShown = (record: ApiKeyRecord) => ({
  name: record.name, prefix: record.prefix, scope: record.scope, user_id: record.userId, expires_at: record.expiresAt?.toISOString() ?? null,
})

/** A new key of `userId` in `orgId`: the key, shown once, and its record. */
export async function makeApiKey (
  db: Database, input: { userId: string, orgId: string, name: string, scope: ApiKeyScope, expiresAt?: Date | null }, now: Date, audit: AuditContext
): Promise<{ key: string, record: ApiKeyRecord }> {
  return atomically(db, async (tx) => {
    const made = await createApiKey(tx, input)
    const { record } = made
    await recordChange(tx, audit, { orgId: record.orgId, action: 'api_key.created', entityId: record.id, before: null, after: keyShown(record), fields: AUDITED_FIELDS, at: now })
    return made
  })
}

/** Revokes the key at once, only the user's when `userId` is given; false when there is no such key. */
export async function revokeApiKey (db: Database, keyId: string, options: { userId?: string, now: Date, audit: AuditContext }): Promise<boolean> {
  return atomically(db, async (tx) => {
    const record = await deleteApiKey(tx, keyId, options.userId)
    if (!record) return false
    await recordChange(tx, options.audit, { orgId: record.orgId, action: 'api_key.deleted', entityId: keyId, before: keyShown(record), after: null, fields: AUDITED_FIELDS, at: options.now })
    return true
  })
}
