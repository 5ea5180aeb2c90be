// Turns the errors of undici, node:net and node:tls into one line: a failed check's errorMessage, a failed delivery's error.

interface SystemError {
  name?: string
  code?: string
  message?: string
  address?: string
  port?: number
  library?: string
  reason?: string
  cause?: unknown
}

// Certificate verification failures from OpenSSL, as node:tls names them (besides ERR_TLS_* and ERR_SSL_*).
const CERT_CODES = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|CERT_|INVALID_|HOSTNAME_MISMATCH|ERR_TLS_|ERR_SSL_)/

/** A human-readable line for a failure below HTTP (connect, TLS, socket, protocol). */
export function describeNetworkError (error: unknown): string {
  const err = (error ?? {}) as SystemError
  const cause = (err.cause ?? {}) as SystemError
  const code = err.code ?? cause.code ?? ''
  const where = err.address !== undefined ? ` ${err.address}${err.port !== undefined ? `:${err.port}` : ''}` : ''
  switch (code) {
    case 'ECONNREFUSED': return `connection refused by${where}`
    case 'ECONNRESET': return 'connection reset'
    case 'EPIPE': return 'connection reset (broken pipe)'
    case 'UND_ERR_SOCKET': return 'connection closed by the server before a complete response'
    case 'EHOSTUNREACH': return `host unreachable:${where}`
    case 'ENETUNREACH': return `network unreachable:${where}`
    case 'ETIMEDOUT': case 'UND_ERR_CONNECT_TIMEOUT': return `connect timeout${where}`
    case 'UND_ERR_HEADERS_OVERFLOW': return 'response headers too large'
  }
  if (CERT_CODES.test(code) || err.library === 'SSL routines') {
    // OpenSSL's message is a multi-line dump with source paths; its `reason` is the readable part.
    const text = err.library === 'SSL routines' && err.reason ? err.reason : err.message ?? code
    return `TLS error: ${oneLine(text, 200)}`
  }
  if (err.name === 'HTTPParserError' || code.startsWith('HPE_')) return `invalid HTTP response: ${oneLine(err.message ?? code, 200)}`
  const message = oneLine(String(err.message ?? error), 200) || 'unknown error'
  return code && !message.includes(code) ? `${message} (${code})` : message
}

/** Collapses whitespace so an error text fits the one-line errorMessage. */
export function oneLine (text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
