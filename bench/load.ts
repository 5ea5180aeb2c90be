// The load generator, a process of its own: runs autocannon with the JSON options on its stdin and prints
// a JSON summary on stdout. Paths rotate through `paths` so that reads touch many monitors.
import autocannon from 'autocannon'

export interface LoadOptions {
  url: string
  method: 'GET' | 'POST'
  /** Request paths, used in turn by all connections together. */
  paths: string[]
  headers: Record<string, string>
  body?: string
  connections: number
  durationSeconds: number
}

export interface LoadResult {
  requests: number
  durationSeconds: number
  rps: number
  latencyMs: { p50: number, p90: number, p99: number, max: number, mean: number }
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  /** When autocannon began and finished (epoch ms): the window its load covers. */
  startedAt: number
  finishedAt: number
}

async function main (): Promise<void> {
  // On stdin, not in argv: 10,000 ping paths are more than an argument may hold (E2BIG).
  let input = ''
  for await (const chunk of process.stdin) input += String(chunk)
  const options = JSON.parse(input) as LoadOptions
  let next = 0
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [{
      method: options.method,
      headers: { ...options.headers, ...(options.body ? { 'content-type': 'application/json' } : {}) },
      body: options.body,
      setupRequest: (request) => {
        request.path = options.paths[next++ % options.paths.length]
        return request
      },
    }],
  })
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count)]))
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0)
  const summary: LoadResult = {
    requests,
    durationSeconds: result.duration,
    rps: requests / result.duration,
    latencyMs: {
      p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.average,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    startedAt: result.start.getTime(),
    finishedAt: result.finish.getTime(),
  }
  process.stdout.write(JSON.stringify(summary) + '\n')
}

main().catch((err: unknown) => {
  process.stderr.write(`bench load: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
