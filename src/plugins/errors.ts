// One error shape ({error}), one error handler, one not-found handler, a request id on every reply,
// and 503 for requests that arrive while the server shuts down.
import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { describeError, ERROR_CATALOG, errorBody, HttpError, reasonPhrase } from '../http/error-catalog.ts'

export default fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => { closing = true })

  // Callback style, as the hooks on every request's path are: an async hook costs a promise and a
  // microtask per request even when it has nothing to wait for.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    if (closing) {
      reply.header('connection', 'close')
      return done(new HttpError(503))
    }
    done(ambiguity(request))
  })

  // Node answers an Expect other than 100-continue with a bare 417 unless someone listens: pass the
  // request on to Fastify instead, whose onRequest hook above refuses it with a body and a request id.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message } = describeError(error, request, 'message')
    if (status === 401) reply.header('www-authenticate', 'Bearer')
    return reply.code(status).type('application/json; charset=utf-8').send({ error: message })
  })
}, { name: 'errors', fastify: '5.x' })

/**
 * What HTTP/1.1 leaves unanswerable, refused here instead of by Node with an empty body (app.ts turns off
 * Node's own Host check): no Host, or an expectation other than 100-continue.
 */
function ambiguity (request: FastifyRequest): HttpError | undefined {
  const { host, expect } = request.headers
  if (host === undefined && request.raw.httpVersion === '1.1') return new HttpError(400, 'Bad request: the Host header is missing')
  if (expect !== undefined && !/^100-continue$/i.test(expect)) {
    return new HttpError(417, 'Expectation failed: only 100-continue is supported')
  }
  return undefined
}

/**
 * The one not-found handler. Set after the rate limit is registered, so that unknown routes are
 * counted and carry the rate-limit headers like every other response.
 */
export function setNotFoundHandler (app: FastifyInstance): void {
  app.setNotFoundHandler(app.hasDecorator('rateLimit') ? { preHandler: app.rateLimit() } : {}, (_request, reply) => {
    reply.code(404).send({ error: ERROR_CATALOG[404].message })
  })
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any hook runs (a path with broken
 * percent-encoding, a path segment over maxParamLength) still answers 400 `{error}` with a request id.
 */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? 'Bad request: a path segment is too long'
    : 'Bad request: the URL path is not valid percent-encoding'
  reply.code(400).header('x-request-id', request.id).type('application/json; charset=utf-8').send({ error: message })
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request (headers
 * or URL too large, malformed HTTP, a client too slow to send its request within requestTimeout).
 */
export function clientErrorHandler (this: { log: FastifyRequest['log'] }, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  this.log.debug({ err }, 'client error')
  // Like Node's own handler: only when no response has started on this socket.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && !pending?.headersSent) {
    const body = errorBody(status)
    socket.write(`HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\n\r\n${body}`)
  }
  socket.destroy(err)
}
