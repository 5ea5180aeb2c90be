// Whether an error means the database cannot be reached right now (the edge answers 503, the checker retries).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
  'DATABASE_DOWN', 'POOL_TIMEOUT',
])

/** Refused without asking the database: known to be down (health.ts) or no connection free in time (driver-workarounds/query-gate.ts). */
export class DatabaseUnavailableError extends Error {
  readonly code: 'DATABASE_DOWN' | 'POOL_TIMEOUT'
  constructor (code: 'DATABASE_DOWN' | 'POOL_TIMEOUT', message: string) {
    super(message)
    this.code = code
  }
}

/** The error and what caused it, a few levels down (drizzle wraps the driver's errors). */
function * causes (err: unknown): Generator<{ code?: unknown }> {
  for (let e = err as { code?: unknown, cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) yield e
}

export function isDatabaseUnavailable (err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true
    if (e instanceof Error && /PGlite is closed|database system is shutting down/.test(e.message)) return true
  }
  return false
}

/** The code of our own refusal behind the error (the database was not asked), if it is one. */
export function refusalCode (err: unknown): DatabaseUnavailableError['code'] | undefined {
  for (const e of causes(err)) if (e instanceof DatabaseUnavailableError) return e.code
  return undefined
}
