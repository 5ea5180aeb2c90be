// GET /events: the signed-in user's changes as server-sent events, which dashboard.js turns into fresh page regions.
// Written on the raw response, so no compression or other onSend hook holds it back; ended when the app stops.
import type { ServerResponse } from 'node:http'
import type { FastifyPluginAsync } from 'fastify'
import type { ChangeBatch } from '../../plugins/changes.ts'

/** A comment line this often keeps proxies and Node's idle timeout from closing a quiet stream. */
const HEARTBEAT_MS = 15_000
/** How soon a browser connects again after losing the stream. */
const RETRY_MS = 2000

const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // nginx passes the stream on as it comes instead of buffering it (docs/deploy/nginx.conf).
  'x-accel-buffering': 'no',
}

const eventText = (batch: ChangeBatch) => `event: change\ndata: ${JSON.stringify(batch)}\n\n`

const eventRoutes: FastifyPluginAsync = async (app) => {
  const streams = new Set<ServerResponse>()
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': \n\n')
  }, HEARTBEAT_MS).unref()

  // Before the server waits for its connections to end, which a stream never does by itself.
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    for (const stream of streams) stream.end()
    streams.clear()
  })

  app.get('/events', { config: { role: 'viewer' }, schema: { hide: true }, exposeHeadRoute: false }, (request, reply) => {
    const unsubscribe = app.changes.subscribe(request.session!.orgId, (batch) => reply.raw.write(eventText(batch)))
    reply.hijack()
    reply.raw.writeHead(200, HEADERS)
    reply.raw.write(`retry: ${RETRY_MS}\n\n`)
    streams.add(reply.raw)
    reply.raw.once('close', () => {
      unsubscribe()
      streams.delete(reply.raw)
    })
    return reply
  })
}

export default eventRoutes
