// Response serializers made on their first use: Fastify's own (fast-json-stringify, with the shared schemas),
// each compiled when its route first answers with its status, and once for the routes that answer with the
// same schema object (a GET and its HEAD twin).
import { createRequire } from 'node:module'

type Serialize = (data: unknown) => string
/** Fastify's `compilersFactory.buildSerializer` (the types of @fastify/fast-json-stringify-compiler). */
interface RouteDefinition { method: string, url: string, httpStatus: string, schema?: unknown }
type SerializerFactory = (externalSchemas?: unknown, options?: object) => (route: RouteDefinition) => Serialize

/**
 * Fastify's default serializer factory, as Fastify itself loads it (the package is Fastify's dependency, not
 * ours: resolved from Fastify's own location, the version Fastify was installed with).
 */
function fastifyDefaultFactory (): SerializerFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))
  const selector = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory
  return selector()
}

/**
 * `schemaController.compilersFactory.buildSerializer` for Fastify: what the default makes, compiled on first
 * use. Fastify compiled every route's serializers at start, each status's and each HEAD route's again (~0.25 s
 * of CPU in a restart's profile, and their code in the heap), though most are never used.
 */
export function lazySerializerFactory (): SerializerFactory {
  // fast-json-stringify itself is loaded with the first serializer made, not at start.
  let buildDefault: SerializerFactory | undefined
  return (externalSchemas, options) => {
    let compile: ReturnType<SerializerFactory> | undefined
    // By schema object: the same object gives the same serializer in this context.
    const compiled = new WeakMap<object, Serialize>()
    return (route) => {
      let serialize: Serialize | undefined
      return (data: unknown) => {
        if (!serialize) {
          const schema = route.schema as object
          compile ??= (buildDefault ??= fastifyDefaultFactory())(externalSchemas, options)
          serialize = compiled.get(schema) ?? compile(route)
          compiled.set(schema, serialize)
        }
        return serialize(data)
      }
    }
  }
}
