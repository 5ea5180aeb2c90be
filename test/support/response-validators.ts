// Validators of JSON the service sends: against the committed OpenAPI document (a route's 200, a webhook's body),
// and against a route's TypeBox schema (with the shared schemas it refers to), with formats checked. Apart from
// the app's own Ajv on purpose: the document is checked as a client reads it.
import { readFileSync } from 'node:fs'
import { Ajv2020, type Options } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import { deref, type Schema } from '../fuzz/schema-arbitrary.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default

/** openapi/openapi.json, the committed document. */
export const openapiDocument = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Schema

/** An Ajv of the document's dialect (JSON Schema 2020-12) that checks formats; `options` are Ajv's. */
export function documentAjv (options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, ...options })
  addFormats(ajv)
  return ajv
}

/** The validators' Ajv, every error reported. */
export const ajv = documentAjv({ allErrors: true })

/** The answer of GET `path` (as the document names it) as the document declares it. */
export const documentedGetAnswer = (path: string) =>
  ajv.compile(deref(openapiDocument.paths[path].get.responses['200'].content['application/json'].schema, openapiDocument))

/** The answer as the route's TypeBox schema says, `shared` being the schemas it refers to by $id. */
export function typeboxAnswer (schema: TSchema, ...shared: TSchema[]) {
  for (const referred of shared) if (!ajv.getSchema(referred.$id!)) ajv.addSchema(referred)
  return ajv.compile(schema)
}
