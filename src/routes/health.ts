// Liveness and readiness probes: no key, no rate limit.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse, HttpError } from '../http/error-catalog.ts'
import { Envelope } from '../schemas/common.ts'

const Status = (value: string) => Envelope(Type.Object({ status: Type.Literal(value) }, { additionalProperties: false }), `Service is ${value}`)

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', {
    config: { rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'Liveness: the process answers',
      description: 'Answers 200 while the process runs, 503 once it is stopping. No key and no rate limit: for a liveness probe.',
      operationId: 'healthz',
      security: [],
      response: { 200: Status('alive'), 503: errorResponse(503, 'Shutting down') },
    },
  }, async () => ({ data: { status: 'alive' as const } }))

  app.get('/readyz', {
    config: { rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'Readiness: the database answers',
      description: 'Answers 200 when the database answers a query, else 503. No key and no rate limit: for a readiness probe or a load balancer.',
      operationId: 'readyz',
      security: [],
      response: { 200: Status('ready'), 503: errorResponse(503) },
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
