// The OpenAPI document made from the route schemas, served as JSON and through Swagger UI at /docs.
import fp from 'fastify-plugin'
import fastifyCompress from '@fastify/compress'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyRequest } from 'fastify'
import { HttpError } from '../http/error-catalog.ts'
import { applyConventions, OPENAPI_PATH, SHARED_HEADERS } from '../http/openapi-conventions.ts'
import { declareRequiredRole } from '../http/openapi-roles.ts'
import { declareConditionalReads } from '../http/openapi-conditional-reads.ts'
import { swaggerUiHeaders } from '../http/transport-security.ts'

export { OPENAPI_PATH }

// The document and Swagger UI's script are large and shrink well. Gzip only, as the dashboard: brotli's working
// memory stays in libuv's threads' arenas, which a few Swagger UI visits grow by about 16 MB for good.
const COMPRESSION = { encodings: ['gzip'] as Array<'gzip'>, globalDecompression: false }

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

interface OpenApiOptions {
  /** PUBLIC_URL: the document's first server, the base URL SDK generators write into their clients. */
  publicUrl: string
}

type JsonSpec = { servers?: Array<{ url: string }> }

/**
 * A Swagger UI plugin, run in the page (its source is sent, so it refers to nothing of this module): opened at
 * another address than the first server (PUBLIC_URL), Try it out defaults to the page's own, the relative server.
 */
function serverOfThisPage () {
  return {
    statePlugins: {
      spec: {
        wrapActions: {
          // A method, not an arrow: tsx would wrap a named arrow in its `__name` helper, which the page lacks.
          updateJsonSpec (update: (spec: JsonSpec) => unknown) {
            return function (spec: JsonSpec) {
              const servers = spec.servers ?? []
              const here = (globalThis as unknown as { location: { href: string } }).location.href
              if (servers.length === 0 || here.startsWith(`${servers[0].url}/`)) return update(spec)
              return update({ ...spec, servers: [...servers.filter((s) => s.url === '/'), ...servers.filter((s) => s.url !== '/')] })
            }
          },
        },
      },
    },
  }
}

export default fp<OpenApiOptions>(async (app, { publicUrl }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Pingward API',
        version: '1.0.0',
        description: 'Uptime monitors, their check results and incidents, and notifications of them. Every request carries `Authorization: Bearer sk_...`. ' +
          'Success bodies are `{"data": ...}`, errors are `{"error": "..."}`. Each response carries `X-RateLimit-Limit`, ' +
          '`X-RateLimit-Remaining`, `X-RateLimit-Reset` and `X-Request-Id`. A known path asked with a method it does not ' +
          'have answers 405 with an `Allow` header listing those it has.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'The operator of this Pingward instance' },
      },
      // Generators take the first as their client's base URL, so it is absolute; see serverOfThisPage for Swagger UI.
      servers: [
        { url: publicUrl, description: 'This Pingward instance, at its PUBLIC_URL' },
        { url: '/', description: 'The instance serving this document, at the address it was reached by' },
      ],
      tags: [
        { name: 'monitors', description: 'Uptime monitors' },
        { name: 'checks', description: 'Check results of a monitor' },
        { name: 'incidents', description: 'Periods during which a monitor was down, or degraded (its checks passed but slower than its `degraded_after_ms`)' },
        { name: 'maintenance', description: 'Maintenance windows: times, one-off or recurring, when the monitors they cover are told of to no one (or not checked)' },
        { name: 'notifications', description: 'Notification channels, where their events go, and the delivery of each event' },
        { name: 'status pages', description: 'Status pages, their components, and the status reports shown on them' },
        { name: 'status pages (public)', description: 'A published status page and its machine-readable twins: no key, for everyone' },
        { name: 'locations', description: 'Where checks run from: the installation\'s checker processes and the organization\'s probe agents' },
        { name: 'agents', description: 'What a probe agent calls, with its location\'s agent token instead of an API key' },
        { name: 'organization', description: 'The organization an API key belongs to, its members and their roles' },
        { name: 'heartbeats', description: 'The ping URL of a heartbeat monitor: a job pings it, no key needed' },
        { name: 'health', description: 'Liveness and readiness of the service' },
        { name: 'documentation', description: 'This document' },
      ],
      webhooks: WEBHOOKS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `sk_` followed by 38 characters' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'The server\'s `METRICS_TOKEN` (GET /metrics only)' },
          agentToken: { type: 'http', scheme: 'bearer', description: 'An agent location\'s token: `pwa_` followed by 38 characters (the `/agent/` routes only)' },
        },
        headers: SHARED_HEADERS,
      },
      security: [{ bearerAuth: [] }],
    },
    // Components are named after the schemas' $id (Monitor, Check, ...), not def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Fastify answers HEAD on every GET route: the document lists those operations too.
    exposeHeadRoutes: true,
    transform: (input) => declareRequiredRole(declareConditionalReads(input), input.route),
    transformObject: (document) => 'openapiObject' in document ? applyConventions(document.openapiObject) : document.swaggerObject,
  })

  await app.register(async (docs) => {
    // First: compression takes the routes registered after it.
    await docs.register(fastifyCompress, COMPRESSION)
    // A path climbing out of /docs/static is a 404, not @fastify/static's 403, which reads as a refused API key.
    docs.addHook('onRequest', (request: FastifyRequest<{ Params: { '*'?: string } }>, _reply, done) => {
      done(/(^|[\\/])\.\.([\\/]|$)/.test(request.params['*'] ?? '') ? new HttpError(404) : undefined)
    })
    // Not by `staticCSP: true`, which sends upgrade-insecure-requests over plain http too: a blank page on a LAN.
    docs.addHook('onRequest', swaggerUiHeaders)
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, plugins: [serverOfThisPage] } })
  })

  await app.register(async (document) => {
    await document.register(fastifyCompress, COMPRESSION)
    // Sent as text made once: the serializer would otherwise walk the whole document on every request.
    let text: string | undefined
    const serialized = () => (text ??= JSON.stringify(app.swagger()))
    document.get(OPENAPI_PATH, {
      config: { rateLimit: false },
      schema: {
        tags: ['documentation'],
        summary: 'This OpenAPI document',
        description: 'The document the running service makes of its routes, as JSON. No key and no rate limit.',
        operationId: 'getOpenApiDocument',
        security: [],
        response: { 200: { description: 'The OpenAPI 3.1 document', type: 'object', additionalProperties: true } },
      },
    }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(serialized()))
  })
}, { name: 'openapi', fastify: '5.x', dependencies: ['schemas'] })
