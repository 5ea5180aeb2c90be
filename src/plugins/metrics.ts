// The process's Prometheus instruments (METRICS_TOKEN set) as app.metrics, and the HTTP requests counted by
// route. Without a token nothing is counted (nor prom-client loaded). GET /metrics is routes/metrics.ts.
import fp from 'fastify-plugin'
import { statusCounts } from '../repositories/status-counts.ts'
import { createMetrics, type Metrics } from '../runtime/metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's instruments when METRICS_TOKEN is set: the checker of this process reports to them too. */
    metrics: Metrics | undefined
  }
}

export default fp<{ token?: string }>(async (app, { token }) => {
  const metrics = token === undefined
    ? undefined
    : await createMetrics({
      http: true,
      pool: () => app.database.poolUse(),
      statusCounts: () => statusCounts(app.db),
      onStatusCountsError: (err) => app.log.warn({ err }, 'metrics: could not count monitors and deliveries'),
    })
  app.decorate('metrics', metrics)
  if (metrics) {
    // By the route's pattern: one series per route, whatever the ids in the URL.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.httpRequest(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime)
      done()
    })
    app.addHook('onClose', async () => metrics.close())
  }
}, { name: 'metrics', fastify: '5.x', dependencies: ['db'] })
