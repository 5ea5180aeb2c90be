// Whether an error means the database cannot be reached right now (the edge answers 503, the checker retries).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
])

/** True when the error (or what caused it) says the database cannot be reached right now. */
export function isDatabaseUnavailable (err: unknown): boolean {
  for (let e = err as { code?: unknown, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true
    if (e instanceof Error && /PGlite is closed|database system is shutting down/.test(e.message)) return true
  }
  return false
}
