// The rules of members and roles (api-contract section 12): an organization always keeps an owner, and only an
// owner makes, changes or removes one.
import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '../db/client.ts'
import { ConflictError, RoleTooLowError } from '../domain/errors.ts'
import type { Role } from '../domain/vocabulary.ts'
import {
  addMemberIfNew, deleteMember, findPendingInvitation, insertInvitation, lockMembers, setMemberRole, takeInvitation,
  type InvitationRow, type MemberRow,
} from './repository.ts'

/** How long an invitation can be accepted (api-contract section 12). */
const INVITATION_TTL_MS = 7 * 86_400_000

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')
const normalEmail = (email: string) => email.trim().toLowerCase()

/** Who asks: a member of the organization, with the role the request may use. */
export interface Actor { orgId: string, role: Role }

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
export async function changeMemberRole (db: Database, actor: Actor, userId: string, role: Role): Promise<MemberRow | undefined> {
  return db.transaction(async (tx) => {
    const member = await lockedChange(tx, actor, userId, role)
    if (!member) return undefined
    if (member.role !== role) await setMemberRole(tx, actor.orgId, userId, role)
    return { ...member, role }
  })
}

/** Removes the member and the keys they made here; false when the user is not a member. */
export async function removeMember (db: Database, actor: Actor, userId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (!await lockedChange(tx, actor, userId, null)) return false
    await deleteMember(tx, actor.orgId, userId)
    return true
  })
}

/** A new invitation and its token, which only its link carries: only a hash is stored. An owner's takes an owner. */
export async function inviteMember (
  db: Database, actor: Actor & { userId: string }, input: { email: string, role: Role }, now: Date
): Promise<{ invitation: InvitationRow, token: string }> {
  if (input.role === 'owner' && actor.role !== 'owner') throw new RoleTooLowError(OWNERS_ONLY)
  const token = randomBytes(32).toString('base64url')
  const invitation = await insertInvitation(db, {
    orgId: actor.orgId,
    email: normalEmail(input.email),
    role: input.role,
    tokenHash: tokenHash(token),
    invitedBy: actor.userId,
    now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  })
  return { invitation, token }
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
  db: Database, user: { id: string, email: string }, token: string, now: Date
): Promise<{ orgId: string, role: Role } | undefined> {
  return db.transaction(async (tx) => {
    const invitation = await takeInvitation(tx, tokenHash(token), normalEmail(user.email), now)
    if (!invitation) return undefined
    return { orgId: invitation.orgId, role: await addMemberIfNew(tx, invitation.orgId, user.id, invitation.role, now) }
  })
}
