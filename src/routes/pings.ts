// Heartbeat ping URLs at the server's root (/ping/{token}, /ping/{token}/fail): the token is the credential, limited per token.
import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { pingRecorder, PING_BODY_MAX_BYTES } from '../checks/pings.ts'
import { errorResponse, HttpError } from '../http/error-catalog.ts'
import { PING_PATH } from '../monitors/presenter.ts'

interface PingRoutesOptions {
  /** PING_RATE_LIMIT: pings per minute per token. */
  perMinute: number
}

const Params = Type.Object({
  // The router's maxParamLength (src/app.ts) already refuses a longer one.
  token: Type.String({ maxLength: 200, description: 'The token of the heartbeat\'s `ping_url`', examples: ['hb_6Qm2xTz9LkP4vW8sYb3nRc'] }),
})

const NOT_FOUND = 'No heartbeat monitor has this ping URL'
const PAUSED = 'The monitor is paused: the ping was not recorded'

const RESPONSES = {
  200: {
    description: 'The ping is recorded: `OK` as plain text',
    content: { 'text/plain; charset=utf-8': { schema: Type.String({ examples: ['OK'] }) } },
  },
  400: errorResponse(400, 'A malformed request: a URL path that is not valid percent-encoding, or a token too long',
    'Bad request: a path segment is too long'),
  404: errorResponse(404, 'No live heartbeat monitor has this token (a wrong URL, another kind of monitor, or a deleted one); ' +
    'counted against the client address\'s API rate limit', NOT_FOUND),
  409: errorResponse(409, 'The monitor is paused: pings are not recorded until it is resumed', PAUSED),
  413: errorResponse(413),
  429: errorResponse(429, 'More pings of this token than the server allows per minute (`PING_RATE_LIMIT`), or more unknown tokens ' +
    'from this address than the API\'s rate limit allows (`RATE_LIMIT_MAX`); see `retry-after`', 'Rate limit exceeded'),
  500: errorResponse(500),
  503: errorResponse(503),
}

const DESCRIPTION = 'No key: the token in the path is the credential, so keep the URL secret. Any body (none, text, JSON, a form, ' +
  `bytes; up to 1 MiB) is accepted and never parsed; its first ${PING_BODY_MAX_BYTES / 1024} KiB are kept with the check. ` +
  'Pings of one token are rate limited per minute; unknown tokens count against the client address\'s API rate limit, ' +
  'and once it is spent, pings from that address of a token the server has not seen live lately are refused too. HEAD works as GET.'

type AddressLimit = Exclude<Awaited<ReturnType<ReturnType<FastifyRequest['server']['createRateLimit']>>>, { isAllowed: true }>

function addressHeaders (reply: FastifyReply, state: AddressLimit): void {
  reply.header('x-ratelimit-limit', state.max).header('x-ratelimit-remaining', state.remaining).header('x-ratelimit-reset', state.ttlInSeconds)
}

/** The name of a token's bucket: 128 bits of its SHA-256, as unique as the token and no way back to it. */
export function tokenDigest (token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22)
}

const pingRoutes: FastifyPluginAsyncTypebox<PingRoutesOptions> = async (app, options) => {
  // This context only: a body is taken as bytes whatever its content type says; the API's JSON parsers are untouched.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  // One limiter for every ping route, so that GET, POST, HEAD and /fail share one bucket, named by a hash of the
  // token: whoever reads Redis gets no ping URL. It says only Retry-After, so that the answer stays a few bytes.
  const limiterOptions = {
    max: options.perMinute,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `ping:${tokenDigest((request.params as { token: string }).token)}`,
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
  }
  const limit = app.rateLimit(limiterOptions) as unknown as onRequestAsyncHookHandler
  // Pings that arrive together share one transaction; the answer waits for the commit, so `OK` means recorded.
  const record = pingRecorder(app.db)
  // The API's own limiter counts unknown tokens per address; a valid ping never counts, so guesses never hold one up.
  const addressLimit = app.createRateLimit()
  const addressGate: onRequestAsyncHookHandler = async (request, reply) => {
    if (record.seenLive((request.params as { token: string }).token)) return
    const state = await addressLimit(request, { increment: false })
    if (state.isAllowed || state.remaining > 0) return
    addressHeaders(reply, state)
    reply.header('retry-after', state.ttlInSeconds)
    throw new HttpError(429)
  }

  for (const fail of [false, true]) {
    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: `${PING_PATH}:token${fail ? '/fail' : ''}`,
        // This route's own limit per token, not the API's; the token is a credential, so the log names the route.
        config: { rateLimit: false, secretInPath: true },
        onRequest: [addressGate, limit],
        schema: {
          tags: ['heartbeats'],
          summary: `${fail ? 'Report a failed run of a heartbeat\'s job' : 'Ping a heartbeat'} (${method})`,
          description: `Records ${fail ? 'a failing check; its error message quotes the body\'s first line (`ping /fail: ...`)' : 'a passing check'}. ${DESCRIPTION}`,
          operationId: `${fail ? 'failHeartbeat' : 'pingHeartbeat'}${method === 'POST' ? 'Post' : ''}`,
          security: [],
          params: Params,
          response: RESPONSES,
        },
        handler: async (request, reply) => {
          const body = Buffer.isBuffer(request.body) ? request.body : undefined
          const outcome = await record({ token: request.params.token, fail, body, at: app.clock() })
          if (outcome === 'unknown') {
            const state = await addressLimit(request)
            if (!state.isAllowed) addressHeaders(reply, state)
            throw new HttpError(404, NOT_FOUND)
          }
          if (outcome === 'paused') throw new HttpError(409, PAUSED)
          return reply.type('text/plain; charset=utf-8').send('OK')
        },
      })
    }
  }
}

export default pingRoutes
