// The checker's target: a plain HTTP server on 127.0.0.1 that answers 200 "ok" to every path and counts
// the requests. GET /__stats answers the counts as JSON. Env: PORT.
import { createServer } from 'node:http'

let requests = 0
const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ requests }))
    return
  }
  requests++
  res.end('ok')
})
server.keepAliveTimeout = 5000

process.once('SIGTERM', () => server.close(() => process.exit(0)))
server.listen(Number(process.env.PORT ?? 3002), '127.0.0.1')
