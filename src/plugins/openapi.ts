// The OpenAPI document made from the route schemas, served as JSON and through Swagger UI at /docs.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyRequest } from 'fastify'
import { HttpError } from '../http/error-catalog.ts'

export const OPENAPI_PATH = '/api/v1/openapi.json'

export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pingward API',
        version: '1.0.0',
        description: 'Uptime monitors, their check results and incidents. Every request carries `Authorization: Bearer sk_...`. ' +
          'Success bodies are `{"data": ...}`, errors are `{"error": "..."}`. Each response carries `x-ratelimit-limit`, ' +
          '`x-ratelimit-remaining`, `x-ratelimit-reset` and `x-request-id`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: [
        { name: 'monitors', description: 'Uptime monitors' },
        { name: 'checks', description: 'Check results of a monitor' },
        { name: 'incidents', description: 'Periods during which a monitor was down' },
        { name: 'health', description: 'Liveness and readiness of the service' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `sk_` followed by 38 characters' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // Components are named after the schemas' $id (Monitor, Check, ...), not def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })

  await app.register(async (docs) => {
    // A path that climbs out of /docs/static names no file of it: 404, as for any other missing file
    // (@fastify/static answers it 403, which read as a refused API key).
    docs.addHook('onRequest', (request: FastifyRequest<{ Params: { '*'?: string } }>, _reply, done) => {
      done(/(^|[\\/])\.\.([\\/]|$)/.test(request.params['*'] ?? '') ? new HttpError(404) : undefined)
    })
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true }, staticCSP: true })
  })

  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger())
}, { name: 'openapi', fastify: '5.x', dependencies: ['schemas'] })
