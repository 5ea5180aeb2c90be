// One error shape ({error}), one error handler, one not-found handler, a request id on every reply, and
// a stop that answers every request it accepted (503 once stopping) while refusing new connections.
import { randomUUID } from 'node:crypto'
import { Server as NetServer, type Socket } from 'node:net'
import { setImmediate as nextTurn } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { describeError, ERROR_CATALOG, errorBody, HttpError, reasonPhrase } from '../http/error-catalog.ts'

/** How long a stop waits for connections accepted just before it to send their request (and hear 503). */
const FIRST_REQUEST_WAIT_MS = 500

export default fp(async (app) => {
  let closing = false
  // Connections accepted whose first request has not arrived yet: Node's server.close() would close them
  // as idle, and their clients would see the connection reset instead of an answer.
  const waitingForRequest = new Set<Socket>()
  let allArrived: (() => void) | undefined
  const arrived = (socket: Socket) => {
    if (waitingForRequest.delete(socket) && waitingForRequest.size === 0) allArrived?.()
  }
  app.server.on('connection', (socket: Socket) => {
    waitingForRequest.add(socket)
    socket.once('close', () => arrived(socket))
  })
  app.server.on('request', (req) => arrived(req.socket))

  app.addHook('preClose', async () => {
    closing = true
    if (!app.server.listening) return
    // Connections the kernel has completed are accepted first (a turn of the event loop, through its poll
    // for I/O): closing the listening socket would reset them. New connections are refused from then on
    // (net's close: the listening socket only), while those accepted get a moment to send their request
    // and be answered 503; Fastify's server.close() then closes what is idle.
    await nextTurn()
    await nextTurn()
    NetServer.prototype.close.call(app.server)
    // A connection the kernel completed after that last turn's accepts is reset by this close: no server
    // can accept it (the race every listening socket has). The time logged here lets that be told apart.
    app.log.info('stopped accepting connections')
    if (waitingForRequest.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await new Promise<void>((resolve) => {
      allArrived = resolve
      timer = setTimeout(resolve, FIRST_REQUEST_WAIT_MS)
    })
    clearTimeout(timer)
  })
  // Requests that began before the stop close their connection too when answered: one left idle would
  // hold the stop for Node's keep-alive timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })

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

/** The methods a path may be asked with; HEAD comes with each GET route. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * The methods the path has routes for, in METHODS' order. A wildcard route (`/docs/static/*`, a CORS
 * `OPTIONS *`) matches any path under it, so it makes no path known.
 */
function allowedMethods (app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => {
    const route = app.findRoute({ method, url: path })
    return route !== null && (route.params as Record<string, string | undefined>)['*'] === undefined
  })
}

/**
 * The one not-found handler: 404, or 405 with `Allow` for a known path asked with another method (RFC 9110
 * 15.5.6). Set after the rate limit is registered, so that unknown routes are counted and carry the
 * rate-limit headers like every other response.
 */
export function setNotFoundHandler (app: FastifyInstance): void {
  app.setNotFoundHandler(app.hasDecorator('rateLimit') ? { preHandler: app.rateLimit() } : {}, (request, reply) => {
    const allowed = allowedMethods(app, request.url)
    // A route of this very method that sent its request here (callNotFound) means "no such thing": 404.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      const allow = allowed.join(', ')
      return reply.code(405).header('allow', allow).send({ error: `${ERROR_CATALOG[405].message}: use ${allow}` })
    }
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
