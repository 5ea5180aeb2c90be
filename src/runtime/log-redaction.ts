// pino's error serializer minus the secrets a failed query carries: its parameters are cut from the log line and
// from the error an entry point prints; the SQL, which has only placeholders, stays.
import pino from 'pino'

const REDACTED = '[redacted]'
/** The fields database drivers and drizzle put a query's parameters in. */
const PARAMETER_FIELDS = new Set(['params', 'parameters', 'args'])
// Anything shaped like a SHA-256 in hex (an API key's or a session's hash) or an API key, wherever it is.
const SECRET_SHAPES = /\b[0-9a-f]{64}\b|\bsk_[A-Za-z0-9]{20,}/g

type Serialized = Record<string, unknown>

/** The text each error of the cause chain made of its parameters (drizzle: `params: ${params}` in its message). */
function parameterTexts (err: unknown): string[] {
  const texts: string[] = []
  for (let e = err as { params?: unknown, cause?: unknown } | undefined, depth = 0; e && depth < 10; e = e.cause as typeof e, depth++) {
    if (Array.isArray(e.params) && e.params.length > 0) texts.push(String(e.params))
  }
  return texts
}

function scrubText (text: string, parameters: string[]): string {
  let scrubbed = text
  for (const parameterText of parameters) scrubbed = scrubbed.replaceAll(parameterText, REDACTED)
  // PostgreSQL's detail of a constraint violation quotes the row's values: `Key (email)=(a@b.c) already exists`.
  return scrubbed.replace(SECRET_SHAPES, REDACTED).replace(/(Key \([^)]*\)=\()[\s\S]*?(\) (?:already exists|is not present))/g, `$1${REDACTED}$2`)
}

function scrub (value: unknown, parameters: string[], depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value, parameters)
  if (depth > 5 || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map((item) => scrub(item, parameters, depth + 1))
  const out: Serialized = {}
  for (const [key, field] of Object.entries(value)) {
    out[key] = PARAMETER_FIELDS.has(key) ? REDACTED : scrub(field, parameters, depth + 1)
  }
  return out
}

/** pino's `err` serializer with query parameters and key-shaped secrets replaced by `[redacted]`. */
export function redactedError (err: Error): ReturnType<typeof pino.stdSerializers.err> {
  return scrub(pino.stdSerializers.err(err), parameterTexts(err)) as ReturnType<typeof pino.stdSerializers.err>
}

/** The same for a text about `err`, such as runMain's line. */
export function redactedText (text: string, err: unknown): string {
  return scrubText(text, parameterTexts(err))
}

/** The serializers of every Pingward logger (the API's and the worker's). */
export const logSerializers = { err: redactedError }
