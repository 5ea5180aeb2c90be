// Local servers for tests (and bench/): probe targets on a free port that close with their test, an
// endless body, a free port, and a self-signed certificate for HTTPS targets.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Teardown } from '../helper.ts'

export interface Listening {
  port: number
  /** `scheme://host:port`, without a trailing slash. */
  url: string
}

/**
 * Starts `server` (http, https or plain TCP) on `host` (127.0.0.1) and `port` (0: a free one); at teardown
 * it is closed and its open connections destroyed, so that a target that never answers cannot hold a test.
 * Rejects when the address cannot be used (no IPv6 loopback, a port taken).
 */
export async function listen (
  t: Teardown, server: Server, { host = '127.0.0.1', port = 0, scheme = 'http' }: { host?: string, port?: number, scheme?: string } = {}
): Promise<Listening> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  }))
  const bound = (server.address() as AddressInfo).port
  return { port: bound, url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound}` }
}

/** An HTTP server answering with `handler`, listening until the test ends. */
export async function targetServer (
  t: Teardown, handler: http.RequestListener, options: { host?: string, port?: number } = {}
): Promise<Listening & { server: http.Server }> {
  const server = http.createServer(handler)
  return { server, ...await listen(t, server, options) }
}

/**
 * A handler whose body never ends: 64 KiB chunks as fast as the client takes them, counted in `sent.bytes`.
 * `headers` go out first with `status` (a declared length, say; without one the body is chunked).
 */
export function endlessBody (status: number, sent: { bytes: number }, headers: http.OutgoingHttpHeaders = {}): http.RequestListener {
  return (_req, res) => {
    res.writeHead(status, headers)
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const pump = () => {
      while (!res.destroyed) {
        sent.bytes += chunk.length
        if (!res.write(chunk)) return
      }
    }
    res.on('drain', pump)
    pump()
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it). */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A fresh self-signed certificate for CN=localhost (openssl), for HTTPS targets. */
/**
 * A certificate for DNS:localhost signed by a fresh CA (openssl), valid for `days` (negative: expired that
 * many days ago, as `openssl x509 -days` makes it): `ca` is the root a
 * prober is given (tlsCa) to trust it. Issuer: O=Pingward Test CA, CN=Pingward Test Root.
 */
export function caSignedCertificate (days = 30): { key: Buffer, cert: Buffer, ca: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'pingward-ca-'))
  const at = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' })
  try {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/O=Pingward Test CA/CN=Pingward Test Root', '-days', '2',
      '-keyout', at('ca.key'), '-out', at('ca.pem'))
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', at('key.pem'), '-out', at('req.csr'))
    writeFileSync(at('ext.cnf'), 'subjectAltName=DNS:localhost\n')
    openssl('x509', '-req', '-in', at('req.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-days', String(days),
      '-extfile', at('ext.cnf'), '-out', at('cert.pem'))
    return { key: readFileSync(at('key.pem')), cert: readFileSync(at('cert.pem')), ca: readFileSync(at('ca.pem')) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function selfSignedCertificate (): { key: Buffer, cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'pingward-tls-'))
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
