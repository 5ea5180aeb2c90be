// The one catalog of error statuses: the API message, the dashboard wording and the OpenAPI description and
// example of each, read by every error handler and by `errorResponses()`.
import { STATUS_CODES } from 'node:http'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { isDatabaseUnavailable, refusalCode } from '../db/unavailable.ts'
import { DomainError, InvalidInputError, type DomainErrorKind } from '../domain/errors.ts'
import { ErrorSchema } from '../schemas/common.ts'

interface CatalogEntry {
  /** The API's message when nothing more specific is said. */
  message: string
  /** The dashboard's sentence for the same status. */
  page: string
  description?: string
  /** The OpenAPI example message (a specific one where `message` is only the fallback). */
  example?: string
}

export const ERROR_CATALOG = {
  400: {
    message: 'Bad request',
    page: 'The request could not be understood.',
    description: 'Invalid request body or parameters; the message names the field and the rule',
    example: 'body/interval_minutes must be <= 1440',
  },
  401: { message: 'Unauthorized', page: 'Sign in to continue.', description: 'Missing or invalid API key (`Unauthorized`)' },
  403: {
    message: 'API key does not have access to this resource',
    page: 'Your role in this organization does not allow this.',
    description: 'The API key may not do this: a `read` key on a change, or its maker\'s role is below the one the operation needs',
    example: 'API key does not have access to this resource',
  },
  404: { message: 'Not found', page: 'There is no such page.', description: 'No such monitor for this caller', example: 'Monitor not found' },
  405: { message: 'Method not allowed', page: 'The request could not be understood.' },
  406: { message: 'Not acceptable', page: 'The request could not be understood.' },
  408: { message: 'Request timeout', page: 'The request took too long to arrive.' },
  409: {
    message: 'Conflict',
    page: 'That exists already.',
    description: 'A request with the same `Idempotency-Key` is still being handled: retry later',
    example: 'A request with this Idempotency-Key is still in progress: retry later',
  },
  413: { message: 'Request body is too large', page: 'The form is larger than 1 MiB.', description: 'Request body larger than 1 MiB' },
  414: { message: 'URI too long', page: 'The address is too long.' },
  415: {
    message: 'Unsupported media type',
    page: 'The request could not be understood.',
    description: 'Request body is not JSON',
    example: 'Unsupported media type',
  },
  417: { message: 'Expectation failed', page: 'The request could not be understood.' },
  422: {
    message: 'Unprocessable content',
    page: 'The request could not be understood.',
    description: 'The `Idempotency-Key` was used within 24 hours with another request (another body): use a new key',
    example: 'Idempotency-Key was already used with another request',
  },
  429: { message: 'Rate limit exceeded', page: 'Too many requests. Wait a moment and try again.', description: 'Rate limit exceeded; see `retry-after`' },
  431: { message: 'Request header fields too large', page: 'The request could not be understood.' },
  500: { message: 'Internal server error', page: 'Something went wrong on our side.', description: 'Internal server error' },
  503: {
    message: 'Service unavailable',
    page: 'The database cannot be reached right now. Try again in a moment.',
    description: 'Database unreachable or shutting down',
  },
} as const satisfies Record<number, CatalogEntry>

export type ErrorStatus = keyof typeof ERROR_CATALOG

const STATUS_OF_KIND: Record<DomainErrorKind, ErrorStatus> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  conflict: 409,
}

/** An error whose status and message are meant for the client as they are. */
export class HttpError extends Error {
  readonly statusCode: ErrorStatus
  constructor (statusCode: ErrorStatus, message: string = ERROR_CATALOG[statusCode].message) {
    super(message)
    this.statusCode = statusCode
  }
}

const isErrorStatus = (status: unknown): status is ErrorStatus => typeof status === 'number' && status in ERROR_CATALOG

/** The catalog's entry of a status; a 4xx the catalog does not name reads as a 400. */
const entryOf = (status: number): CatalogEntry => isErrorStatus(status) ? ERROR_CATALOG[status] : ERROR_CATALOG[400]

