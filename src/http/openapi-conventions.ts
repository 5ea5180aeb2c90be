// What every operation of the OpenAPI document shares, applied to the whole document once it is built:
// the response headers declared once (components.headers) and referred to from every response that
// carries them, so that SDK generators expose them (the request id of plugins/errors.ts, the rate limit's
// of plugins/rate-limit.ts, Retry-After on a 429, WWW-Authenticate on a 401), an example on every error
// answer, an example on every request body, and a name for each variant of a discriminated oneOf. A
// route's own headers (Location, Link) and examples are in its schema.
import { ERROR_CATALOG } from './error-catalog.ts'

type Header = { description: string, required?: boolean, schema: object, example: unknown }
type Reference = { $ref: string }

export const SHARED_HEADERS = {
  RequestId: {
    description: 'The id of this request, as the server\'s log names it: quote it when reporting a problem',
    required: true,
    schema: { type: 'string', format: 'uuid' },
    example: '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d',
  },
  RateLimitLimit: {
    description: 'Requests allowed per window (per API key; per client address without a valid key)',
    schema: { type: 'integer', minimum: 0 },
    example: 600,
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window',
    schema: { type: 'integer', minimum: 0 },
    example: 599,
  },
  RateLimitReset: {
    description: 'Seconds until the current window ends',
    schema: { type: 'integer', minimum: 0 },
    example: 42,
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', minimum: 0 },
    example: 42,
  },
  WwwAuthenticate: {
    description: 'How to authenticate: `Bearer`',
    schema: { type: 'string' },
    example: 'Bearer',
  },
} as const satisfies Record<string, Header>

const ref = (name: keyof typeof SHARED_HEADERS): Reference => ({ $ref: `#/components/headers/${name}` })

/** The shared headers of one response: which ones depend on the path (rate limited or not) and the status. */
function sharedHeadersOf (path: string, status: string): Record<string, Reference> {
  const headers: Record<string, Reference> = { 'x-request-id': ref('RequestId') }
  // The API's routes are rate limited (the probes and the document are not): every answer says where it stands;
  // so do a ping's answers that the client address's budget counts or refuses (an unknown token).
  if (path.startsWith('/api/') || (path.startsWith('/ping/') && (status === '404' || status === '429'))) {
    Object.assign(headers, {
      'x-ratelimit-limit': ref('RateLimitLimit'),
      'x-ratelimit-remaining': ref('RateLimitRemaining'),
      'x-ratelimit-reset': ref('RateLimitReset'),
    })
  }
  if (status === '429') headers['retry-after'] = ref('RetryAfter')
  if (status === '401') headers['www-authenticate'] = ref('WwwAuthenticate')
  return headers
}

interface Response {
  headers?: Record<string, unknown>
  content?: Record<string, { schema?: { $ref?: string }, example?: unknown }>
}

/**
 * An error answer without an example (a route that wrote `Type.Ref(ErrorSchema)`, whose sibling
 * `examples` the document drops) gets its status's message from the catalog.
 */
function exampleError (status: string, response: Response): void {
  const media = response.content?.['application/json']
  if (!media || media.example !== undefined || media.schema?.$ref !== '#/components/schemas/ApiError') return
  const entry = (ERROR_CATALOG as Record<string, { message: string } | undefined>)[status]
  if (entry) media.example = { error: entry.message }
}

type Schema = Record<string, any>

/**
 * A `oneOf` told apart by a discriminator names each of its objects (a component, by its title) and maps each
 * tag value to it: a discriminator selects named schemas only, and an SDK generator makes one type per
 * variant (`CreateWebhookChannel`, ...). The route schemas keep them inline, as the validator reads them.
 */
function nameDiscriminatedVariants (schemas: Record<string, Schema>): void {
  for (const schema of Object.values(schemas)) {
    const { discriminator, oneOf } = schema
    if (typeof discriminator?.propertyName !== 'string' || !Array.isArray(oneOf)) continue
    const mapping: Record<string, string> = {}
    schema.oneOf = oneOf.map((variant: Schema) => {
      if (variant.$ref !== undefined || typeof variant.title !== 'string') return variant
      const ref = `#/components/schemas/${variant.title}`
      schemas[variant.title] = variant
      const tag = variant.properties?.[discriminator.propertyName] ?? {}
      for (const value of tag.enum ?? ('const' in tag ? [tag.const] : [])) mapping[value] = ref
      return { $ref: ref }
    })
    if (Object.keys(mapping).length > 0) schema.discriminator = { ...discriminator, mapping }
    // A tag with a default (a monitor's `monitor_type`, `site`) is required by the validator only after the
    // default is applied: a client may leave it out. OpenAPI 3.1's discriminator cannot say so (a tag it reads
    // must be required), and a linter cannot see that an optional tag still tells the variants apart, so the
    // document gives them as an anyOf: a body of each kind matches exactly one all the same. The tag's default
    // is said by the variant that takes it; beside the variants, the validator's own copy of the tag would read
    // to an SDK generator as one more variant.
    if (schema.properties?.[discriminator.propertyName]?.default !== undefined) {
      delete schema.discriminator
      schema.anyOf = schema.oneOf
      delete schema.oneOf
      delete schema.properties
      delete schema.type
      schema.required = (schema.required ?? []).filter((name: string) => name !== discriminator.propertyName)
      if (schema.required.length === 0) delete schema.required
    }
  }
}

/**
 * A request body that refers to a named schema shows that schema's first example as its own, as it did when
 * inline: Swagger UI's Try it out and the tests that send each route's example read it there.
 */
function exampleBody (operation: { requestBody?: { content?: Record<string, { schema?: { $ref?: string }, example?: unknown }> } },
  schemas: Record<string, Schema>): void {
  const media = operation.requestBody?.content?.['application/json']
  const name = media?.schema?.$ref?.replace('#/components/schemas/', '')
  const example = name === undefined ? undefined : schemas[name]?.examples?.[0]
  if (media && media.example === undefined && example !== undefined) media.example = example
}

/**
 * For @fastify/swagger's transformObject: every response gets its shared headers, every error an example,
 * every request body its example, every discriminated variant a name.
 */
export function applyConventions<T extends { paths?: object, components?: object }> (document: T): T {
  const schemas = (document.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}
  nameDiscriminatedVariants(schemas)
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown> | undefined>
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item ?? {})) {
      if (typeof operation !== 'object' || operation === null) continue
      exampleBody(operation, schemas)
      const responses = (operation as { responses?: Record<string, Response> }).responses
      if (!responses) continue
      for (const [status, response] of Object.entries(responses)) {
        // The route's own declarations come last: a route may say more of a header than the shared text.
        response.headers = { ...sharedHeadersOf(path, status), ...response.headers }
        exampleError(status, response)
      }
    }
  }
  return document
}
