// The organization in the dashboard: show another of the user's organizations, and Settings, then Members.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { includesRole } from '../../domain/roles.ts'
import { bodyValidator } from '../../http/validation.ts'
import { CreateInvitationSchema } from '../../organizations/schema.ts'
import { HttpError } from '../../http/error-catalog.ts'
import { ROLES, type Role } from '../../domain/vocabulary.ts'
import { DomainError } from '../../domain/errors.ts'
import { invitationMailer } from '../../organizations/invitation-mail.ts'
import { invitationUrl } from '../../organizations/presenter.ts'
import { findOrganization, listMembers, listPendingInvitations } from '../../organizations/repository.ts'
import { acceptInvitation, changeMemberRole, deleteOrganization, inviteMember, pendingInvitationFor, removeMember, revokeInvitation, type Actor } from '../../organizations/service.ts'
import type { Config } from '../../runtime/config.ts'
import { switchSessionOrganization } from '../../repositories/sessions.ts'
import { StringEnum, Uuid } from '../../schemas/common.ts'
import { invitationPage, membersPage } from '../pages/members.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'

const MemberParams = Type.Object({ user_id: Uuid('Id of the member\'s user') }, { additionalProperties: false })
const Form = Type.Record(Type.String(), Type.String())
const MEMBERS_PATH = '/settings/members'
// The API's rules for an invitation, with its messages.
const checkInvitation = bodyValidator<{ email: string, role: Role }>(CreateInvitationSchema)
const TokenParams = Type.Object({ token: Type.String({ pattern: '^[\\w-]{43}$' }) }, { additionalProperties: false })
const INVALID_INVITATION = 'This invitation is not valid: it has been accepted, revoked or has expired, or it was sent to another email ' +
  'than the one you signed in with.'

/** The signed-in member as the organization's rules and its audit log see them. */
function actorOf (request: FastifyRequest): Actor {
  return { orgId: request.session!.orgId, role: request.session!.role, audit: sessionAudit(request) }
}

const dashboardOrganizationRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const mailInvitation = invitationMailer(app, config)

  app.post('/organization', {
    config: { role: 'viewer' },
    schema: { hide: true, body: Type.Object({ org_id: Uuid('The organization to show'), _csrf: Type.String() }) },
  }, async (request, reply) => {
    if (!await switchSessionOrganization(app.db, request.session!.id, request.body.org_id)) {
      throw new HttpError(404, 'You are not a member of that organization.')
    }
    return seeOther(reply, '/')
  })

  async function renderMembers (request: FastifyRequest, reply: FastifyReply, options: { notice?: string, created?: { email: string, url: string, mailed: boolean }, error?: string, deleteError?: string, status?: number }) {
    const session = request.session!
    const [members, invitations, organization] = await Promise.all([
      listMembers(app.db, session.orgId),
      includesRole(session.role, 'admin') ? listPendingInvitations(app.db, session.orgId, app.clock()) : [],
      findOrganization(app.db, session.orgId),
    ])
    const page = membersPage(pageContext(app, request, reply), { members, invitations, organization: organization!, userId: session.userId, ...options })
    return sendPage(reply, page, options.status)
  }

  app.get(MEMBERS_PATH, {
    config: { role: 'viewer' },
    schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
  }, async (request, reply) => renderMembers(request, reply, { notice: request.query.notice }))

  app.post(`${MEMBERS_PATH}/invitations`, { config: { role: 'admin' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const session = request.session!
    const input = checkInvitation({ email: (request.body.email ?? '').trim(), role: request.body.role })
    if (!input.ok) return renderMembers(request, reply, { error: `The invitation was not made: ${input.error.message.replace(/^body\//, '')}.`, status: 400 })
    let made
    try {
      made = await inviteMember(app.db, { ...actorOf(request), userId: session.userId }, input.value, app.clock())
    } catch (err) {
      if (err instanceof DomainError) return renderMembers(request, reply, { error: 'Only an owner may invite an owner.', status: 403 })
      throw err
    }
    const url = invitationUrl(config.PUBLIC_URL, made.token)
    const mailed = mailInvitation(made.invitation, { inviter: session.email, acceptUrl: url, log: request.log })
    return renderMembers(request, reply, { created: { email: made.invitation.email, url, mailed } })
  })

  app.post(`${MEMBERS_PATH}/invitations/:id/revoke`, {
    config: { role: 'admin' }, schema: { hide: true, params: Type.Object({ id: Uuid('Id of the invitation') }), body: Form },
  }, async (request, reply) => {
    if (!await revokeInvitation(app.db, actorOf(request), request.params.id, app.clock())) throw new HttpError(404, 'There is no such invitation waiting.')
    return seeOther(reply, `${MEMBERS_PATH}?notice=invitation-revoked`)
  })

  // The token is the credential: the log names the route, not the URL.
  app.get('/invitations/:token', { config: { role: 'viewer', secretInPath: true }, schema: { hide: true, params: TokenParams } }, async (request, reply) => {
    const invitation = await pendingInvitationFor(app.db, request.session!, request.params.token, app.clock())
    if (!invitation) throw new HttpError(404, INVALID_INVITATION)
    return sendPage(reply, invitationPage(pageContext(app, request, reply), { token: request.params.token, orgName: invitation.orgName, role: invitation.role }))
  })

  app.post('/invitations/:token', { config: { role: 'viewer', secretInPath: true }, schema: { hide: true, params: TokenParams, body: Form } }, async (request, reply) => {
    const session = request.session!
    const accepted = await acceptInvitation(app.db, { id: session.userId, email: session.email }, request.params.token, app.clock(), sessionAudit(request))
    if (!accepted) throw new HttpError(404, INVALID_INVITATION)
    await switchSessionOrganization(app.db, session.id, accepted.orgId)
    return seeOther(reply, '/?notice=invitation-accepted')
  })

  app.post(`${MEMBERS_PATH}/:user_id/role`, {
    config: { role: 'admin' },
    schema: { hide: true, params: MemberParams, body: Type.Object({ role: StringEnum(ROLES), _csrf: Type.String() }) },
  }, async (request, reply) => {
    if (!await changeMemberRole(app.db, actorOf(request), request.params.user_id, request.body.role, app.clock())) throw new HttpError(404, 'There is no such member.')
    return seeOther(reply, `${MEMBERS_PATH}?notice=member-saved`)
  })

  app.post(`${MEMBERS_PATH}/delete-organization`, { config: { role: 'owner' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const organization = await findOrganization(app.db, request.session!.orgId)
    if (request.body.confirm?.trim() !== organization?.slug) {
      return renderMembers(request, reply, { deleteError: 'Type the organization\'s slug to delete it.', status: 400 })
    }
    try {
      await deleteOrganization(app.db, actorOf(request))
    } catch (err) {
      if (err instanceof DomainError) return renderMembers(request, reply, { deleteError: err.message, status: 409 })
      throw err
    }
    request.log.info({ org: organization.id, slug: organization.slug, actor: sessionAudit(request).actor }, 'organization deleted')
    return seeOther(reply, '/?notice=organization-deleted')
  })

  app.post(`${MEMBERS_PATH}/:user_id/remove`, { config: { role: 'admin' }, schema: { hide: true, params: MemberParams, body: Form } }, async (request, reply) => {
    if (!await removeMember(app.db, actorOf(request), request.params.user_id, app.clock())) throw new HttpError(404, 'There is no such member.')
    return seeOther(reply, `${MEMBERS_PATH}?notice=member-removed`)
  })
}

export default dashboardOrganizationRoutes
