// Response serializers: each compiled on its first use, with only the shared schemas its response refers to.
import fastJsonStringify from 'fast-json-stringify'
import type { TSchema } from '@sinclair/typebox'

type Serialize = (data: unknown) => string
type FjsSchema = Parameters<typeof fastJsonStringify>[0]

// Compiled once per process for every app built over the same shared schemas (the tests build hundreds).
const compiledBySharedSet = new WeakMap<readonly TSchema[], WeakMap<object, Serialize>>()

/** The shared schemas `schema` reaches through `$ref`, keyed by `$id` as fast-json-stringify wants them. */
function referencedSchemas (schema: object, byId: ReadonlyMap<string, FjsSchema>): Record<string, FjsSchema> {
  const found: Record<string, FjsSchema> = {}
  const pending: unknown[] = [schema]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== 'object' || value === null) continue
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        const id = child.split('#')[0]
        const shared = byId.get(id)
        if (shared && !(id in found)) {
          found[id] = shared
          pending.push(shared)
        }
      } else {
        pending.push(child)
      }
    }
  }
  const ownId = (schema as { $id?: unknown }).$id
  if (typeof ownId === 'string') delete found[ownId]
  return found
}

/**
 * Fastify's own compiler hands every shared schema to every response, and fast-json-stringify checks each one
 * each time: building the app took seconds. Handing over only the referenced ones, when first needed, does not.
 */
export function createSerializerCompiler (shared: readonly TSchema[]) {
  const byId = new Map(shared.flatMap(schema => schema.$id === undefined ? [] : [[schema.$id, schema as unknown as FjsSchema] as const]))
  const cache = compiledBySharedSet.get(shared) ?? new WeakMap<object, Serialize>()
  compiledBySharedSet.set(shared, cache)
  const compile = (schema: object): Serialize => {
    let serialize = cache.get(schema)
    if (!serialize) cache.set(schema, (serialize = fastJsonStringify(schema as unknown as FjsSchema, { schema: referencedSchemas(schema, byId) }) as Serialize))
    return serialize
  }
  return ({ schema }: { schema: object }): Serialize => {
    let serialize: Serialize | undefined
    return (data) => (serialize ??= compile(schema))(data)
  }
}
