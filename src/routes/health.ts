// Liveness and readiness probes: no key, no rate limit.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ERROR_CATALOG, HttpError } from '../http/error-catalog.ts'
import { Envelope, ErrorSchema } from '../schemas/common.ts'

const Status = (value: string) => Envelope(Type.Object({ status: Type.Literal(value) }, { additionalProperties: false }), `Service is ${value}`)

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', {
    config: { rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'Liveness: the process answers',
      operationId: 'healthz',
      security: [],
      response: { 200: Status('alive'), 503: { ...Type.Ref(ErrorSchema), description: 'Shutting down' } },
    },
  }, async () => ({ data: { status: 'alive' as const } }))

  app.get('/readyz', {
    config: { rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'Readiness: the database answers',
      operationId: 'readyz',
      security: [],
      response: { 200: Status('ready'), 503: { ...Type.Ref(ErrorSchema), description: ERROR_CATALOG[503].description } },
    },
  }, async (request) => {
    try {
      await app.database.ping()
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed')
      throw new HttpError(503)
    }
    return { data: { status: 'ready' as const } }
  })
}

export default healthRoutes
