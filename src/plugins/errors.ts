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
  // Accepted connections whose first request has not arrived: server.close() would reset them as idle.
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
    // Accept what the kernel has completed first (a turn of the event loop), or closing the listener resets it;
    // then only the listener closes, and accepted connections get a moment to send their request and hear 503.
    await nextTurn()
    await nextTurn()
    NetServer.prototype.close.call(app.server)
    // A connection completed after the last accept is reset by this close (every listener's race); the log dates it.
    app.log.info('stopped accepting connections')
    if (waitingForRequest.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await new Promise<void>((resolve) => {
      allArrived = resolve
      timer = setTimeout(resolve, FIRST_REQUEST_WAIT_MS)
    })
    clearTimeout(timer)
    // Node counts a connection that sent nothing (a preconnect) as busy: left open, it holds the stop for its timeout.
    for (const socket of waitingForRequest) socket.destroy()
  })
  // Answered while stopping, a connection closes: one left idle would hold the stop for the keep-alive timeout.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })

  // Callback style, as on every request's path: an async hook costs a promise and a microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    if (closing) {
      reply.header('connection', 'close')
      return done(new HttpError(503))
    }
    done(ambiguity(request))
  })

  // Node answers an unknown Expect with a bare 417 unless someone listens: the hook above refuses it with a body.
  app.server.on('checkExpectation', (req, res) => app.server.emit('request', req, res))

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message } = describeError(error, request, 'message')
    if (status === 401) reply.header('www-authenticate', 'Bearer')
    return reply.code(status).type('application/json; charset=utf-8').send({ error: message })
  })
}, { name: 'errors', fastify: '5.x' })

/** What HTTP/1.1 leaves unanswerable (no Host, an Expect other than 100-continue), refused with a body, not by Node. */
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

/** The methods the path has routes for; a wildcard route matches any path under it, so it makes no path known. */
function allowedMethods (app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => {
    const route = app.findRoute({ method, url: path })
    return route !== null && (route.params as Record<string, string | undefined>)['*'] === undefined
  })
}

/** 404, or 405 with `Allow` for a known path; set after the rate limit, so that unknown routes are counted. */
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

/** Fastify's `frameworkErrors`: what the router refuses before any hook still gets 400 `{error}` and a request id. */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? 'Bad request: a path segment is too long'
    : 'Bad request: the URL path is not valid percent-encoding'
  reply.code(400).header('x-request-id', request.id).type('application/json; charset=utf-8').send({ error: message })
}

/** Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request. */
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
