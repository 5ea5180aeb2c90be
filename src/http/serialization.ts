// Fastify's own response serializers, each compiled when first used and once per schema object (a GET and
// its HEAD twin share one).
import { createRequire } from 'node:module'

type Serialize = (data: unknown) => string
/** Fastify's `compilersFactory.buildSerializer` (the types of @fastify/fast-json-stringify-compiler). */
interface RouteDefinition { method: string, url: string, httpStatus: string, schema?: unknown }
type SerializerFactory = (externalSchemas?: unknown, options?: object) => (route: RouteDefinition) => Serialize

// Resolved from Fastify's location: the package is Fastify's dependency, not ours.
function fastifyDefaultFactory (): SerializerFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))
  const selector = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory
  return selector()
}

/** Fastify's default serializers, compiled on first use: most are never used, and each costs start time and heap. */
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
