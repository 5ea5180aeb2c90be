// Request logging: one flat line per request when it is done, instead of Fastify's two (incoming, completed).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's path holds a credential (a heartbeat's ping token): its log line names the route, not the URL. */
    secretInPath?: true
  }
}

// "request completed" also carries what "incoming request" said, as flat fields: half the writes, no nested objects.
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
