// The shared $id schemas, registered once for validation and serialization, whether or not the document is served.
import fp from 'fastify-plugin'
import type { TSchema } from '@sinclair/typebox'

/** Every $id schema routes refer to; the composition root names them, so no plugin depends on a feature. */
export default fp<{ schemas: TSchema[] }>(async (app, { schemas }) => {
  for (const schema of schemas) app.addSchema(schema)
}, { name: 'schemas', fastify: '5.x' })
