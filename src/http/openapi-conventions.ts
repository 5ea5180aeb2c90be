// What every operation of the OpenAPI document shares, applied once it is built: shared response headers
// (declared once, so SDK generators expose them), examples on errors and bodies, named oneOf variants.
import { ERROR_CATALOG } from './error-catalog.ts'

/** Where the service serves this document (no key, no rate limit). */
export const OPENAPI_PATH = '/api/v1/openapi.json'

/** The largest integer a PostgreSQL `integer` column, and so any integer of the API, holds. */
const INT32_MAX = 2_147_483_647

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
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
    example: 600,
  },
  RateLimitRemaining: {
    description: 'Requests left in the current window',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
    example: 599,
  },
  RateLimitReset: {
    description: 'Seconds until the current window ends',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
    example: 42,
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX },
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
  const headers: Record<string, Reference> = { 'X-Request-Id': ref('RequestId') }
  // The API's routes are rate limited (the probes and the document are not): every answer says where it stands;
  // so do a ping's answers that the client address's budget counts or refuses (an unknown token).
  if ((path.startsWith('/api/') && path !== OPENAPI_PATH) || (path.startsWith('/ping/') && (status === '404' || status === '429'))) {
    Object.assign(headers, {
      'X-RateLimit-Limit': ref('RateLimitLimit'),
      'X-RateLimit-Remaining': ref('RateLimitRemaining'),
      'X-RateLimit-Reset': ref('RateLimitReset'),
    })
  }
  if (status === '429') headers['Retry-After'] = ref('RetryAfter')
  if (status === '401') headers['WWW-Authenticate'] = ref('WwwAuthenticate')
  return headers
}

const HEADER_NAME_EXCEPTIONS: Record<string, string> = { Etag: 'ETag', 'Www-Authenticate': 'WWW-Authenticate' }

/** A header's name as its registration writes it (`X-RateLimit-Limit`, `ETag`): HTTP ignores case, linters and readers do not. */
function registeredHeaderName (name: string): string {
  const titled = name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
  return HEADER_NAME_EXCEPTIONS[titled] ?? titled.replace(/^X-Ratelimit-/, 'X-RateLimit-')
}

const withRegisteredNames = <T>(headers: Record<string, T> = {}): Record<string, T> =>
  Object.fromEntries(Object.entries(headers).map(([name, header]) => [registeredHeaderName(name), header]))

interface Response {
  description?: string
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

// Any route answers 400 to what HTTP leaves unanswerable (plugins/errors.ts), whether or not it reads input.
const MALFORMED_REQUEST: Response = {
  description: 'A malformed request: no Host header, or a URL path that is not valid percent-encoding',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' }, example: { error: 'Bad request: the Host header is missing' } } },
}

// Fastify answers HEAD on every GET route; the document says so, as the GET without its bodies.
function describeHead (item: Record<string, Schema>): void {
  const { get, head } = item
  if (!get || !head) return
  head.operationId = `${get.operationId}Head`
  head.summary = `${get.summary} (headers only)`
  head.description = 'The GET\'s status and headers, without a body.'
  for (const response of Object.values(head.responses ?? {}) as Response[]) delete response.content
}

// Every integer says its size (a PostgreSQL `integer` holds each) and so its bounds; a route's own bounds stay.
function sizeIntegers (node: unknown): void {
  if (Array.isArray(node)) return node.forEach(sizeIntegers)
  if (typeof node !== 'object' || node === null) return
  const schema = node as Schema
  if (schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'))) {
    schema.format ??= 'int32'
    // A sum over a year of rollups (int64) may pass int32; JSON numbers stay exact up to 2^53.
    const max = schema.format === 'int64' ? Number.MAX_SAFE_INTEGER : INT32_MAX
    schema.minimum ??= schema.format === 'int64' ? -max : -max - 1
    schema.maximum ??= max
  }
  for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') sizeIntegers(value)
}

// Generators read a `default` as "always present" in a named schema (openapi-typescript's defaults make the field
// required), which holds for answers only: in what a request body refers to, the default moves to the description.
function describeRequestDefaults (paths: object, schemas: Record<string, Schema>): void {
  const seen = new Set<string>()
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return
    const { $ref, properties } = node as Schema
    const name = typeof $ref === 'string' && $ref.startsWith('#/components/schemas/') ? $ref.slice('#/components/schemas/'.length) : undefined
    if (name !== undefined && !seen.has(name) && schemas[name] !== undefined) {
      seen.add(name)
      visit(schemas[name])
    }
    for (const [field, property] of Object.entries((typeof properties === 'object' && properties) || {}) as Array<[string, Schema]>) {
      if (property?.default === undefined) continue
      const { default: value, ...rest } = property
      const said = `default \`${typeof value === 'string' ? value : JSON.stringify(value)}\``
      properties[field] = { ...rest, description: rest.description === undefined ? said : `${rest.description} (${said})` }
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'example' && key !== 'examples') visit(child)
  }
  for (const item of Object.values(paths) as Array<Record<string, { requestBody?: unknown } | undefined>>) {
    for (const operation of Object.values(item ?? {})) visit(operation?.requestBody)
  }
}

/** For @fastify/swagger's transformObject. */
export function applyConventions<T extends { paths?: object, components?: object }> (document: T): T {
  const schemas = (document.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}
  nameDiscriminatedVariants(schemas)
  describeRequestDefaults(document.paths ?? {}, schemas)
  const paths = (document.paths ?? {}) as Record<string, Record<string, Schema> | undefined>
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item ?? {})) {
      if (typeof operation !== 'object' || operation === null) continue
      exampleBody(operation, schemas)
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'header') parameter.name = registeredHeaderName(parameter.name)
      const responses = (operation as { responses?: Record<string, Response> }).responses
      if (!responses) continue
      responses['400'] ??= structuredClone(MALFORMED_REQUEST)
      for (const [status, response] of Object.entries(responses)) {
        // The route's own declarations come last: a route may say more of a header than the shared text.
        response.headers = { ...sharedHeadersOf(path, status), ...withRegisteredNames(response.headers) }
        exampleError(status, response)
      }
    }
    describeHead(item ?? {})
  }
  sizeIntegers(document)
  return document
}
