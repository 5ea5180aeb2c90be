// A TCP proxy in front of a server (the test database) that a test can take away, make hang and bring back:
// an outage of the database as its clients see it, without stopping the database other tests share.
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import type { Teardown } from '../helper.ts'
import { freePort } from './target-server.ts'

interface TcpProxy {
  port: number
  /** Connections are passed on to the target (the start). */
  forward: () => Promise<void>
  /** Nothing listens any more and every open connection is cut: connecting is refused. */
  refuse: () => Promise<void>
  /** Connections are accepted and never answered (a server or network that hangs). */
  hang: () => Promise<void>
}

export async function tcpProxy (t: Teardown, target: { host: string, port: number }): Promise<TcpProxy> {
  const port = await freePort()
  const sockets = new Set<Socket>()
  let mode: 'forward' | 'hang' = 'forward'
  let server: Server | undefined
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy())
  }
  const listen = async (next: typeof mode) => {
    mode = next
    if (server) return
    server = createServer((client) => {
      track(client)
      if (mode === 'hang') return
      const upstream = createConnection(target.port, target.host)
      track(upstream)
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    await new Promise<void>((resolve, reject) => server!.once('error', reject).listen(port, '127.0.0.1', resolve))
  }
  const refuse = async () => {
    const closing = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()))
  }
  t.teardown(refuse)
  await listen('forward')
  return { port, forward: () => listen('forward'), refuse, hang: async () => { await refuse(); await listen('hang') } }
}
