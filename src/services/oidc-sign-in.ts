// Who an OpenID Connect sign-in lets in: the highest role its claim values map to, in the one configured
// organization. The user is made on their first sign-in; the provider's groups decide the role at every sign-in.
import type { Database } from '../db/client.ts'
import { systemAudit } from '../domain/audit.ts'
import { ConflictError } from '../domain/errors.ts'
import { includesRole } from '../domain/roles.ts'
import type { Role } from '../domain/vocabulary.ts'
import { findOrganizationBySlug, memberRole } from '../organizations/repository.ts'
import { addMember, changeMemberRole } from '../organizations/service.ts'
import { createUser, findUserByEmail } from '../repositories/users.ts'

const OIDC_AUDIT = systemAudit('oidc')

export type OidcSignIn =
  | { kind: 'member', userId: string, orgId: string, role: Role }
  | { kind: 'no-role' }
  | { kind: 'no-organization' }

/** The highest role that any of the values maps to; undefined when none does. */
function mappedRole (claimValues: readonly string[], roleMap: ReadonlyMap<string, Role>): Role | undefined {
  let highest: Role | undefined
  for (const value of claimValues) {
    const role = roleMap.get(value)
    if (role && (highest === undefined || !includesRole(highest, role))) highest = role
  }
  return highest
}

export async function signInWithOidc (
  db: Database, identity: { email: string, claimValues: string[] }, options: { roleMap: ReadonlyMap<string, Role>, orgSlug: string, now: Date }
): Promise<OidcSignIn> {
  const role = mappedRole(identity.claimValues, options.roleMap)
  if (!role) return { kind: 'no-role' }
  const org = await findOrganizationBySlug(db, options.orgSlug)
  if (!org) return { kind: 'no-organization' }
  const user = await findUserByEmail(db, identity.email) ?? await createUser(db, identity.email)
  const actor = { orgId: org.id, role: 'owner' as const, audit: OIDC_AUDIT }
  const current = await memberRole(db, org.id, user.id)
  if (current === undefined) {
    await addMember(db, actor, user.id, role, options.now)
  } else if (current !== role) {
    try {
      await changeMemberRole(db, actor, user.id, role, options.now)
    } catch (err) {
      // The last owner keeps the role until another member is made owner.
      if (!(err instanceof ConflictError)) throw err
    }
  }
  return { kind: 'member', userId: user.id, orgId: org.id, role: (await memberRole(db, org.id, user.id))! }
}
