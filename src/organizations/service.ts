// The rules of members and roles (api-contract section 12): an organization always keeps an owner, and only an
// owner makes, changes or removes one.
import { createHash, randomBytes } from 'node:crypto'
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { ConflictError, RoleTooLowError } from '../domain/errors.ts'
import type { Role } from '../domain/vocabulary.ts'
import {
  addMemberIfNew, deleteMember, deleteOrganizationRow, findOrganization, findPendingInvitation, insertInvitation, insertOrganization, lockMembers, memberRole,
  revokeInvitation as revokeInvitationRow, setMemberRole, takeInvitation, updateOrganization, upsertMember,
  type InvitationRow, type MemberRow, type OrganizationRow,
} from './repository.ts'

/** How long an invitation can be accepted (api-contract section 12). */
const INVITATION_TTL_MS = 7 * 86_400_000

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')
const normalEmail = (email: string) => email.trim().toLowerCase()

/** Who asks: a member of the organization, with the role the request may use, and how the audit log names them. */
export interface Actor { orgId: string, role: Role, audit: AuditContext }

const memberShown = (member: { role: Role } | null) => member && { role: member.role }
const invitationShown = (row: InvitationRow) => ({ email: row.email, role: row.role, expires_at: row.expiresAt.toISOString() })

/** Renames the organization or changes its slug; undefined when there is none. */
export async function changeOrganization (
  db: Database, actor: Actor, changes: { name?: string, slug?: string }, now: Date
): Promise<OrganizationRow | undefined> {
  return atomically(db, async (tx) => {
    const before = await findOrganization(tx, actor.orgId)
    const after = before && await updateOrganization(tx, actor.orgId, changes)
    if (!before || !after) return undefined
    const shown = (row: OrganizationRow) => ({ name: row.name, slug: row.slug })
    if (before.name !== after.name || before.slug !== after.slug) {
      await recordChange(tx, actor.audit, { orgId: actor.orgId, action: 'organization.updated', entityId: actor.orgId, before: shown(before), after: shown(after), fields: ['name', 'slug'], at: now })
    }
    return after
  })
}

class PersonalOrganizationError extends ConflictError {
  constructor () { super('A personal organization goes with its user: delete the user instead (npm run -s cli -- users delete EMAIL)') }
}

/**
 * Deletes the organization with everything it holds (monitors and their history, channels, keys, members,
 * invitations, its audit log); only an owner may, and not a personal one. The deleted row, or undefined.
 */
export async function deleteOrganization (db: Database, actor: Actor): Promise<OrganizationRow | undefined> {
  if (actor.role !== 'owner') throw new RoleTooLowError('Only an owner may delete the organization')
  return atomically(db, async (tx) => {
    const org = await findOrganization(tx, actor.orgId)
    if (!org) return undefined
    if (org.personalUserId !== null) throw new PersonalOrganizationError()
    return deleteOrganizationRow(tx, actor.orgId)
  })
}

/** A new organization with `ownerId` its owner. */
export async function createOrganization (
  db: Database, values: { name: string, slug: string, ownerId: string, now: Date }, audit: AuditContext
): Promise<OrganizationRow> {
  return atomically(db, async (tx) => {
    const org = await insertOrganization(tx, values)
    const at = values.now
    await recordChange(tx, audit, { orgId: org.id, action: 'organization.created', entityId: org.id, before: null, after: { name: org.name, slug: org.slug }, fields: ['name', 'slug'], at })
    await recordChange(tx, audit, { orgId: org.id, action: 'member.added', entityId: values.ownerId, before: null, after: { role: 'owner' }, fields: ['role'], at })
    return org
  })
}

/** Adds the user to the organization with `role`; false when they are a member already. */
export async function addMember (db: Database, actor: Actor, userId: string, role: Role, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    if (await memberRole(tx, actor.orgId, userId) !== undefined) return false
    await upsertMember(tx, actor.orgId, userId, role, now)
    await recordChange(tx, actor.audit, { orgId: actor.orgId, action: 'member.added', entityId: userId, before: null, after: { role }, fields: ['role'], at: now })
    return true
  })
}

const OWNERS_ONLY = 'Only an owner may make, change or remove an owner'

class LastOwnerError extends ConflictError {
  constructor () { super('An organization keeps at least one owner: make another member an owner first') }
}

