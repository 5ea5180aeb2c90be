// Check result routes: the newest results of one of the caller's monitors.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ownedRead } from '../plugins/auth.ts'
import { errorResponses } from '../http/error-catalog.ts'
import { MonitorIdParams, PageQuery } from '../schemas/common.ts'
import { CheckListEnvelope } from '../schemas/check.ts'
import { listOwnedChecks } from '../repositories/checks.ts'
import { monitorNotFound } from './monitors.ts'

const checkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/checks', {
    schema: {
      tags: ['checks'],
      summary: 'List check results of a monitor',
      description: 'At most the last 100 check results, newest first. Page back with `before` set to the oldest `checked_at` seen.',
      operationId: 'listChecks',
      params: MonitorIdParams,
      querystring: PageQuery('check results', 100),
      response: { 200: CheckListEnvelope, ...errorResponses(400, 404) },
    },
    config: { keyCheckedByQuery: true },
  }, async (request) => {
    const data = await listOwnedChecks(app.db, ownedRead(request), request.params.id, request.query)
    if (!data) throw monitorNotFound()
    return { data }
  })
}

export default checkRoutes
