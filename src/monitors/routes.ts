// Monitor routes: list, read, create, update and soft-delete the caller's monitors.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyOwner, keyAudit } from '../plugins/auth.ts'
import { ERROR_CATALOG, errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { MonitorIdParams } from '../schemas/common.ts'
import { ConfigSchema } from '../runtime/config.ts'
import { requestFingerprint } from '../services/idempotency.ts'
import { limitMessage } from '../services/owner-limits.ts'
import { withAbsolutePingUrl } from './presenter.ts'
import { listMonitorPage } from './repository.ts'
import {
  CreateMonitorSchema, MonitorEnvelope, MonitorListEnvelope, MonitorListQuery, UpdateMonitorSchema, type Monitor, type NewMonitor,
} from './schema.ts'
import { createMonitorOnce, deleteMonitor, findMonitor, updateMonitor } from './service.ts'

interface MonitorRoutesOptions {
  allowPrivateTargets: boolean
  /** The address people reach the server at: a heartbeat's ping URL starts with it. */
  publicUrl: string
  /** MAX_MONITORS_PER_OWNER (0: no limit). */
  maxMonitors: number
}

export const monitorNotFound = () => new HttpError(404, 'Monitor not found')

const EXAMPLE_ID = '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'
const EXAMPLE_CURSOR = 'MTc2NDA2ODIwMDEyMzQ1NjozZjJiOGMxZS05YTRkLTRlN2ItOGMyMS01ZDZmMGExYjJjM2Q'

// The draft's key is a Structured Field string; a bare one names the same key. Visible ASCII, the same in every client and log.
const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 257,
    pattern: '^(?:"[ !#-\\[\\]-~]{1,255}"|[!#-~]{1,255})$',
    'x-error-message': 'must be 1-255 visible ASCII characters without quotes, optionally in double quotes',
    description: 'Makes the create safe to retry: a repeat of the same request with the same key within 24 hours ' +
      'gets the first answer and creates nothing; the same key with another body is refused (422), and one sent while the ' +
      'first request is still being handled too (409). A UUID per create is a good key. Keys are per organization.',
    examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
  })),
})

