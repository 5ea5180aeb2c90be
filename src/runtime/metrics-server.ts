// The worker's own GET /metrics on METRICS_PORT: a bare node:http server, as the worker process has no API.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { bearerMatches, type Metrics } from './metrics.ts'

export interface MetricsServer {
  port: number
  close: () => Promise<void>
}

const json = (res: http.ServerResponse, status: number, error: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify({ error }))
}

/** Listens on `host`:`port` (0: a free one) and answers GET /metrics with the bearer `token`, as the API does. */
export async function serveMetrics (
  metrics: Metrics, options: { host: string, port: number, token: string, onError: (err: unknown) => void }
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (path !== '/metrics') return json(res, 404, 'Not found')
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, 'Method not allowed', { allow: 'GET, HEAD' })
    if (!bearerMatches(req.headers.authorization, options.token)) return json(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="metrics"' })
    metrics.render().then((text) => {
      res.writeHead(200, { 'content-type': metrics.contentType }).end(req.method === 'HEAD' ? undefined : text)
    }, (err: unknown) => {
      options.onError(err)
      json(res, 500, 'Internal server error')
    })
  })
  // A scrape is one short request: idle keep-alive connections must not hold a stop.
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}