/** The member as it is before the change, all members locked; undefined when the user is not a member. */
async function lockedChange (tx: Database, actor: Actor, userId: string, newRole: Role | null): Promise<MemberRow | undefined> {
  const members = await lockMembers(tx, actor.orgId)
  const member = members.find((m) => m.userId === userId)
  if (!member) return undefined
  if ((member.role === 'owner' || newRole === 'owner') && actor.role !== 'owner') throw new RoleTooLowError(OWNERS_ONLY)
  const ownersLeft = members.filter((m) => m.role === 'owner' && m.userId !== userId).length + (newRole === 'owner' ? 1 : 0)
  if (member.role === 'owner' && ownersLeft === 0) throw new LastOwnerError()
  return member
}

/** Gives the member a new role; undefined when the user is not a member. */
export async function changeMemberRole (db: Database, actor: Actor, userId: string, role: Role, now: Date): Promise<MemberRow | undefined> {
  return atomically(db, async (tx) => {
    const member = await lockedChange(tx, actor, userId, role)
    if (!member) return undefined
    if (member.role !== role) {
      await setMemberRole(tx, actor.orgId, userId, role)
      await recordChange(tx, actor.audit, { orgId: actor.orgId, action: 'member.role_changed', entityId: userId, before: memberShown(member), after: { role }, fields: ['role'], at: now })
    }
    return { ...member, role }
  })
}

/** Removes the member and the keys they made here; false when the user is not a member. */
export async function removeMember (db: Database, actor: Actor, userId: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const member = await lockedChange(tx, actor, userId, null)
    if (!member) return false
    await deleteMember(tx, actor.orgId, userId)
    await recordChange(tx, actor.audit, { orgId: actor.orgId, action: 'member.removed', entityId: userId, before: memberShown(member), after: null, fields: ['role'], at: now })
    return true
  })
}

/** A new invitation and its token, which only its link carries: only a hash is stored. An owner's takes an owner. */
export async function inviteMember (
  db: Database, actor: Actor & { userId: string }, input: { email: string, role: Role }, now: Date
): Promise<{ invitation: InvitationRow, token: string }> {
  if (input.role === 'owner' && actor.role !== 'owner') throw new RoleTooLowError(OWNERS_ONLY)
  const token = randomBytes(32).toString('base64url')
  return atomically(db, async (tx) => {
    const invitation = await insertInvitation(tx, {
      orgId: actor.orgId,
      email: normalEmail(input.email),
      role: input.role,
      tokenHash: tokenHash(token),
      invitedBy: actor.userId,
      now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    })
    await recordChange(tx, actor.audit, {
      orgId: actor.orgId, action: 'invitation.created', entityId: invitation.id, before: null, after: invitationShown(invitation), fields: INVITATION_FIELDS, at: now,
    })
    return { invitation, token }
  })
}

const INVITATION_FIELDS = ['email', 'role', 'expires_at']

/** Revokes the organization's pending invitation; false when there is none such. */
export async function revokeInvitation (db: Database, actor: Actor, id: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const revoked = await revokeInvitationRow(tx, actor.orgId, id, now)
    if (revoked) {
      await recordChange(tx, actor.audit, { orgId: actor.orgId, action: 'invitation.revoked', entityId: id, before: invitationShown(revoked), after: null, fields: INVITATION_FIELDS, at: now })
    }
    return revoked !== undefined
  })
}

/** The invitation the user may accept with this token (theirs, pending), with the organization's name. */
export function pendingInvitationFor (db: Database, user: { email: string }, token: string, now: Date) {
  return findPendingInvitation(db, tokenHash(token), normalEmail(user.email), now)
}

/**
 * Accepts the invitation for the user it was sent to, once: the user becomes a member with its role (one who is
 * already keeps theirs). Undefined when the token is used, expired, revoked or another email's.
 */
export async function acceptInvitation (
  db: Database, user: { id: string, email: string }, token: string, now: Date, audit: AuditContext
): Promise<{ orgId: string, role: Role } | undefined> {
  return atomically(db, async (tx) => {
    const invitation = await takeInvitation(tx, tokenHash(token), normalEmail(user.email), now)
    if (!invitation) return undefined
    const orgId = invitation.orgId
    const was = await memberRole(tx, orgId, user.id)
    const role = await addMemberIfNew(tx, orgId, user.id, invitation.role, now)
    await recordChange(tx, audit, { orgId, action: 'invitation.accepted', entityId: invitation.id, before: null, after: null, fields: [], at: now })
    if (was === undefined) await recordChange(tx, audit, { orgId, action: 'member.added', entityId: user.id, before: null, after: { role }, fields: ['role'], at: now })
    return { orgId, role }
  })
}
