// What a `site` monitor's check may send besides its method and URL: the rules on its headers and body.
import { InvalidInputError } from './errors.ts'

/** The most a request body may hold, in characters (64 KiB). */
export const MAX_REQUEST_BODY_BYTES = 65_536

// Set by the HTTP client for each request, or hop-by-hop: a monitor may not choose them.
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer', 'expect',
  // The checker reads the body as it comes (a keyword is matched in it): it asks for no encoding.
  'accept-encoding',
])

/** Headers whose values are secrets: write-only, masked in every answer. */
export function isSecretHeader (name: string): boolean {
  const lower = name.toLowerCase()
  return lower === 'authorization' || lower === 'proxy-authorization' || lower === 'cookie' || /token|key|secret|password/.test(lower)
}

/** Methods whose requests carry no body. */
const BODILESS_METHODS = new Set(['GET', 'HEAD'])

/**
 * Refuses what the schema cannot say: a reserved header, a header given twice (names differ only in case),
 * a body on a GET or HEAD request, a keyword on a HEAD request. `request` is the monitor as it would be after the change.
 */
export function assertSendableRequest (request: {
  method: string, request_headers: Record<string, string>, request_body: string | null, keyword: string | null
}): void {
  const seen = new Set<string>()
  for (const name of Object.keys(request.request_headers)) {
    const lower = name.toLowerCase()
    if (RESERVED_HEADERS.has(lower)) throw new InvalidInputError('request_headers', `body/request_headers: the header "${name}" cannot be set`)
    if (seen.has(lower)) throw new InvalidInputError('request_headers', `body/request_headers: the header "${name}" is given twice`)
    seen.add(lower)
  }
  if (request.request_body !== null && BODILESS_METHODS.has(request.method)) {
    throw new InvalidInputError('request_body', `body/request_body must be null for a ${request.method} request`)
  }
  if (request.keyword !== null && request.method === 'HEAD') {
    throw new InvalidInputError('keyword', 'body/keyword must be null for a HEAD request (its answer has no body)')
  }
}
