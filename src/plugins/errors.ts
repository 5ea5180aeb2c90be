// One error shape ({error}), one error handler, one not-found handler, a request id on every reply,
// and 503 for requests that arrive while the server shuts down.
import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { HttpError, isDatabaseUnavailable } from '../errors.ts'

const MESSAGES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'API key does not have access to this resource',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  413: 'Request body is too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  431: 'Request header fields too large',
  500: 'Internal server error',
  503: 'Service unavailable',
}

const PARSER_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Body must not be empty when Content-Type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
}

export default fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => { closing = true })

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    if (closing) {
      reply.header('connection', 'close')
      throw new HttpError(503, MESSAGES[503])
    }
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
    let message: string
    if (error.validation || error instanceof HttpError) {
      message = error.message
    } else if (status < 500) {
      message = PARSER_MESSAGES[error.code] ?? MESSAGES[status] ?? 'Bad request'
    } else if (isDatabaseUnavailable(error)) {
      status = 503
      message = MESSAGES[503]
      request.log.warn({ err: error }, 'database unavailable')
    } else {
      status = 500
      message = MESSAGES[500]
      request.log.error({ err: error }, 'request failed')
    }
    if (status === 401) reply.header('www-authenticate', 'Bearer')
    return reply.code(status).type('application/json; charset=utf-8').send({ error: message })
  })

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: MESSAGES[404] })
  })
}, { name: 'errors', fastify: '5.x' })
