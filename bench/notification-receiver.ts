// The notification benchmark's other end, one process on 127.0.0.1: webhook receivers (POST /hook/...,
// 204, each arrival's webhook-id, path and time kept) and the checks' target (GET /m<n>: 200, or 500 for
// every n that is a multiple of `every` while the monitors are made to fail). GET /__arrivals answers the
// arrivals as JSON ([id, path, ms since the epoch]) and forgets them; POST /__down?every=<k> sets `every`
// (0: none fails). Env: PORT.
import { createServer } from 'node:http'

let every = 0
let arrivals: Array<[string, string, number]> = []
let targetRequests = 0

const server = createServer((req, res) => {
  const url = req.url ?? '/'
  if (req.method === 'POST' && url.startsWith('/hook/')) {
    req.resume()
    req.on('end', () => {
      res.writeHead(204).end()
      arrivals.push([String(req.headers['webhook-id']), url, Date.now()])
    })
    return
  }
  if (/^\/m\d+$/.test(url)) {
    targetRequests++
    const n = Number(url.slice(2))
    res.writeHead(every > 0 && n % every === 0 ? 500 : 200).end('ok')
    return
  }
  if (url.startsWith('/__down')) {
    every = Number(new URL(url, 'http://x').searchParams.get('every') ?? 0)
    res.end()
    return
  }
  if (url === '/__arrivals') {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(arrivals))
    arrivals = []
    return
  }
  if (url === '/__stats') {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ requests: targetRequests, arrivals: arrivals.length }))
    return
  }
  res.writeHead(404).end()
})
server.keepAliveTimeout = 5000

process.once('SIGTERM', () => server.close(() => process.exit(0)))
server.listen(Number(process.env.PORT ?? 3003), '127.0.0.1')
