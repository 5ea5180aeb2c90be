// Request validation: strict bodies (no coercion, no dropped fields), coerced query and path values,
// and one message per error that names the field and the rule.
import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaValidationError } from 'fastify'

type SchemaErrorDataVar = 'body' | 'headers' | 'params' | 'querystring'

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

function makeAjv (options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: false, removeAdditional: false, ...options })
  addFormats(ajv)
  // A custom message for a field whose rule is clearer in words than as a regex or format.
  ajv.addKeyword({ keyword: 'x-error-message', schemaType: 'string' })
  return ajv
}

/** A validator compiler for one app: bodies as sent, query strings and path params (text) coerced. */
export function createValidatorCompiler () {
  const bodyAjv = makeAjv({ coerceTypes: false, useDefaults: false })
  const urlAjv = makeAjv({ coerceTypes: true, useDefaults: true })
  return ({ schema, httpPart }: { schema: object, httpPart?: string }) =>
    (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema)
}

function describe (error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-error-message'] as string | undefined
  switch (error.keyword) {
    case 'additionalProperties': return 'is not allowed'
    case 'required': return 'is required'
    case 'type': return `must be ${String(params.type).replace(',', ' or ')}${error.data === null ? ', not null' : ''}`
    case 'enum': return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`
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

/** Turns the first Ajv error into `body/field must ...`. */
export function schemaErrorFormatter (errors: FastifySchemaValidationError[], dataVar: SchemaErrorDataVar): Error {
  const error = errors[0] as unknown as ErrorObject
  const params = error.params as Record<string, unknown>
  const child = (params.additionalProperty ?? params.missingProperty) as string | undefined
  const path = dataVar + error.instancePath + (child ? `/${child}` : '')
  const result = new Error(`${path} ${describe(error)}`) as Error & { statusCode: number, validation: unknown }
  result.statusCode = 400
  result.validation = errors
  return result
}
