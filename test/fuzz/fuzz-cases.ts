// The shape of one fuzz case, request bodies that are not what a schema describes, and URL encoding that
// survives lone surrogates (the fuzzer sends them on purpose).
import fc from 'fast-check'
import type { Schema } from './schema-arbitrary.ts'

export interface Operation {
  name: string
  method: string
  path: string
  query: Array<{ name: string, schema: Schema }>
  /** The path has parameters (all of them get the chosen id). */
  hasId: boolean
  body?: Schema
  /** The document's example of the body: one that the service's own rules take, not only the schema. */
  example?: unknown
  /** Status -> the schema of its JSON body, or null when it has none (204). */
  responses: Record<string, Schema | null>
  secured: boolean
  /** An agent's route: a location's agent token, never an API key. */
  agent: boolean
}

export interface FuzzCase {
  /** The operation's name (the Operation itself would make counterexamples unreadable). */
  op: string
  auth: 'a-write' | 'a-read' | 'b-write' | 'b-read' | 'none' | 'unknown' | 'revoked' | 'expired' | 'junk' | 'agent'
  junkAuth: string
  target: 'mine' | 'theirs' | 'unknown' | 'bad'
  pick: number
  unknownId: string
  badId: { id: string, raw: boolean }
  /** Per query parameter of the operation: its values (more than one repeats it), or undefined. */
  query: Array<string[] | undefined>
  extraQuery: Array<[string, string]>
  body: { text: string | Buffer } | undefined
  contentType: string | undefined
}

const MiB = 1024 * 1024

/** Bodies that are not a JSON value of the right shape: broken JSON, deep nesting, huge, bad UTF-8, prototype keys. */
export const rawBodies: fc.Arbitrary<{ text: string | Buffer }> = fc.oneof(
  fc.constantFrom('', ' ', '{', '{"name":', '{"a":1,}', "{'name':'x'}", 'NaN', 'undefined', '\ufeff', '{"name":"x"}{"name":"y"}', 'name=x&url=y',
    '{"__proto__":{"admin":true},"name":"x","url":"https://example.com"}', '{"constructor":{"prototype":{"admin":true}}}', '[]', 'null', '0', '"text"',
    '{"name":"x","url":"https://example.com","interval_minutes":1e999}', '{"name":"\\ud800","url":"https://example.com"}',
    '{"name":"\\u0000","url":"https://example.com"}').map((text) => ({ text })),
  fc.integer({ min: 1, max: 100_000 }).chain((depth) => fc.constantFrom(
    '['.repeat(depth) + ']'.repeat(depth),
    '{"name":'.repeat(depth) + '1' + '}'.repeat(depth),
    '['.repeat(depth)
  )).map((text) => ({ text })),
  fc.constantFrom(MiB - 64, MiB + 1, 2 * MiB).map((size) => ({ text: JSON.stringify({ name: 'x'.repeat(size), url: 'https://example.com' }) })),
  // Invalid UTF-8 is read as U+FFFD, so this one may well be accepted.
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({
    text: Buffer.concat([Buffer.from('{"name":"x'), Buffer.from(bytes.filter((b) => b !== 0x22 && b !== 0x5c && b >= 0x20)), Buffer.from('","url":"https://example.com"}')]),
  }))
)

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) three UTF-8-style bytes instead of throwing. */
export function encodePart (text: string): string {
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16).toUpperCase()}%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`
    } else {
      out += encodeURIComponent(char)
    }
  }
  return out
}
