// Organizations and memberships, rows only: the rules that govern them are the service's.
import { and, asc, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { apiKeys, invitations, memberships, organizations, users } from '../db/schema.ts'
import { ConflictError } from '../domain/errors.ts'
import type { Role } from '../domain/vocabulary.ts'

export type OrganizationRow = typeof organizations.$inferSelect
export type InvitationRow = typeof invitations.$inferSelect
export interface MemberRow { userId: string, email: string, role: Role, joinedAt: Date }

class SlugTakenError extends ConflictError {}

/** A user's personal organization: the trigger that makes it with the user gives it the user's id (drizzle/0024). */
export const personalOrgId = (userId: string): string => userId

export async function findOrganization (db: Database, orgId: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, orgId))
  return row
}

export async function findOrganizationBySlug (db: Database, slug: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.slug, slug))
  return row
}

/** Creates an organization with its first owner. */
export async function insertOrganization (db: Database, values: { name: string, slug: string, ownerId: string, now: Date }): Promise<OrganizationRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(organizations).values({ name: values.name, slug: values.slug, createdAt: values.now })
      .onConflictDoNothing().returning()
    if (!row) throw new SlugTakenError(`The slug ${values.slug} is taken`)
    await tx.insert(memberships).values({ orgId: row.id, userId: values.ownerId, role: 'owner', createdAt: values.now })
    return row
  })
}

/** Every organization with its member count, oldest first (the operator's list). */
export async function listOrganizations (db: Database): Promise<Array<OrganizationRow & { members: number }>> {
  return db.select({
    id: organizations.id,
    name: organizations.name,
    slug: organizations.slug,
    personalUserId: organizations.personalUserId,
    createdAt: organizations.createdAt,
    members: sql<number>`(select count(*)::int from memberships mc where mc.org_id = organizations.id)`,
  }).from(organizations).orderBy(asc(organizations.createdAt), asc(organizations.slug))
}

/** Changes name or slug; undefined when there is no such organization. */
export async function updateOrganization (
  db: Database, orgId: string, changes: { name?: string, slug?: string }
): Promise<OrganizationRow | undefined> {
  if (changes.name === undefined && changes.slug === undefined) return findOrganization(db, orgId)
  try {
    const [row] = await db.update(organizations).set(changes).where(eq(organizations.id, orgId)).returning()
    return row
  } catch (err) {
    // The unique index decides, so two renames to one slug at once cannot both win.
    if ((err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505') {
      throw new SlugTakenError(`The slug ${changes.slug} is taken`)
    }
    throw err
  }
}

/** Deletes the organization and, by the foreign keys, everything it holds; the row it was, or undefined. */
export async function deleteOrganizationRow (tx: Database, orgId: string): Promise<OrganizationRow | undefined> {
  const [row] = await tx.delete(organizations).where(eq(organizations.id, orgId)).returning()
  return row
}

const memberColumns = { userId: memberships.userId, email: users.email, role: memberships.role, joinedAt: memberships.createdAt }

export async function listMembers (db: Database, orgId: string): Promise<MemberRow[]> {
  return db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId)).orderBy(asc(memberships.createdAt), asc(users.email))
}

/**
 * The organization's members, each row locked until the end of the transaction: whoever changes roles holds
 * them all, so that two changes at once cannot both take away the last owner.
 */
export async function lockMembers (tx: Database, orgId: string): Promise<MemberRow[]> {
  return tx.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId)).orderBy(asc(memberships.createdAt), asc(users.email)).for('update', { of: memberships })
}

/** The user's role in the organization; undefined when they are no member. */
export async function memberRole (db: Database, orgId: string, userId: string): Promise<Role | undefined> {
  const [row] = await db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
  return row?.role
}

/** Adds the user as a member, or changes the role of one who is; the member as stored. */
export async function upsertMember (db: Database, orgId: string, userId: string, role: Role, now: Date): Promise<void> {
  await db.insert(memberships).values({ orgId, userId, role, createdAt: now })
    .onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role } })
}

export async function setMemberRole (tx: Database, orgId: string, userId: string, role: Role): Promise<void> {
  await tx.update(memberships).set({ role }).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
}

/** Ends the membership and deletes the keys the member made in the organization. */
export async function deleteMember (tx: Database, orgId: string, userId: string): Promise<void> {
  await tx.delete(apiKeys).where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.userId, userId)))
  await tx.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)))
}

export async function insertInvitation (
  db: Database, values: { orgId: string, email: string, role: Role, tokenHash: string, invitedBy: string, now: Date, expiresAt: Date }
): Promise<InvitationRow> {
  const [row] = await db.insert(invitations).values({
    orgId: values.orgId,
    email: values.email,
    role: values.role,
    tokenHash: values.tokenHash,
    invitedBy: values.invitedBy,
    createdAt: values.now,
    expiresAt: values.expiresAt,
  }).returning()
  return row
}

const pending = (now: Date) => and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now))

/** The organization's invitations that can still be accepted, newest first. */
export async function listPendingInvitations (db: Database, orgId: string, now: Date): Promise<InvitationRow[]> {
  return db.select().from(invitations).where(and(eq(invitations.orgId, orgId), pending(now))).orderBy(desc(invitations.createdAt))
}

/** Revokes a pending invitation of the organization; undefined when there is none such. */
export async function revokeInvitation (db: Database, orgId: string, id: string, now: Date): Promise<InvitationRow | undefined> {
  const [row] = await db.update(invitations).set({ revokedAt: now })
    .where(and(eq(invitations.id, id), eq(invitations.orgId, orgId), pending(now))).returning()
  return row
}

/** The pending invitation of this token for this email, with its organization's name; undefined otherwise. */
export async function findPendingInvitation (
  db: Database, tokenHash: string, email: string, now: Date
): Promise<(InvitationRow & { orgName: string }) | undefined> {
  const [row] = await db.select({ invitation: invitations, orgName: organizations.name }).from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .where(and(eq(invitations.tokenHash, tokenHash), eq(invitations.email, email), pending(now)))
  return row && { ...row.invitation, orgName: row.orgName }
}

/** Marks the pending invitation of this token for this email accepted, once; undefined when it is not pending. */
export async function takeInvitation (tx: Database, tokenHash: string, email: string, now: Date): Promise<InvitationRow | undefined> {
  const [row] = await tx.update(invitations).set({ acceptedAt: now })
    .where(and(eq(invitations.tokenHash, tokenHash), eq(invitations.email, email), pending(now))).returning()
  return row
}

/** Makes the user a member with `role` unless they are one already (an invitation never changes a role). */
export async function addMemberIfNew (tx: Database, orgId: string, userId: string, role: Role, now: Date): Promise<Role> {
  await tx.insert(memberships).values({ orgId, userId, role, createdAt: now }).onConflictDoNothing()
  return (await memberRole(tx, orgId, userId))!
}

/** The slugs of the organizations, besides the user's personal one, where the user is the only owner. */
export async function soleOwnerships (db: Database, userId: string): Promise<string[]> {
  const rows = await db.select({ slug: organizations.slug }).from(organizations)
    .innerJoin(memberships, and(eq(memberships.orgId, organizations.id), eq(memberships.userId, userId), eq(memberships.role, 'owner')))
    .where(sql`${organizations.personalUserId} is distinct from ${userId}
      and not exists (select 1 from memberships other where other.org_id = organizations.id and other.role = 'owner' and other.user_id <> ${userId})`)
    .orderBy(asc(organizations.slug))
  return rows.map((row) => row.slug)
}
