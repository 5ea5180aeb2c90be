// The organization API, HTTP only: the caller's organization and its members (api-contract section 12). The
// service decides what a role may change; the presenter shapes the answer.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedKeyOf, keyAudit } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import type { Config } from '../runtime/config.ts'
import { findUserById } from '../repositories/users.ts'
import { invitationMailer } from './invitation-mail.ts'
import { invitationUrl, presentInvitation, presentMember, presentOrganization } from './presenter.ts'
import { findOrganization, listMembers, listPendingInvitations } from './repository.ts'
import {
  AcceptedInvitationEnvelope, AcceptInvitationSchema, CreatedInvitationEnvelope, CreateInvitationSchema, InvitationListEnvelope,
  InvitationParams, MemberEnvelope, MemberListEnvelope, MemberParams, OrganizationEnvelope, UpdateMemberSchema, UpdateOrganizationSchema,
} from './schema.ts'
import { acceptInvitation, changeMemberRole, changeOrganization, deleteOrganization, inviteMember, removeMember, revokeInvitation, type Actor } from './service.ts'

const MEMBER_NOT_FOUND = 'Member not found'
const memberNotFound = () => new HttpError(404, MEMBER_NOT_FOUND)
const LAST_OWNER = 'An organization keeps at least one owner: make another member an owner first'

function memberErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such member of the caller\'s organization', MEMBER_NOT_FOUND)
  return responses
}

const INVITATION_NOT_FOUND = 'Invitation not found'

/** The key's maker as the organization's rules and its audit log see them. */
function actorOf (request: FastifyRequest): Actor & { userId: string } {
  const key = confirmedKeyOf(request)
  return { orgId: key.orgId, role: key.role, userId: key.userId, audit: keyAudit(request) }
}

const organizationRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const mailInvitation = invitationMailer(app, config)

  /** The key's organization as stored: a key is confirmed only while its organization and membership exist. */
  async function organizationOf (orgId: string) {
    const row = await findOrganization(app.db, orgId)
    if (!row) throw new HttpError(401)
    return row
  }

  app.get('/organization', {
    schema: {
      tags: ['organization'],
      summary: 'Get the organization',
      description: 'The organization the API key belongs to, and what the key may do there (`role`).',
      operationId: 'getOrganization',
      response: { 200: OrganizationEnvelope, ...errorResponses() },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const key = confirmedKeyOf(request)
    return { data: presentOrganization(await organizationOf(key.orgId), key.role) }
  })

  app.patch('/organization', {
    schema: {
      tags: ['organization'],
      summary: 'Update the organization',
      description: 'Renames the organization or changes its slug; `{}` is a no-op. A slug another organization has is refused with 409.',
      operationId: 'updateOrganization',
      body: Type.Ref(UpdateOrganizationSchema),
      response: {
        200: OrganizationEnvelope,
        ...errorResponses(400, 403, 413, 415),
        409: errorResponse(409, 'Another organization has this slug', 'The slug acme is taken'),
      },
    },
    config: { role: 'admin' },
  }, async (request) => {
    const key = confirmedKeyOf(request)
    const row = await changeOrganization(app.db, actorOf(request), request.body, app.clock())
    if (!row) throw new HttpError(401)
    return { data: presentOrganization(row, key.role) }
  })

  app.delete('/organization', {
    schema: {
      tags: ['organization'],
      summary: 'Delete the organization',
      description: 'Deletes the organization with everything it holds: monitors and their history, channels and deliveries, ' +
        'API keys (this one too), members, invitations and its audit log. Members keep their users and other organizations. ' +
        'A personal organization goes only with its user (409).',
      operationId: 'deleteOrganization',
      response: {
        204: Type.Null({ description: 'Deleted; no body' }),
        ...errorResponses(403, 413, 415),
        409: errorResponse(409, 'A personal organization', 'A personal organization goes with its user: delete the user instead (npm run -s cli -- users delete EMAIL)'),
      },
    },
    config: { role: 'owner' },
  }, async (request, reply) => {
    const actor = actorOf(request)
    const deleted = await deleteOrganization(app.db, actor)
    if (!deleted) throw new HttpError(401)
    // Its audit log goes with it: the server's log keeps who deleted it.
    request.log.info({ org: deleted.id, slug: deleted.slug, actor: actor.audit.actor }, 'organization deleted')
    return reply.code(204).send(null)
  })

  app.get('/organization/members', {
    schema: {
      tags: ['organization'],
      summary: 'List members',
      description: 'Everyone in the organization with their role, earliest joined first.',
      operationId: 'listMembers',
      response: { 200: MemberListEnvelope, ...errorResponses() },
    },
    config: { role: 'viewer' },
  }, async (request) => ({ data: (await listMembers(app.db, confirmedKeyOf(request).orgId)).map(presentMember) }))

  app.patch('/organization/members/:user_id', {
    schema: {
      tags: ['organization'],
      summary: 'Change a member\'s role',
      description: 'Gives the member another role; their keys act with it from their next request. Making, changing or ' +
        'removing an owner takes an owner; the last owner cannot step down (409).',
      operationId: 'updateMember',
      params: MemberParams,
      body: Type.Ref(UpdateMemberSchema),
      response: { 200: MemberEnvelope, ...memberErrors(400, 403, 404, 413, 415), 409: errorResponse(409, 'The member is the last owner', LAST_OWNER) },
    },
    config: { role: 'admin' },
  }, async (request) => {
    const member = await changeMemberRole(app.db, actorOf(request), request.params.user_id, request.body.role, app.clock())
    if (!member) throw memberNotFound()
    return { data: presentMember(member) }
  })

  app.delete('/organization/members/:user_id', {
    schema: {
      tags: ['organization'],
      summary: 'Remove a member',
      description: 'Ends the membership and deletes the keys the member made in the organization: they answer 401 from ' +
        'the next request. Removing an owner takes an owner; the last owner cannot be removed (409).',
      operationId: 'removeMember',
      params: MemberParams,
      response: {
        204: Type.Null({ description: 'Removed; no body' }),
        ...memberErrors(400, 403, 404, 413, 415),
        409: errorResponse(409, 'The member is the last owner', LAST_OWNER),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    if (!await removeMember(app.db, actorOf(request), request.params.user_id, app.clock())) throw memberNotFound()
    return reply.code(204).send(null)
  })

  app.post('/organization/invitations', {
    schema: {
      tags: ['organization'],
      summary: 'Invite someone',
      description: 'Answers 201 with the invitation and its `accept_url`, shown this once, and mails that link when the ' +
        'server sends mail (SMTP_URL). The user with that email accepts it once within 7 days, with any of their keys ' +
        '(`POST /invitations/accept`) or in the dashboard. An owner\'s invitation takes an owner.',
      operationId: 'createInvitation',
      body: Type.Ref(CreateInvitationSchema),
      response: {
        201: {
          ...CreatedInvitationEnvelope,
          headers: {
            location: Type.String({ description: 'The path of the new invitation (DELETE revokes it)', examples: ['/api/v1/organization/invitations/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] }),
          },
        },
        ...errorResponses(400, 403, 413, 415),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    const key = confirmedKeyOf(request)
    const { invitation, token } = await inviteMember(app.db, actorOf(request), request.body, app.clock())
    const acceptUrl = invitationUrl(config.PUBLIC_URL, token)
    const inviter = await findUserById(app.db, key.userId)
    mailInvitation(invitation, { inviter: inviter?.email ?? 'Someone', acceptUrl, log: request.log })
    reply.code(201).header('location', `/api/v1/organization/invitations/${invitation.id}`)
    return { data: { ...presentInvitation(invitation), accept_url: acceptUrl } }
  })

  app.get('/organization/invitations', {
    schema: {
      tags: ['organization'],
      summary: 'List invitations',
      description: 'The invitations that can still be accepted (not accepted, revoked or expired), newest first; never their links.',
      operationId: 'listInvitations',
      response: { 200: InvitationListEnvelope, ...errorResponses(403) },
    },
    config: { role: 'admin' },
  }, async (request) => ({ data: (await listPendingInvitations(app.db, confirmedKeyOf(request).orgId, app.clock())).map(presentInvitation) }))

  app.delete('/organization/invitations/:id', {
    schema: {
      tags: ['organization'],
      summary: 'Revoke an invitation',
      description: 'Its link stops working at once. One accepted, revoked or expired already is 404.',
      operationId: 'revokeInvitation',
      params: InvitationParams,
      response: {
        204: Type.Null({ description: 'Revoked; no body' }),
        ...errorResponses(400, 403, 413, 415),
        404: errorResponse(404, 'No such pending invitation of the caller\'s organization', INVITATION_NOT_FOUND),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    if (!await revokeInvitation(app.db, actorOf(request), request.params.id, app.clock())) throw new HttpError(404, INVITATION_NOT_FOUND)
    return reply.code(204).send(null)
  })

  app.post('/invitations/accept', {
    schema: {
      tags: ['organization'],
      summary: 'Accept an invitation',
      description: 'With any key of the user the invitation was sent to: that user becomes a member of its organization with ' +
        'its role (one who is already keeps theirs). A used, expired or revoked token, or another email\'s, is 404.',
      operationId: 'acceptInvitation',
      body: Type.Ref(AcceptInvitationSchema),
      response: {
        200: AcceptedInvitationEnvelope,
        ...errorResponses(400, 403, 413, 415),
        404: errorResponse(404, 'No pending invitation of this token for the caller\'s email', INVITATION_NOT_FOUND),
      },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const key = confirmedKeyOf(request)
    const user = await findUserById(app.db, key.userId)
    const accepted = user && await acceptInvitation(app.db, user, request.body.token, app.clock(), keyAudit(request))
    if (!accepted) throw new HttpError(404, INVITATION_NOT_FOUND)
    return { data: { organization_id: accepted.orgId, role: accepted.role } }
  })
}

export default organizationRoutes
