// The audit log API, HTTP only: the caller's organization's events, newest first, a page at a time.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/error-catalog.ts'
import { InvalidInputError } from '../domain/errors.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { confirmedOrg } from '../plugins/auth.ts'
import { auditCursor, auditPosition, presentAuditEvent } from './presenter.ts'
import { listAuditEvents } from './repository.ts'
import { AuditEventListEnvelope, AuditEventQuery } from './schema.ts'

const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/audit-events', {
    schema: {
      tags: ['organization'],
      summary: 'List audit events',
      description: 'Who changed what in the organization, newest first: every change of a monitor, channel, key, member, ' +
        'invitation or the organization, with its fields before and after (secrets masked). Kept AUDIT_RETENTION_DAYS days.',
      operationId: 'listAuditEvents',
      querystring: AuditEventQuery,
      response: {
        200: {
          ...AuditEventListEnvelope,
          headers: nextPageLinkHeader('events', '/api/v1/audit-events?limit=50&cursor=MTc2NDQ2MjYwMDAwMC8zZjJiOGMxZS05YTRkLTRlN2ItOGMyMS01ZDZmMGExYjJjM2Q'),
        },
        ...errorResponses(400, 403),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    const { cursor, limit = 50, action, entity_type: entityType, entity_id: entityId, actor_id: actorId } = request.query
    const from = cursor === undefined ? undefined : auditPosition(cursor)
    if (cursor !== undefined && !from) throw new InvalidInputError('cursor', 'querystring/cursor must be the cursor of a `Link: rel="next"` header')
    const page = await listAuditEvents(app.db, confirmedOrg(request), { action, entityType, entityId, actorId }, { limit, from })
    if (page.next) {
      setNextPageLink(reply, '/api/v1/audit-events', { action, entity_type: entityType, entity_id: entityId, actor_id: actorId, limit, cursor: auditCursor(page.next) })
    }
    return { data: page.events.map(presentAuditEvent) }
  })
}

export default auditRoutes
