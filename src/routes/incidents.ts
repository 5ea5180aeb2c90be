// Incident routes: every incident of one of the caller's monitors.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ownedRead } from '../plugins/auth.ts'
import { errorResponses } from '../http/error-catalog.ts'
import { MonitorIdParams, PageQuery } from '../schemas/common.ts'
import { IncidentListEnvelope } from '../schemas/incident.ts'
import { listIncidents } from '../repositories/incidents.ts'
import { monitorExists } from '../repositories/monitors.ts'
import { monitorNotFound } from './monitors.ts'

const incidentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/incidents', {
    schema: {
      tags: ['incidents'],
      summary: 'List incidents of a monitor',
      description: 'All incidents of the monitor, newest started first; `limit` and `before` page through them.',
      operationId: 'listIncidents',
      params: MonitorIdParams,
      querystring: PageQuery('incidents'),
      response: { 200: IncidentListEnvelope, ...errorResponses(400, 404) },
    },
    config: { keyCheckedByQuery: true },
  }, async (request) => {
    if (!await monitorExists(app.db, ownedRead(request), request.params.id)) throw monitorNotFound()
    return { data: await listIncidents(app.db, request.params.id, request.query) }
  })
}

export default incidentRoutes
