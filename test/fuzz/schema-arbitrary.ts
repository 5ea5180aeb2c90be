// fast-check arbitraries made from the JSON Schemas of the OpenAPI document: values that are valid, and
// values that break one rule (type, range, length, format, enum, required, unknown field).
import fc from 'fast-check'

export type Schema = Record<string, any>

/** Replaces local `$ref`s (`#/components/schemas/X`) by copies of what they point at (the document has no cycles). */
export function deref (node: unknown, doc: Schema): any {
  if (Array.isArray(node)) return node.map((item) => deref(item, doc))
  if (node === null || typeof node !== 'object') return node
  const { $ref, ...rest } = node as Schema
  if (typeof $ref === 'string') {
    const target = $ref.replace(/^#\//, '').split('/').reduce((at: Schema, key) => at[key], doc)
    return deref({ ...target, ...rest }, doc)
  }
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, deref(value, doc)]))
}

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud83d', '\ude00b']
/** Strings that have broken parsers, databases and logs: NUL, lone surrogates, bidi overrides, and so on. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '', ' ', '\u0000', 'a\u0000b', '\u202eevil', '\u200b', '\ufeff', '\u0301', '😀', '👨‍👩‍👧', 'ǅ', '\r\n', '\t',
      // eslint-disable-next-line no-template-curly-in-string -- a log4shell-style input, meant literally
      "'; drop table monitors; --", '%00', '%', '${jndi:x}', '../../etc/passwd', '<script>', 'null', 'undefined',
      '__proto__', 'constructor', '1e309', '-0', 'NaN', '\\u0000', ...LONE_SURROGATES
    ),
    weight: 4,
  },
  {
    arbitrary: fc.tuple(fc.constantFrom('x', 'é', '😀', '\u0000', '\ud800'), fc.integer({ min: 256, max: 100_000 }))
      .map(([unit, n]) => unit.repeat(n)),
    weight: 1,
  }
)

/** Any JSON value, odd strings included, nested a little. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer(), fc.double(), oddString,
    fc.constantFrom(1.5, -1, 0, 2 ** 53 + 2, 1e308, -1e308, Number.MIN_VALUE),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(oddString, tie('value'), { maxKeys: 3 })
  ),
})).value

function typesOf (schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type
  if (schema.type) return [schema.type]
  if (schema.enum) return [...new Set(schema.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[]
  return []
}

function matchesType (value: unknown, type: string): boolean {
  switch (type) {
    case 'null': return value === null
    case 'integer': return typeof value === 'number' && Number.isInteger(value)
    case 'number': return typeof value === 'number'
    case 'array': return Array.isArray(value)
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value)
    // eslint-disable-next-line valid-typeof -- the other JSON Schema type names (string, boolean) are typeof's own
    default: return typeof value === type
  }
}

const PUBLIC_URLS = ['https://example.com', 'https://example.com/health?x=1#top', 'http://example.org/', 'https://例え.jp/パス']

function validString (schema: Schema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...(schema.enum as string[]))
  const maxLength = schema.maxLength ?? 2000
  if (schema.format === 'uuid') return fc.uuid()
  if (schema.format === 'email') return fc.emailAddress().filter((address) => address.length <= maxLength)
  if (schema.format === 'date-time') {
    return fc.oneof(
      { arbitrary: fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()), weight: 4 },
      fc.constantFrom('0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-11-21T09:30:00+14:00', '2026-11-21t09:30:00z', '2026-11-21T09:30:00.123456789Z', '2024-02-29T00:00:00-00:00')
    )
  }
  if (schema.format === 'uri') {
    return fc.oneof(
      { arbitrary: fc.constantFrom(...PUBLIC_URLS), weight: 3 },
      fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
    ).filter((url) => url.length <= maxLength)
  }
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined
  // A whole-string pattern (a token's, a topic's) is generated from, not filtered for: few strings match it.
  if (pattern && /^\^.*\$$/.test(schema.pattern)) {
    return fc.stringMatching(pattern).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= maxLength)
  }
  const size = { minLength: schema.minLength ?? 0, maxLength: Math.min(maxLength, 64) }
  return fc.oneof(fc.string({ unit: 'grapheme', ...size }), fc.string({ unit: 'binary', ...size }), oddString)
    .filter((s) => (pattern ? pattern.test(s) : true) && s.length >= (schema.minLength ?? 0) && s.length <= maxLength)
}

/** A value the schema accepts (the subset the document uses: object, array, string, integer, boolean, enum, const, null, oneOf). */
export function validValue (schema: Schema): fc.Arbitrary<unknown> {
  const branches = schema.oneOf ?? schema.anyOf
  if (branches) return fc.oneof(...(branches as Schema[]).map(validValue))
  if ('const' in schema) return fc.constant(schema.const)
  const types = typesOf(schema)
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type })))
  if (schema.enum && types[0] !== 'string') return fc.constantFrom(...schema.enum)
  switch (types[0]) {
    case 'null': return fc.constant(null)
    case 'boolean': return fc.boolean()
    case 'integer': return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 })
    case 'number': return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true })
    case 'string': return validString(schema)
    case 'array': {
      // A list of ids names the caller's own resources, which a random id never is: the valid one is empty.
      if ((schema.items as Schema | undefined)?.format === 'uuid') return fc.constant([])
      const size = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) }
      const items = validValue(schema.items ?? {})
      return schema.uniqueItems ? fc.uniqueArray(items, { ...size, comparator: (a, b) => JSON.stringify(a) === JSON.stringify(b) }) : fc.array(items, size)
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {}
      const model = Object.fromEntries(Object.entries(properties).map(([key, sub]) => [key, validValue(sub)]))
      return fc.record(model, { requiredKeys: schema.required ?? [] })
    }
    default: return anyJson
  }
}

