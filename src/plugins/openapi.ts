// The OpenAPI document made from the route schemas, served as JSON and through Swagger UI at /docs.
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyRequest } from 'fastify'
import { HttpError } from '../http/error-catalog.ts'
import { applyConventions, SHARED_HEADERS } from '../http/openapi-conventions.ts'
import { declareConditionalReads } from '../http/openapi-conditional-reads.ts'
import { swaggerUiHeaders } from '../http/transport-security.ts'

export const OPENAPI_PATH = '/api/v1/openapi.json'

const header = (name: string, description: string, schema: object, example: string) =>
  ({ name, in: 'header', required: true, description, schema, example })

/** What a webhook channel receives (api-contract section 8): the document's top-level `webhooks`. */
const WEBHOOKS = {
  notificationEvent: {
    post: {
      tags: ['notifications'],
      summary: 'A notification event, sent to a webhook channel\'s `url`',
      description: 'A JSON POST for each event the channel gets, signed as the Standard Webhooks specification says. ' +
        'A 2xx within 15 seconds delivers it; anything else is retried with growing delays for about two days (honouring ' +
        '`Retry-After`), so a receiver may see an event more than once: `webhook-id` tells them apart. 410 Gone turns the channel off. ' +
        'No redirects are followed.',
      operationId: 'notificationEvent',
      parameters: [
        header('webhook-id', 'The event\'s id: the same on every retry, for de-duplication', { type: 'string', format: 'uuid' },
          '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'),
        header('webhook-timestamp', 'When this attempt was signed, in Unix seconds', { type: 'string', pattern: '^[0-9]+$' }, '1795253400'),
        header('webhook-signature', '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
          'base64-decoded part of the channel\'s `whsec_` secret after its prefix; during the 24 hours after a rotation, one signature ' +
          'per secret, separated by a space', { type: 'string' }, 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/NotificationEvent' } } },
      },
      responses: {
        '2XX': { description: 'Received: the delivery is done' },
        410: { description: 'Gone: the channel is turned off (`is_active: false`, with a `disabled_reason`)' },
        default: { description: 'Anything else, or no answer within 15 seconds: retried later' },
      },
      security: [],
    },
  },
}

export default fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pingward API',
        version: '1.0.0',
        description: 'Uptime monitors, their check results and incidents, and notifications of them. Every request carries `Authorization: Bearer sk_...`. ' +
          'Success bodies are `{"data": ...}`, errors are `{"error": "..."}`. Each response carries `x-ratelimit-limit`, ' +
          '`x-ratelimit-remaining`, `x-ratelimit-reset` and `x-request-id`. A known path asked with a method it does not ' +
          'have answers 405 with an `Allow` header listing those it has.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'The operator of this Pingward instance' },
      },
      // Relative, so that Swagger UI and SDKs use the instance that serves the document.
      servers: [{ url: '/', description: 'The Pingward instance serving this document' }],
      tags: [
        { name: 'monitors', description: 'Uptime monitors' },
        { name: 'checks', description: 'Check results of a monitor' },
        { name: 'incidents', description: 'Periods during which a monitor was down, or degraded (its checks passed but slower than its `degraded_after_ms`)' },
        { name: 'notifications', description: 'Notification channels, where their events go, and the delivery of each event' },
        { name: 'heartbeats', description: 'The ping URL of a heartbeat monitor: a job pings it, no key needed' },
        { name: 'health', description: 'Liveness and readiness of the service' },
      ],
      webhooks: WEBHOOKS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `sk_` followed by 38 characters' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'The server\'s `METRICS_TOKEN` (GET /metrics only)' },
        },
        headers: SHARED_HEADERS,
      },
      security: [{ bearerAuth: [] }],
    },
    // Components are named after the schemas' $id (Monitor, Check, ...), not def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: declareConditionalReads,
    transformObject: (document) => 'openapiObject' in document ? applyConventions(document.openapiObject) : document.swaggerObject,
  })

  await app.register(async (docs) => {
    // A path climbing out of /docs/static is a 404, not @fastify/static's 403, which reads as a refused API key.
    docs.addHook('onRequest', (request: FastifyRequest<{ Params: { '*'?: string } }>, _reply, done) => {
      done(/(^|[\\/])\.\.([\\/]|$)/.test(request.params['*'] ?? '') ? new HttpError(404) : undefined)
    })
    // Not by `staticCSP: true`, which sends upgrade-insecure-requests over plain http too: a blank page on a LAN.
    docs.addHook('onRequest', swaggerUiHeaders)
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })
  })

  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { rateLimit: false } }, async () => app.swagger())
}, { name: 'openapi', fastify: '5.x', dependencies: ['schemas'] })
