// API keys: create (the key is returned once), look up by hash, list, delete, last use.
import { SCOPE_ROLES, type ApiKeyScope, type Role } from '../domain/vocabulary.ts'
import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { preparedPerDatabase } from '../db/prepared.ts'
import { apiKeys, memberships } from '../db/schema.ts'
import { generateApiKey, hashApiKey, keyPrefix } from '../auth/keys.ts'
import { lowerRole } from '../domain/roles.ts'

export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, 'keyHash'>

/** What a request needs to know about the key it carries. */
export interface ApiKeyPrincipal {
  keyId: string
  userId: string
  orgId: string
  scope: ApiKeyScope
  /** What the key may do now: the lower of its scope and its maker's role in its organization. */
  role: Role
  /** How the audit log names the key: its name and prefix. */
  label: string
  lastUsedAt: Date | null
  /** Fixed at creation: a key never changes, it is only deleted. */
  expiresAt: Date | null
}

// last_used_at is written at most once a minute per key, so reads do not turn into writes.
const LAST_USED_RESOLUTION_MS = 60_000

export async function createApiKey (
  db: Database,
  input: { userId: string, orgId: string, name: string, scope: ApiKeyScope, expiresAt?: Date | null }
): Promise<{ key: string, record: ApiKeyRecord }> {
  const key = generateApiKey()
  const [row] = await db.insert(apiKeys).values({
    userId: input.userId,
    orgId: input.orgId,
    name: input.name,
    scope: input.scope,
    expiresAt: input.expiresAt ?? null,
    keyHash: hashApiKey(key),
    prefix: keyPrefix(key),
  }).returning()
  const { keyHash: _hash, ...record } = row
  return { key, record }
}

/** A key as people tell it apart: its name and the prefix its list shows. */
const keyLabel = (key: { name: string, prefix: string }): string => `${key.name} (${key.prefix}…)`

// Every API request looks its key up, with its maker's membership: a key whose maker left is not found.
const findKeyStatement = preparedPerDatabase((db) => db.select({
  keyId: apiKeys.id,
  userId: apiKeys.userId,
  orgId: apiKeys.orgId,
  scope: apiKeys.scope,
  makerRole: memberships.role,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
}).from(apiKeys)
  .innerJoin(memberships, and(eq(memberships.orgId, apiKeys.orgId), eq(memberships.userId, apiKeys.userId)))
  .where(and(eq(apiKeys.keyHash, sql.placeholder('hash')), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql.placeholder('now')))))
  .prepare('find_active_key'))

/** The key's organization, maker and power, when the key exists, has not expired and its maker is a member. */
export async function findActiveKey (db: Database, key: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
  const [row] = await findKeyStatement(db).execute({ hash: hashApiKey(key), now: now.toISOString() })
  if (!row) return undefined
  const { makerRole, name, prefix, ...principal } = row
  return { ...principal, role: lowerRole(SCOPE_ROLES[row.scope], makerRole), label: keyLabel({ name, prefix }) }
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

/** The user's keys, oldest first: in one organization, or in all of them. */
export async function listApiKeys (db: Database, userId: string, orgId?: string): Promise<ApiKeyRecord[]> {
  return db.select({
    id: apiKeys.id,
    orgId: apiKeys.orgId,
    userId: apiKeys.userId,
    name: apiKeys.name,
    prefix: apiKeys.prefix,
    scope: apiKeys.scope,
    createdAt: apiKeys.createdAt,
    lastUsedAt: apiKeys.lastUsedAt,
    expiresAt: apiKeys.expiresAt,
  }).from(apiKeys).where(and(eq(apiKeys.userId, userId), orgId === undefined ? undefined : eq(apiKeys.orgId, orgId)))
    .orderBy(asc(apiKeys.createdAt))
}

/** Revokes the key at once, only the user's when `userId` is given; the key it was, or undefined when there was none. */
export async function deleteApiKey (db: Database, keyId: string, userId?: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await db.delete(apiKeys).where(and(eq(apiKeys.id, keyId), userId === undefined ? undefined : eq(apiKeys.userId, userId))).returning()
  if (!row) return undefined
  const { keyHash: _hash, ...record } = row
  return record
}
