// What every operation of the OpenAPI document shares, applied once it is built: shared response headers
// (declared once, so SDK generators expose them), examples on errors and bodies, named oneOf variants.
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

// An error answer without an example (the document drops siblings of a `Type.Ref`) gets the catalog's message.
function exampleError (status: string, response: Response): void {
  const media = response.content?.['application/json']
  if (!media || media.example !== undefined || media.schema?.$ref !== '#/components/schemas/ApiError') return
  const entry = (ERROR_CATALOG as Record<string, { message: string } | undefined>)[status]
  if (entry) media.example = { error: entry.message }
}

type Schema = Record<string, any>

// A discriminated `oneOf` gets each object as a component named by its title: a discriminator selects named
// schemas only. The route schemas keep them inline, as the validator reads them.
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
    // A tag with a default may be left out, which an OpenAPI 3.1 discriminator cannot say (its tag is required),
    // so the variants become an anyOf; the validator's copy of the tag goes, or generators see one more variant.
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

// A body that refers to a named schema gets its first example: Swagger UI and the example tests read it there.
function exampleBody (operation: { requestBody?: { content?: Record<string, { schema?: { $ref?: string }, example?: unknown }> } },
  schemas: Record<string, Schema>): void {
  const media = operation.requestBody?.content?.['application/json']
  const name = media?.schema?.$ref?.replace('#/components/schemas/', '')
  const example = name === undefined ? undefined : schemas[name]?.examples?.[0]
  if (media && media.example === undefined && example !== undefined) media.example = example
}

/** For @fastify/swagger's transformObject. */
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
