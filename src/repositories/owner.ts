// Whose data a statement reads or writes: an organization's (the dashboard's, whose session checked the
// membership), or the organization of the API key that made the request.
import { sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { apiKeys, memberships, monitors } from '../db/schema.ts'
import { ApiKeyGoneError } from '../domain/errors.ts'

/**
 * The owner of the rows a statement may touch. The API passes the request's key, not its organization: the
 * statement finds the key's organization through its maker's membership, so a deleted key, or one whose maker
 * left, finds nothing on its next request whatever the auth plugin cached.
 */
export type Owner = { orgId: string } | KeyOwner
export type KeyOwner = { keyId: string }
export type OwnerKind = 'key' | 'org'

const ownerKind = (owner: Owner): OwnerKind => 'keyId' in owner ? 'key' : 'org'
/** The value of the `owner` placeholder of ownerRow(). */
export const ownerValue = (owner: Owner): string => 'keyId' in owner ? owner.keyId : owner.orgId

/** `o(org_id)`, which reads LEFT JOIN to: no row means the owner is gone, a row of nulls a missing resource. */
export function ownerRow (kind: OwnerKind): SQL {
  return kind === 'key'
    ? sql`(select k.org_id from ${apiKeys} k
        join ${memberships} mb on mb.org_id = k.org_id and mb.user_id = k.user_id where k.id = ${sql.placeholder('owner')}) o`
    : sql`(select ${sql.placeholder('owner')}::uuid as org_id) o`
}

/** The owner's live monitor of that id, or a row of nulls: the one place that says which monitors an owner may read. */
export function ownedMonitorRow (kind: OwnerKind, idPlaceholder: string): SQL {
  return sql`from ${ownerRow(kind)}
    left join ${monitors} m on m.id = ${sql.placeholder(idPlaceholder)} and m.org_id = o.org_id and m.deleted_at is null`
}

/** The statement of each kind of owner, built on first use. */
export function perOwnerKind<T> (build: (kind: OwnerKind) => T): (owner: Owner) => T {
  const built: Partial<Record<OwnerKind, T>> = {}
  return (owner) => {
    const kind = ownerKind(owner)
    built[kind] ??= build(kind)
    return built[kind]
  }
}

const keyOrgStatement = preparedSql('key_org', () => sql`select o.org_id from ${ownerRow('key')}`)

/** The owner's organization id, or ApiKeyGoneError: for work of several statements that needs it. */
export async function ownerOrgId (db: Database, owner: Owner): Promise<string> {
  if ('orgId' in owner) return owner.orgId
  const rows = rowsOf<{ org_id: string }>(await keyOrgStatement(db).execute({ owner: owner.keyId }))
  assertOwnerFound(owner, rows)
  return rows[0].org_id
}

/** Throws ApiKeyGoneError when a statement starting from ownerRow() found no owner row. */
export function assertOwnerFound (owner: Owner, rows: readonly unknown[]): void {
  if (rows.length === 0 && 'keyId' in owner) throw new ApiKeyGoneError(owner.keyId)
}

/** The row a read's LEFT JOIN gives when it found nothing: every field of T null. */
export type NullRow<T> = { [K in keyof T]: null }

/** False when a read from ownerRow() gave its one row of nulls, meaning nothing was found. */
export function foundRows<Row extends { id: string | null }> (rows: Row[]): rows is Array<Extract<Row, { id: string }>> {
  return rows.length > 0 && rows[0].id !== null
}
