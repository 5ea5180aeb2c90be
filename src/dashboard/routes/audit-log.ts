// Settings, then Audit log (admins and up), a page of 50 events at a time.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { auditCursor, auditPosition } from '../../audit/presenter.ts'
import { listAuditEvents } from '../../audit/repository.ts'
import { HttpError } from '../../http/error-catalog.ts'
import { auditLogPage } from '../pages/audit-log.ts'
import { pageContext, sendPage } from '../respond.ts'

const PAGE_SIZE = 50

const dashboardAuditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/settings/audit-log', {
    config: { role: 'admin' },
    schema: { hide: true, querystring: Type.Object({ cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$' })) }) },
  }, async (request, reply) => {
    const { cursor } = request.query
    const from = cursor === undefined ? undefined : auditPosition(cursor)
    if (cursor !== undefined && !from) throw new HttpError(400, 'That page of the audit log does not exist.')
    const page = await listAuditEvents(app.db, request.session!.orgId, {}, { limit: PAGE_SIZE, from })
    const olderUrl = page.next && `/settings/audit-log?cursor=${auditCursor(page.next)}`
    return sendPage(reply, auditLogPage(pageContext(app, request, reply), { events: page.events, olderUrl }))
  })
}

export default dashboardAuditRoutes
