// Request validation: strict bodies, coerced URL values, one message per error naming the field and the rule.
import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import type { FastifySchemaValidationError } from 'fastify'

type SchemaErrorDataVar = 'body' | 'headers' | 'params' | 'querystring'

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

const rfc3339DateTime = (addFormats.get('date-time') as { validate: (text: string) => boolean }).validate

/**
 * RFC 3339 as ajv-formats checks it, and also a time the code can use: JavaScript's Date refuses a leap
 * second (`23:59:60`), and PostgreSQL takes only what toISOString() writes with four digits (years 1-9999).
 */
function isUsableDateTime (text: string): boolean {
  if (!rfc3339DateTime(text)) return false
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) return false
  const year = new Date(ms).getUTCFullYear()
  return year >= 1 && year <= 9999
}

function makeAjv (options: Options): Ajv {
  // discriminator: a `oneOf` told apart by a property (a channel's `type`) is checked against the one object
  // that value names, so an error names that object's field instead of "must match exactly one schema".
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: false, removeAdditional: false, discriminator: true, ...options })
  addFormats(ajv)
  ajv.addFormat('date-time', isUsableDateTime)
  // A custom message for a field whose rule is clearer in words than as a regex or format.
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' })
  return ajv
}

/**
 * A validator compiler: bodies strict with defaults applied, URL parts coerced, each compiled on first call.
 * `shared` are the $id schemas that routes refer to: Fastify gives its own only to its own compiler.
 */
export function createValidatorCompiler (shared: readonly TSchema[] = []) {
  let ajvs: { body: Ajv, url: Ajv } | undefined
  const compilers = () => {
    if (ajvs) return ajvs
    ajvs = { body: makeAjv({ coerceTypes: false, useDefaults: true }), url: makeAjv({ coerceTypes: 'array', useDefaults: true }) }
    for (const schema of shared) {
      ajvs.body.addSchema(schema)
      ajvs.url.addSchema(schema)
    }
    return ajvs
  }
  const compile = (schema: object, httpPart?: string): (data: unknown) => boolean => {
    const validate = (httpPart === 'body' ? compilers().body : compilers().url).compile(schema)
    if (httpPart !== 'body') return validate
    // PostgreSQL text holds neither U+0000 nor a lone surrogate (it would fail the insert, or be silently
    // replaced by U+FFFD): refuse both in any string of a body.
    const validateBody = (data: unknown) => {
      const valid = validate(data)
      validateBody.errors = validate.errors
      if (!valid) return false
      const bad = findUnstorableText(data)
      if (bad === undefined) return true
      validateBody.errors = [{ keyword: 'x-storable-text', instancePath: bad.path, schemaPath: '', params: {}, message: bad.message }]
      return false
    }
    validateBody.errors = null as ErrorObject[] | null | undefined
    return validateBody
  }
  return ({ schema, httpPart }: { schema: object, httpPart?: string }) => {
    let validate: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined
    // Fastify reads `errors` off the function it was given, after the call.
    const validateLater = (data: unknown) => {
      validate ??= compile(schema, httpPart)
      const valid = validate(data)
      validateLater.errors = validate.errors
      return valid
    }
    validateLater.errors = null as ErrorObject[] | null | undefined
    return validateLater
  }
}

const UNSTORABLE: Array<[RegExp, string]> = [
  // eslint-disable-next-line no-control-regex -- the NUL character is exactly what this rule refuses
  [/\u0000/, 'must not contain NUL characters'],
  [/\p{Cs}/u, 'must be well-formed Unicode (a lone surrogate is not)'],
]

const ANY_UNSTORABLE = new RegExp(UNSTORABLE.map(([pattern]) => pattern.source).join('|'), 'u')

