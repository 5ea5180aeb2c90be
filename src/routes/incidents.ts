// Incident routes: every incident of one of the caller's monitors.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { keyOwner } from '../plugins/auth.ts'
import { errorResponses } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { MonitorIdParams, PageQuery } from '../schemas/common.ts'
import { IncidentListEnvelope } from '../schemas/incident.ts'
import { listIncidents } from '../repositories/incidents.ts'
import { monitorExists } from '../monitors/repository.ts'
import { monitorNotFound } from '../monitors/routes.ts'

const EXAMPLE_PATH = '/api/v1/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/incidents'

const incidentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/incidents', {
    schema: {
      tags: ['incidents'],
      summary: 'List incidents of a monitor',
      description: 'All incidents of the monitor, newest started first; `limit` and `before` page through them: when a page of ' +
        '`limit` is full, the answer carries `Link: <...>; rel="next"`, the URL of the next page (the same `limit`, `before` its oldest `started_at`).',
      operationId: 'listIncidents',
      params: MonitorIdParams,
      querystring: PageQuery('incidents'),
      response: {
        200: { ...IncidentListEnvelope, headers: nextPageLinkHeader('incidents', `${EXAMPLE_PATH}?limit=20&before=2026-11-21T09%3A30%3A00.000Z`, 'page full') },
        ...errorResponses(400, 404),
      },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request, reply) => {
    const { id } = request.params
    const { limit } = request.query
    if (!await monitorExists(app.db, keyOwner(request), id)) throw monitorNotFound()
    const data = await listIncidents(app.db, id, request.query)
    // Without a limit the list is whole; a full page may have older incidents after it.
    if (limit !== undefined && data.length === limit) {
      setNextPageLink(reply, `/api/v1/monitors/${id}/incidents`, { limit, before: data[limit - 1].started_at })
    }
    return { data }
  })
}

export default incidentRoutes
