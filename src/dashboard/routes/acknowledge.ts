// One-click acknowledge links: the page a notification links to, and its button. No sign-in: the signed link
// (src/auth/acknowledge-links.ts) is the authority, for 24 hours, for its incident, while its channel exists.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { readAcknowledgeLink } from '../../auth/acknowledge-links.ts'
import { ConflictError } from '../../domain/errors.ts'
import { HttpError } from '../../http/error-catalog.ts'
import { findLinkedIncident } from '../../incidents/repository.ts'
import { acknowledgeIncident } from '../../incidents/service.ts'
import { serverSecret } from '../../repositories/server-secrets.ts'
import { toIncident } from '../../repositories/incidents.ts'
import { acknowledgePage } from '../pages/acknowledge.ts'
import { pageContext, seeOther, sendPage } from '../respond.ts'

const Params = Type.Object({ token: Type.String({ maxLength: 200 }) })
const publicRoute = { dashboardPublic: true }

const dashboardAcknowledgeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /** The link's incident, or the error page a visitor understands. */
  async function linked (token: string) {
    const link = readAcknowledgeLink(await serverSecret(app.db, 'acknowledge_links'), token, app.clock())
    if (link === 'expired') throw new HttpError(404, 'This acknowledge link has expired (links work for 24 hours). Sign in to acknowledge the incident.')
    const found = link && await findLinkedIncident(app.db, link.incidentId, link.channelId)
    if (!found) throw new HttpError(404, 'This acknowledge link is not valid: its incident, monitor or channel is gone, or it was mistyped.')
    return found
  }

  const render = async (request: FastifyRequest, reply: FastifyReply, token: string, notice?: string) => {
    const { incident, monitor } = await linked(token)
    return sendPage(reply, acknowledgePage(pageContext(app, request, reply), { token, incident: toIncident(incident), monitorName: monitor.name, notice }))
  }

  app.get('/acknowledge/:token', {
    schema: { hide: true, params: Params, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
    config: publicRoute,
  }, async (request, reply) => render(request, reply, request.params.token, request.query.notice))

  app.post('/acknowledge/:token', { schema: { hide: true, params: Params }, config: publicRoute }, async (request, reply) => {
    const { token } = request.params
    const { incident, monitor, channelName } = await linked(token)
    const audit = { actor: { type: 'system' as const, id: null, label: `acknowledge link sent to ${channelName}` }, requestId: request.id, ip: request.ip }
    try {
      await acknowledgeIncident(app.db, { orgId: monitor.orgId, audit }, incident.id, undefined, app.clock())
    } catch (err) {
      // Resolved meanwhile: the page says so.
      if (!(err instanceof ConflictError)) throw err
      return seeOther(reply, `/acknowledge/${token}`)
    }
    return seeOther(reply, `/acknowledge/${token}?notice=incident-acknowledged`)
  })
}

export default dashboardAcknowledgeRoutes