/** A value that breaks at least one rule of the schema. */
export function invalidValue (schema: Schema): fc.Arbitrary<unknown> {
  const types = typesOf(schema)
  const choices: fc.Arbitrary<unknown>[] = [anyJson.filter((v) => !types.some((type) => matchesType(v, type)))]
  if ('const' in schema) choices.push(oddString.filter((s) => s !== schema.const))
  if (!types.includes('null')) choices.push(fc.constant(null))
  if (types.includes('integer') || types.includes('number')) {
    if (schema.minimum !== undefined) choices.push(fc.integer({ min: -(2 ** 40), max: schema.minimum - 1 }))
    if (schema.maximum !== undefined) choices.push(fc.integer({ min: schema.maximum + 1, max: 2 ** 40 }), fc.constant(1e300))
    if (types.includes('integer')) choices.push(fc.constantFrom(1.5, -0.000001), fc.integer().map(String))
  }
  if (types.includes('string')) {
    if (schema.enum) {
      // A nullable enum lists null too: only its strings are bent.
      const strings = (schema.enum as unknown[]).filter((value): value is string => typeof value === 'string')
      choices.push(oddString.filter((s) => !schema.enum.includes(s)), fc.constantFrom(...strings).map((s) => s.toLowerCase() + ' '))
    }
    if (schema.minLength) choices.push(fc.constant(''))
    if (schema.maxLength) choices.push(fc.integer({ min: schema.maxLength + 1, max: schema.maxLength * 4 + 10 }).map((n) => 'x'.repeat(n)))
    if (schema.format === 'uuid') choices.push(badUuid)
    if (schema.format === 'date-time') choices.push(badDateTime)
    if (schema.format === 'uri') choices.push(badUrl)
    // Only the blanks the pattern refuses: a filter that never passes (a pattern that takes any blank, like
    // search's "no NUL") would spin the generator forever.
    const refused = schema.pattern ? [' ', '\t\n', '\u3000', '\u0000'].filter((s) => !new RegExp(schema.pattern, 'u').test(s)) : []
    if (refused.length > 0) choices.push(fc.constantFrom(...refused))
  }
  return fc.oneof(...choices)
}

export const badUuid: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-00000000000', '00000000-0000-0000-0000-0000000000000', '{00000000-0000-4000-8000-000000000000}',
    '00000000000040008000000000000000', 'g0000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-00000000000\u0000', ' 00000000-0000-4000-8000-000000000000',
    '1', '-1', '0', 'null', '...', '%', '%zz', "1' or '1'='1", '00000000-0000-4000-8000-000000000000;', 'a'.repeat(250)),
  fc.uuid().map((u) => u.replace(/-/g, '')),
  fc.uuid().map((u) => `${u}x`),
  // Not "." or "..": clients resolve those dot segments away before a request is sent.
  oddString.filter((s) => s.length > 0 && s !== '.' && s !== '..')
)

const badDateTime: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('2026-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '2026-02-30T00:00:00Z', '2026-11-21', '2026-11-21T09:30:00',
    '2026-11-21 09:30:00Z', '+275760-09-13T00:00:00Z', 'yesterday', '1700000000000', '2026-13-01T00:00:00Z', '2026-11-21T24:00:00Z', '2026-11-21T09:30:00+24:00'),
  oddString
)

const badUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('javascript:alert(1)', 'ftp://example.com', '//example.com', '/relative', 'https://', 'http://[::1', 'https://user:pass@example.com/',
    'http://127.0.0.1/', 'http://localhost:3000/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:10.0.0.1]/', 'http://10.1.2.3/', 'http://0x7f000001/',
    'http://2130706433/', 'http://[fe80::1%25eth0]/', 'http://printer.local/', 'https://exa mple.com', 'https://example.com/\u0000', 'file:///etc/passwd',
    `https://example.com/${'a'.repeat(2100)}`, 'https://a.b:99999/', 'http://[::]/', 'http://0.0.0.0/'),
  oddString
)