const monitorRoutes: FastifyPluginAsyncTypebox<MonitorRoutesOptions> = async (app, { allowPrivateTargets, publicUrl, maxMonitors }) => {
  app.get('/monitors', {
    schema: {
      tags: ['monitors'],
      summary: 'List monitors',
      description: 'The caller\'s monitors that are not deleted, newest created first; without parameters, all of them. ' +
        '`status`, `is_active` and `search` keep only the monitors that match (all of them when combined). With `limit`, ' +
        'a page at a time: when more follow, the answer carries `Link: <...>; rel="next"`, the URL of the next page (the same ' +
        'filters and `limit`, and a `cursor`); the last page has no `Link`.',
      operationId: 'listMonitors',
      querystring: MonitorListQuery,
      response: {
        200: { ...MonitorListEnvelope, headers: nextPageLinkHeader('monitors', `/api/v1/monitors?status=down&limit=50&cursor=${EXAMPLE_CURSOR}`) },
        ...errorResponses(400),
      },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request, reply) => {
    const { query } = request
    const page = await listMonitorPage(app.db, keyOwner(request), query)
    if (page.nextCursor !== undefined) {
      setNextPageLink(reply, '/api/v1/monitors', {
        status: query.status, is_active: query.is_active, search: query.search, limit: query.limit, cursor: page.nextCursor,
      })
    }
    return { data: page.monitors }
  })

  app.get('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Get a monitor',
      description: 'The caller\'s monitor with every field. A monitor that does not exist, was deleted or is another user\'s is 404.',
      operationId: 'getMonitor',
      params: MonitorIdParams,
      response: { 200: MonitorEnvelope, ...errorResponses(400, 404) },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request) => {
    const monitor = await findMonitor(app.db, keyOwner(request), request.params.id)
    if (!monitor) throw monitorNotFound()
    return { data: withAbsolutePingUrl(monitor, publicUrl) }
  })

  app.post('/monitors', {
    schema: {
      tags: ['monitors'],
      summary: 'Create a monitor',
      description: 'Answers 201 with the monitor and a `Location` header. Its first check comes within seconds. ' +
        'With an `Idempotency-Key`, a retry of the same request within 24 hours gets the first answer again (with ' +
        '`Idempotent-Replayed: true`) and creates nothing. A user holds at most the operator\'s MAX_MONITORS_PER_OWNER ' +
        'monitors (deleted ones do not count): one more is refused with 409.',
      operationId: 'createMonitor',
      headers: IdempotencyKeyHeaders,
      body: Type.Ref(CreateMonitorSchema),
      response: {
        201: {
          ...MonitorEnvelope,
          description: 'The created monitor (or, for a repeated `Idempotency-Key`, the first answer again)',
          headers: {
            location: Type.String({ description: 'The path of the new monitor', examples: [`/api/v1/monitors/${EXAMPLE_ID}`] }),
            'idempotent-replayed': Type.Literal('true', { description: 'Present when this is the stored answer to an earlier request with the same `Idempotency-Key`' }),
          },
        },
        ...errorResponses(400, 403, 409, 413, 415, 422),
        409: errorResponse(409, 'The user holds as many monitors as the operator allows (MAX_MONITORS_PER_OWNER), or a request with the same ' +
          '`Idempotency-Key` is still being handled: retry later', limitMessage('monitors', ConfigSchema.properties.MAX_MONITORS_PER_OWNER.default)),
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    // Validation applied the schema's defaults (useDefaults): every field is there.
    const input = request.body as NewMonitor
    const outcome = await createMonitorOnce(app.db, { orgId: confirmedOrg(request) }, input, {
      now: app.clock(),
      maxMonitors,
      audit: keyAudit(request),
      allowPrivateTargets,
      key: request.headers['idempotency-key'],
      fingerprint: requestFingerprint(request.method, '/api/v1/monitors', input),
      answer: (created) => {
        const monitor = withAbsolutePingUrl(created, publicUrl)
        return { status: 201, headers: { location: `/api/v1/monitors/${monitor.id}` }, body: { data: monitor } }
      },
    })
    if (outcome.kind === 'other-request') throw new HttpError(422, ERROR_CATALOG[422].example)
    if (outcome.kind === 'in-progress') throw new HttpError(409, ERROR_CATALOG[409].example)
    const { response } = outcome
    if (outcome.replayed) reply.header('idempotent-replayed', 'true')
    // Only a success is stored (a failure gives the key up): the status is the create's.
    return reply.code(response.status as 201).headers(response.headers).send(response.body as { data: Monitor })
  })

  app.patch('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Update a monitor',
      description: 'Any subset of the writable fields; `{}` is a no-op. `is_active: false` pauses the monitor and resolves its open incident.',
      operationId: 'updateMonitor',
      params: MonitorIdParams,
      body: Type.Ref(UpdateMonitorSchema),
      response: { 200: MonitorEnvelope, ...errorResponses(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const monitor = await updateMonitor(app.db, confirmedOrg(request), request.params.id, request.body, { now: app.clock(), audit: keyAudit(request), allowPrivateTargets })
    if (!monitor) throw monitorNotFound()
    return { data: withAbsolutePingUrl(monitor, publicUrl) }
  })

  app.delete('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Delete a monitor',
      description: 'Soft-deletes the monitor: it is no longer listed or checked, and every route with its id answers 404.',
      operationId: 'deleteMonitor',
      params: MonitorIdParams,
      response: { 204: Type.Null({ description: 'Deleted; no body' }), ...errorResponses(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const deleted = await deleteMonitor(app.db, confirmedOrg(request), request.params.id, app.clock(), keyAudit(request))
    if (!deleted) throw monitorNotFound()
    return reply.code(204).send(null)
  })
}

export default monitorRoutes
