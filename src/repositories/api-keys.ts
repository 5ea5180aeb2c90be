// API keys: create (the key is returned once), look up by hash, list, delete, last use.
import type { ApiKeyScope } from '../domain/vocabulary.ts'
import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { preparedPerDatabase } from '../db/prepared.ts'
import { apiKeys } from '../db/schema.ts'
import { generateApiKey, hashApiKey, keyPrefix } from '../auth/keys.ts'

export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, 'keyHash'>

/** What a request needs to know about the key it carries. */
export interface ApiKeyPrincipal {
  keyId: string
  userId: string
  scope: ApiKeyScope
  lastUsedAt: Date | null
  /** Fixed at creation: a key never changes, it is only deleted. */
  expiresAt: Date | null
}

// last_used_at is written at most once a minute per key, so reads do not turn into writes.
const LAST_USED_RESOLUTION_MS = 60_000

export async function createApiKey (
  db: Database,
  input: { userId: string, name: string, scope: ApiKeyScope, expiresAt?: Date | null }
): Promise<{ key: string, record: ApiKeyRecord }> {
  const key = generateApiKey()
  const [row] = await db.insert(apiKeys).values({
    userId: input.userId,
    name: input.name,
    scope: input.scope,
    expiresAt: input.expiresAt ?? null,
    keyHash: hashApiKey(key),
    prefix: keyPrefix(key),
  }).returning()
  const { keyHash: _hash, ...record } = row
  return { key, record }
}

// Every API request looks its key up.
const findKeyStatement = preparedPerDatabase((db) => db.select({
  keyId: apiKeys.id,
  userId: apiKeys.userId,
  scope: apiKeys.scope,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
}).from(apiKeys)
  .where(and(eq(apiKeys.keyHash, sql.placeholder('hash')), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now')))))
  .prepare('find_active_key'))

/** The key's owner and scope, when the key exists and has not expired. */
export async function findActiveKey (db: Database, key: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
  const [row] = await findKeyStatement(db).execute({ hash: hashApiKey(key), now: now.toISOString() })
  return row
}

export function lastUseIsStale (principal: ApiKeyPrincipal, now: Date): boolean {
  return !principal.lastUsedAt || now.getTime() - principal.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS
}

export async function touchApiKey (db: Database, keyId: string, now: Date): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: now }).where(and(
    eq(apiKeys.id, keyId),
    or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)))
  ))
}

export async function listApiKeys (db: Database, userId: string): Promise<ApiKeyRecord[]> {
  return db.select({
    id: apiKeys.id,
    userId: apiKeys.userId,
    name: apiKeys.name,
    prefix: apiKeys.prefix,
    scope: apiKeys.scope,
    createdAt: apiKeys.createdAt,
    lastUsedAt: apiKeys.lastUsedAt,
    expiresAt: apiKeys.expiresAt,
  }).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt))
}

/** Revokes the key at once; false when there was no such key. */
export async function deleteApiKey (db: Database, keyId: string): Promise<boolean> {
  const rows = await db.delete(apiKeys).where(eq(apiKeys.id, keyId)).returning({ id: apiKeys.id })
  return rows.length > 0
}

/** Revokes the key only when it belongs to the user (the dashboard); false otherwise, as if it did not exist. */
export async function deleteApiKeyOfUser (db: Database, userId: string, keyId: string): Promise<boolean> {
  const rows = await db.delete(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))).returning({ id: apiKeys.id })
  return rows.length > 0
}
