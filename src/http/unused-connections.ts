// Node counts a connection that has sent no request yet (a browser's preconnect, an aborted client's) as busy, so a
// closing server would wait out its headers timeout for it: such connections are ended once the app starts closing.
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

export function endUnusedConnectionsOnClose (app: FastifyInstance): void {
  const unused = new Set<Socket>()
  let closing = false
  app.server.on('connection', (socket: Socket) => {
    if (closing) return socket.destroy()
    unused.add(socket)
    socket.once('close', () => unused.delete(socket))
  })
  app.server.on('request', (request: { socket: Socket }) => unused.delete(request.socket))
  app.addHook('preClose', async () => {
    closing = true
    for (const socket of unused) socket.destroy()
  })
}
