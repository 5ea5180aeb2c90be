// The mail that carries an invitation's link, sent the same way from the API and the dashboard.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { createEmailSender } from '../notifications/email-sender.ts'
import type { Config } from '../runtime/config.ts'
import { findOrganization, type InvitationRow } from './repository.ts'

export type MailInvitation = (invitation: InvitationRow, options: { inviter: string, acceptUrl: string, log: FastifyBaseLogger }) => boolean

/**
 * Mails invitations when SMTP_URL is set (the sender is made on first use and closed with the app); answers whether
 * it sends. Not awaited: the link is in the answer, so a mail that fails is logged, not a failed invitation.
 */
export function invitationMailer (app: FastifyInstance, config: Config): MailInvitation {
  let made: ReturnType<typeof createEmailSender> | undefined
  app.addHook('onClose', async () => { await made?.close() })
  return (invitation, { inviter, acceptUrl, log }) => {
    const sender = made === undefined ? (made = createEmailSender(config)) : made
    if (!sender) return false
    const sending = findOrganization(app.db, invitation.orgId)
      .then((org) => sender.send(invitationMail({ invitation, orgName: org?.name ?? 'an organization', inviter, acceptUrl })))
      .then((sent) => { if (!sent.ok) log.warn({ invitation: invitation.id, error: sent.error }, 'invitation mail not sent') })
    app.backgroundWrites.track(sending, 'mail an invitation', log)
    return true
  }
}

function invitationMail (options: { invitation: InvitationRow, orgName: string, inviter: string, acceptUrl: string }) {
  const { invitation, orgName, inviter, acceptUrl } = options
  return {
    kind: 'email' as const,
    to: [invitation.email],
    subject: `You are invited to ${orgName} on Pingward`,
    text: `${inviter} invites you to join ${orgName} on Pingward as ${invitation.role}.\n\n` +
      `Accept: ${acceptUrl}\n\nSign in as ${invitation.email} to accept. The link works once, until ${invitation.expiresAt.toISOString()}.\n`,
    messageId: `<invitation-${invitation.id}@pingward>`,
  }
}
