// Validators of an API answer's JSON: against the served OpenAPI document's declaration of a route's 200, and
// against the route's TypeBox schema (with the shared schemas it refers to), with formats checked.
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { TSchema } from '@sinclair/typebox'
import { deref, type Schema } from '../fuzz/schema-arbitrary.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Schema

export const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

/** The answer of GET `path` (as the document names it) as the document declares it. */
export const documentedGetAnswer = (path: string) =>
  ajv.compile(deref(doc.paths[path].get.responses['200'].content['application/json'].schema, doc))

/** The answer as the route's TypeBox schema says, `shared` being the schemas it refers to by $id. */
export function typeboxAnswer (schema: TSchema, ...shared: TSchema[]) {
  for (const referred of shared) if (!ajv.getSchema(referred.$id!)) ajv.addSchema(referred)
  return ajv.compile(schema)
}
