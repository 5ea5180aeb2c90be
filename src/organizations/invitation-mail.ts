// The mail that carries an invitation's link, the same from the API and the dashboard.
import type { Outgoing } from '../notifications/channels/types.ts'
import type { InvitationRow } from './repository.ts'

export function invitationMail (options: { invitation: InvitationRow, orgName: string, inviter: string, acceptUrl: string }): Extract<Outgoing, { kind: 'email' }> {
  const { invitation, orgName, inviter, acceptUrl } = options
  return {
    kind: 'email',
    to: [invitation.email],
    subject: `You are invited to ${orgName} on Pingward`,
    text: `${inviter} invites you to join ${orgName} on Pingward as ${invitation.role}.\n\n` +
      `Accept: ${acceptUrl}\n\nSign in as ${invitation.email} to accept. The link works once, until ${invitation.expiresAt.toISOString()}.\n`,
    messageId: `<invitation-${invitation.id}@pingward>`,
  }
}
