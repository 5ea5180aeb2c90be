// Request logging: one flat line per request when it is done, instead of Fastify's two (incoming, completed).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's path holds a credential (a heartbeat's ping token): its log line names the route, not the URL. */
    secretInPath?: true
  }
}

/**
 * The "request completed" line also carries what the "incoming request" line said (method, URL, host,
 * client address): every request is still logged at info with its id, status and time, for half the
 * writes, and flat fields instead of Fastify's nested req/res objects (serialized through a generic
 * stringify): both were measurable on the API's cheapest read (bench/results.md, "Measurements behind the source").
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const fields = {
      method: request.method,
      url: request.routeOptions.config.secretInPath ? request.routeOptions.url : request.url,
      host: request.host,
      remoteAddress: request.ip,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    }
    if (error) reply.log.error({ ...fields, err: error }, 'request errored')
    else reply.log.info(fields, 'request completed')
  }
}
