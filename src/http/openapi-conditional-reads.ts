// The document's side of src/plugins/api-responses.ts: every API read declares its ETag, If-None-Match and 304.
// A @fastify/swagger `transform`: only the document sees it, not validation or serialization.
import type { SwaggerTransform } from '@fastify/swagger'
import { OPENAPI_PATH } from './openapi-conventions.ts'

const ETAG = {
  type: 'string',
  description: 'A weak tag of this answer\'s body: send it back in `If-None-Match` to get `304` while it is unchanged',
  examples: ['W/"3f9d0c61a2b4e875"'],
}

type Loose = Record<string, any>

export const declareConditionalReads: SwaggerTransform = ({ schema: routeSchema, url, route }) => {
  const schema = routeSchema as Loose
  const ok = schema?.response?.[200]
  const read = route.method === 'GET' || route.method === 'HEAD'
  if (!read || !url.startsWith('/api/v1/') || url === OPENAPI_PATH || schema.hide || !ok) return { schema: routeSchema, url }
  const headers = schema.headers ?? { type: 'object', properties: {} }
  return {
    url,
    schema: {
      ...schema,
      headers: {
        ...headers,
        properties: {
          ...headers.properties,
          // Node refuses a request whose headers exceed 16 KiB (its maxHeaderSize), and so any longer tag.
          'if-none-match': { type: 'string', maxLength: 16384, description: 'The `ETag` of an answer you hold: `304` without a body while it is still the answer' },
        },
      },
      response: {
        ...schema.response,
        200: { ...ok, headers: { ...ok.headers, etag: ETAG } },
        304: { type: 'null', description: 'Not Modified: the answer is still the one whose `ETag` was sent in `If-None-Match`; no body', headers: { etag: ETAG } },
      },
    },
  }
}
