// Shared schema pieces: ids, timestamps, the error body, paging query and the error responses of a route.
import { Type, type Static, type TSchema } from '@sinclair/typebox'

export const Uuid = (description: string) =>
  Type.String({ format: 'uuid', description, examples: ['3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] })

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-21T09:30:00.000Z'] })

/** `T | null` as a JSON Schema type array: valid OpenAPI 3.1, and fast for the serializer. */
export function Nullable<T extends TSchema> (schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] })
}

export const ErrorSchema = Type.Object({
  error: Type.String({ description: 'What went wrong, in one line', examples: ['Monitor not found'] }),
}, { $id: 'Error', title: 'Error', additionalProperties: false })

export const MonitorIdParams = Type.Object({
  id: Uuid('Id of the monitor'),
}, { additionalProperties: false })

export const PageQuery = (what: string, defaultLimit?: number) => Type.Object({
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 100,
    ...(defaultLimit ? { default: defaultLimit } : {}),
    description: `Most ${what} to return`,
  })),
  before: Type.Optional(Timestamp(`Only ${what} strictly older than this time, for paging back`)),
}, { additionalProperties: false })

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request body or parameters; the message names the field and the rule',
  401: 'Missing or invalid API key (`Unauthorized`)',
  403: 'The API key may not do this (a read-only key on a write)',
  404: 'No such monitor for this caller',
  413: 'Request body larger than 1 MiB',
  415: 'Request body is not JSON',
  429: 'Rate limit exceeded; see `retry-after`',
  500: 'Internal server error',
  503: 'Database unreachable or shutting down',
}

const errorExamples: Record<number, string> = {
  400: 'body/interval_minutes must be <= 1440',
  401: 'Unauthorized',
  403: 'API key does not have access to this resource',
  404: 'Monitor not found',
  413: 'Request body is too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  503: 'Service unavailable',
}

/** The error responses a route can give: always 401, 429, 500 and 503, plus the ones named. */
export function errorResponses (...statuses: number[]) {
  const all = [...new Set([...statuses, 401, 429, 500, 503])].sort()
  return Object.fromEntries(all.map((status) => [status, {
    ...Type.Ref(ErrorSchema),
    description: errorDescriptions[status],
    examples: [{ error: errorExamples[status] }],
  }]))
}

/** A success body `{data: T}`. */
export const Envelope = <T extends TSchema>(data: T, description: string) =>
  Type.Object({ data }, { additionalProperties: false, description })