const hasKey = (part: unknown, key: string) => typeof part === 'object' && part !== null && Object.hasOwn(part, key)

/**
 * An input error as the API words it: where its field was (`body/`, `params/`, `querystring/`), then the domain's
 * sentence, which starts with the field (`config/token must ...`).
 */
export function inputErrorMessage (error: InvalidInputError, request?: FastifyRequest): string {
  const top = error.field.split('/')[0]
  const part = hasKey(request?.params, top) ? 'params' : hasKey(request?.query, top) ? 'querystring' : 'body'
  return `${part}/${error.message}`
}

/** Status and message of an error meant for the client (bare 4xx: no message); undefined for a server failure. */
function clientErrorOf (
  error: Error & { statusCode?: number, validation?: unknown }, request: FastifyRequest
): { status: number, message?: string } | undefined {
  if (error instanceof InvalidInputError) return { status: STATUS_OF_KIND[error.kind], message: inputErrorMessage(error, request) }
  // Every refusal of a role reads alike (api-contract section 12): the catalog's message.
  if (error instanceof DomainError) return { status: STATUS_OF_KIND[error.kind], message: error.kind === 'forbidden' ? undefined : error.message }
  const status = error.statusCode
  const is4xx = typeof status === 'number' && status >= 400 && status < 500
  if (error instanceof HttpError || error.validation) return { status: is4xx || status === 503 ? status! : 400, message: error.message }
  return is4xx ? { status } : undefined
}

/** What the API says for the errors of Fastify's body parsers, more precisely than the status's message. */
const PARSER_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Body must not be empty when Content-Type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
}

/** The status and words of any error a request ended with; a server-side failure is logged, never described. */
export function describeError (
  error: Error & { statusCode?: number, validation?: unknown, code?: string }, request: FastifyRequest, wording: 'message' | 'page'
): { status: number, message: string } {
  const known = clientErrorOf(error, request)
  if (known) {
    const parserMessage = wording === 'message' && error.code ? PARSER_MESSAGES[error.code] : undefined
    return { status: known.status, message: known.message ?? parserMessage ?? entryOf(known.status)[wording] }
  }
  if (isDatabaseUnavailable(error)) {
    // Refused while the database is known to be down: many such, and the outage itself is logged once (plugins/db.ts).
    if (refusalCode(error) === 'DATABASE_DOWN') request.log.debug('database down: refused')
    else request.log.warn({ err: error }, 'database unavailable')
    return { status: 503, message: ERROR_CATALOG[503][wording] }
  }
  request.log.error({ err: error }, 'request failed')
  const message = ERROR_CATALOG[500][wording]
  return { status: 500, message: wording === 'page' ? `${message} The log has the details under request id ${request.id}.` : message }
}

/** The reason phrase of a status line (`Request Timeout`). */
export const reasonPhrase = (status: number) => STATUS_CODES[status] ?? 'Error'

/** The `{error}` body of a status, as JSON text. */
export const errorBody = (status: ErrorStatus, message: string = ERROR_CATALOG[status].message) => JSON.stringify({ error: message })

type DocumentedStatus = { [S in ErrorStatus]: (typeof ERROR_CATALOG)[S] extends { description: string } ? S : never }[ErrorStatus]

/** One error response of the OpenAPI document: the catalog's description and example unless the route gives them. */
export function errorResponse (status: DocumentedStatus, description?: string, example?: string) {
  const entry: CatalogEntry = ERROR_CATALOG[status]
  return {
    description: description ?? entry.description!,
    content: { 'application/json': { schema: Type.Ref(ErrorSchema), example: { error: example ?? entry.example ?? entry.message } } },
  }
}

/** The error responses a route can give: always 401, 429, 500 and 503, plus the ones named. */
export function errorResponses (...statuses: DocumentedStatus[]) {
  const all = [...new Set<DocumentedStatus>([...statuses, 401, 429, 500, 503])].sort()
  return Object.fromEntries(all.map((status) => [status, errorResponse(status)]))
}