// The first string (value or key) PostgreSQL cannot store, breadth first; a path is built only for the one refused.
function findUnstorableText (data: unknown): { path: string, message: string } | undefined {
  const values: unknown[] = [data]
  const parents: number[] = [-1]
  const keys: string[] = ['']
  const refusal = (text: string, at: number) => {
    if (!ANY_UNSTORABLE.test(text)) return undefined
    let path = ''
    for (let i = at; i > 0; i = parents[i]) path = `/${keys[i].replace(/~/g, '~0').replace(/\//g, '~1')}${path}`
    return { path, message: UNSTORABLE.find(([pattern]) => pattern.test(text))![1] }
  }
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (typeof value === 'string') {
      const bad = refusal(value, i)
      if (bad) return bad
    } else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        values.push((value as Record<string, unknown>)[key])
        parents.push(i)
        keys.push(key)
        const bad = refusal(key, values.length - 1)
        if (bad) return bad
      }
    }
  }
  return undefined
}

function describe (error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-error-message'] as string | undefined
  switch (error.keyword) {
    case 'additionalProperties': return 'is not allowed'
    case 'required': return 'is required'
    case 'type': return `must be ${String(params.type).replace(',', ' or ')}${error.data === null ? ', not null' : ''}`
    case 'enum': return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`
    case 'discriminator': return describeDiscriminator(error)
    case 'format':
    case 'pattern':
    case 'minLength':
    case 'maxLength':
      if (custom) return custom
      if (error.keyword === 'format') return `must be a valid ${String(params.format)}`
      return error.message ?? 'is invalid'
    default: return error.message ?? 'is invalid'
  }
}

/** The values a discriminated `oneOf` allows for its tag (each object's `const` or `enum` of it). */
function tagValues (schema: { oneOf?: Array<{ properties?: Record<string, { const?: unknown, enum?: unknown[] }> }> }, tag: string): unknown[] {
  return (schema.oneOf ?? []).flatMap((branch) => {
    const property = branch.properties?.[tag]
    return property?.enum ?? (property && 'const' in property ? [property.const] : [])
  })
}

/** A discriminator's error, said of its tag (the path gets it added by firstFieldError). */
function describeDiscriminator (error: ErrorObject): string {
  const params = error.params as { error: string, tag: string }
  if (params.error === 'tag') return 'must be string'
  return `must be one of: ${tagValues(error.parentSchema as object, params.tag).join(', ')}`
}

/** An input error as a form shows it: the top-level field it is about ('' for none) and the API's message. */
export interface FieldError {
  field: string
  /** `body/interval_minutes must be <= 1440`: the path, then the rule. */
  message: string
}

/** The first Ajv error as the field it names (from its path, or the missing or extra property) and its message. */
function firstFieldError (errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): FieldError {
  const error = errors[0] as unknown as ErrorObject
  const params = error.params as Record<string, unknown>
  const child = (params.additionalProperty ?? params.missingProperty ?? (error.keyword === 'discriminator' ? params.tag : undefined)) as string | undefined
  const path = dataVar + error.instancePath + (child ? `/${child}` : '')
  const top = error.instancePath.split('/')[1]
  const field = top === undefined ? child ?? '' : top.replace(/~1/g, '/').replace(/~0/g, '~')
  return { field, message: `${path} ${describe(error)}` }
}

/** The outcome of checking an input outside a request: the input, or its first error as a field error. */
export type Validated<T> = { ok: true, value: T } | { ok: false, error: FieldError }

let sharedCompiler: ReturnType<typeof createValidatorCompiler> | undefined

/** A body validator for input outside an API request (forms, CLI options), with the API's rules and messages. */
export function bodyValidator<T> (schema: TSchema): (input: Record<string, unknown>) => Validated<T> {
  sharedCompiler ??= createValidatorCompiler()
  const validate = sharedCompiler({ schema, httpPart: 'body' }) as ((data: unknown) => boolean) & { errors?: unknown }
  return (input) => validate(input)
    ? { ok: true, value: input as T }
    : { ok: false, error: firstFieldError(validate.errors as FastifySchemaValidationError[], 'body') }
}

/** Turns the first Ajv error into `body/field must ...`. */
export function schemaErrorFormatter (errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): Error {
  const result = new Error(firstFieldError(errors, dataVar).message) as Error & { statusCode: number, validation: unknown }
  result.statusCode = 400
  result.validation = errors
  return result
}
