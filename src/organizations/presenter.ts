// The API's shape of an organization and of a member.
import type { Role } from '../domain/vocabulary.ts'
import type { InvitationRow, MemberRow, OrganizationRow } from './repository.ts'

export const presentOrganization = (row: OrganizationRow, role: Role) => ({
  id: row.id, name: row.name, slug: row.slug, role, created_at: row.createdAt.toISOString(),
})

export const presentMember = (row: MemberRow) => ({
  user_id: row.userId, email: row.email, role: row.role, joined_at: row.joinedAt.toISOString(),
})

export const presentInvitation = (row: InvitationRow) => ({
  id: row.id, email: row.email, role: row.role, created_at: row.createdAt.toISOString(), expires_at: row.expiresAt.toISOString(),
})

/** Where an invitation's token is accepted: the dashboard's page, at the server's public address. */
export const invitationUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/+$/, '')}/invitations/${token}`
