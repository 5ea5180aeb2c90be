// The API's HTTP conveniences in the /api/v1 context: CORS for CORS_ORIGINS, ETags with 304, gzip or br.
import fp from 'fastify-plugin'
import xxhash, { type XXHashAPI } from 'xxhash-wasm'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fastifyCompress from '@fastify/compress'
import fastifyCors from '@fastify/cors'

interface ApiResponsesOptions {
  /** CORS_ORIGINS: comma-separated origins ("https://app.example.com"); unset: no CORS headers at all. */
  corsOrigins?: string
}

/** The headers a script on an allowed origin may send, and those of our answers it may read. */
const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'if-none-match']
const CORS_EXPOSED_HEADERS = ['etag', 'link', 'location', 'retry-after', 'x-request-id',
  'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']

function parseOrigins (list: string | undefined): string[] {
  return (list ?? '').split(',').map((origin) => origin.trim().toLowerCase()).filter(Boolean)
}

export default fp<ApiResponsesOptions>(async (api, options) => {
  const origins = new Set(parseOrigins(options.corsOrigins))
  if (origins.size > 0) {
    // Keys travel in a header, so no credentials mode; a preflight is answered before the key is asked for.
    await api.register(fastifyCors, {
      origin: (origin, allow) => allow(null, origin !== undefined && origins.has(origin.toLowerCase())),
      strictPreflight: false,
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      allowedHeaders: CORS_REQUEST_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    })
  }
  // A context hook: it runs before compression's (a route hook), so the tag is of the uncompressed body.
  api.addHook('onSend', etagHook(await xxhash()))
  // Compressed answers when Accept-Encoding asks; compressed request bodies are not taken.
  await api.register(fastifyCompress, { encodings: ['br', 'gzip'], globalDecompression: false })
}, { name: 'api-responses', fastify: '5.x' })

/**
 * A weak tag (compression changes the bytes, not the meaning) on every successful read, and 304 when If-None-Match
 * names it. XXH64, not a cryptographic digest: a tag must change with the body, not resist forgery.
 */
function etagHook ({ h64Raw, h64 }: Pick<XXHashAPI, 'h64Raw' | 'h64'>) {
  return function etag (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200 ||
      (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload)
    const digest = typeof payload === 'string' ? h64(payload) : h64Raw(payload)
    const tag = `W/"${digest.toString(16).padStart(16, '0')}"`
    reply.header('etag', tag)
    if (!matches(request.headers['if-none-match'], tag)) return done(null, payload)
    // No body, and no Content-Length of an empty one (a cache could take it for the stored body's). A HEAD keeps its
    // payload: Fastify's HEAD hook measures it into Content-Length (the 200's, as a 304 may say) and drops it.
    reply.code(304).removeHeader('content-type')
    done(null, request.method === 'HEAD' ? payload : null)
  }
}

/** If-None-Match's weak comparison: `*`, or any listed tag equal to ours with or without `W/`. */
function matches (header: string | undefined, tag: string): boolean {
  if (!header) return false
  const opaque = tag.slice(2)
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim()
    return trimmed === '*' || trimmed === tag || trimmed === opaque
  })
}
