// Check result routes: the newest results of one of the caller's monitors.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { keyOwner } from '../plugins/auth.ts'
import { errorResponses } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { MonitorIdParams } from '../schemas/common.ts'
import { CheckListEnvelope, CheckListQuery } from '../schemas/check.ts'
import { listOwnedChecks } from '../repositories/checks.ts'
import { monitorNotFound } from '../monitors/routes.ts'

const EXAMPLE_PATH = '/api/v1/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/checks'

const checkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/checks', {
    schema: {
      tags: ['checks'],
      summary: 'List check results of a monitor',
      description: 'At most the last 100 check results, newest first. Page back with `before` set to the oldest `checked_at` seen: ' +
        'when a page is full, the answer carries `Link: <...>; rel="next"`, the URL of the next page (the same `limit`, `location`, and that ' +
        '`before`). With `location`, only the checks that location\'s checker made.',
      operationId: 'listChecks',
      params: MonitorIdParams,
      querystring: CheckListQuery,
      response: {
        200: { ...CheckListEnvelope, headers: nextPageLinkHeader('check results', `${EXAMPLE_PATH}?limit=100&before=2026-11-21T09%3A30%3A00.000Z`, 'page full') },
        ...errorResponses(400, 404),
      },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request, reply) => {
    const { id } = request.params
    // Validation applied the default limit.
    const limit = request.query.limit!
    const data = await listOwnedChecks(app.db, keyOwner(request), id, request.query)
    if (!data) throw monitorNotFound()
    // A full page: older checks may follow (the next page says; an empty one has no Link).
    if (data.length === limit) {
      setNextPageLink(reply, `/api/v1/monitors/${id}/checks`, { limit, location: request.query.location, before: data[limit - 1].checked_at })
    }
    return { data }
  })
}

export default checkRoutes
