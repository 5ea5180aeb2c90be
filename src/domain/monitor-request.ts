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

// Words in a header's name that say its value is a credential (authorization, x-session, x-api-key, ...).
const SECRET_NAME = /auth|cookie|session|credential|pass|sig|token|key|secret/

/** Whether a header is secret (write-only, masked, not sent to another origin): by its name, or marked by the monitor. */
export function isSecretHeader (name: string, marked: readonly string[]): boolean {
  const lower = name.toLowerCase()
  return SECRET_NAME.test(lower) || marked.includes(lower)
}

const BODILESS_METHODS = new Set(['GET', 'HEAD'])

/** Refuses what the schema cannot say about headers, body and keyword; `request` is the monitor after the change. */
export function assertSendableRequest (request: {
  method: string, request_headers: Record<string, string>, secret_headers: readonly string[], request_body: string | null, keyword: string | null
}): void {
  const seen = new Set<string>()
  for (const name of Object.keys(request.request_headers)) {
    const lower = name.toLowerCase()
    if (RESERVED_HEADERS.has(lower)) throw new InvalidInputError('request_headers', `request_headers: the header "${name}" cannot be set`)
    if (seen.has(lower)) throw new InvalidInputError('request_headers', `request_headers: the header "${name}" is given twice`)
    seen.add(lower)
  }
  for (const name of request.secret_headers) {
    if (!seen.has(name.toLowerCase())) throw new InvalidInputError('secret_headers', `secret_headers: the header "${name}" is not one of request_headers`)
  }
  if (request.request_body !== null && BODILESS_METHODS.has(request.method)) {
    throw new InvalidInputError('request_body', `request_body must be null for a ${request.method} request`)
  }
  if (request.keyword !== null && request.method === 'HEAD') {
    throw new InvalidInputError('keyword', 'keyword must be null for a HEAD request (its answer has no body)')
  }
}

/** The origin (scheme, host, port) a site monitor's url sends to; secrets given for one are not sent to another. */
export const originOf = (url: string | null): string | null => url === null ? null : URL.canParse(url) ? new URL(url).origin : null

/** Refuses keeping a secret header's stored value (`carried`) when it would go to a new origin or stop being secret. */
export function assertSecretsGivenAgain (carried: readonly string[], change: { originChanges: boolean, secretAfter: (name: string) => boolean }): void {
  for (const name of carried) {
    if (change.originChanges) {
      throw new InvalidInputError('request_headers', `request_headers: the secret header "${name}" must be given again for the url's new origin`)
    }
    if (!change.secretAfter(name)) {
      throw new InvalidInputError('request_headers',
        `request_headers: the secret header "${name}" must be given again to stop being secret (its value is never shown)`)
    }
  }
}
