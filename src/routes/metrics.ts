// GET /metrics: the Prometheus text format for the bearer of METRICS_TOKEN; a 404 when no token is configured.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ERROR_CATALOG, HttpError } from '../http/error-catalog.ts'
import { bearerMatches } from '../runtime/metrics.ts'
import { ErrorSchema } from '../schemas/common.ts'

const EXAMPLE = '# HELP pingward_checks_total Checks recorded by this process, by outcome\n# TYPE pingward_checks_total counter\n' +
  'pingward_checks_total{outcome="up"} 1042\npingward_checks_total{outcome="down"} 17\n'

const metricsRoutes: FastifyPluginAsyncTypebox<{ token?: string }> = async (app, { token }) => {
  const { metrics } = app
  app.get('/metrics', {
    config: { rateLimit: false },
    schema: {
      tags: ['health'],
      summary: 'Metrics in the Prometheus text format',
      description: 'On only when the server has `METRICS_TOKEN`, which the scraper sends as `Authorization: Bearer <token>` (not an API key). ' +
        'Counters are this process\'s since it started; `pingward_monitors` and `pingward_deliveries` are read from the database at each scrape.',
      operationId: 'metrics',
      security: [{ metricsToken: [] }],
      response: {
        200: {
          description: 'The metrics (text exposition format 0.0.4)',
          content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: Type.String({ examples: [EXAMPLE] }) } },
        },
        401: { ...Type.Ref(ErrorSchema), description: 'Missing or wrong metrics token' },
        404: { ...Type.Ref(ErrorSchema), description: 'Metrics are off: the server has no `METRICS_TOKEN`' },
      },
    },
  }, async (request, reply) => {
    if (!metrics || token === undefined) {
      reply.callNotFound()
      return reply
    }
    if (!bearerMatches(request.headers.authorization, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"')
      throw new HttpError(401, ERROR_CATALOG[401].message)
    }
    const text = await metrics.render()
    return reply.type(metrics.contentType).send(text)
  })
}

export default metricsRoutes
