// Tests of the tcp probe against real local listeners: up, refused, the address policy, timeouts, abort.
import t from 'tap'
import { createServer, connect, type Socket } from 'node:net'
import { platform } from 'node:os'
import { Worker } from 'node:worker_threads'
import { createProber } from '../../src/checker/probe.ts'
import type { TcpProbeTarget } from '../../src/checker/probe-tcp.ts'
import type { Teardown } from '../helper.ts'
import { testProber } from '../support/prober.ts'
import { freePort, listen } from '../support/target-server.ts'

const tcp = (url: string, timeoutSeconds = 5): TcpProbeTarget => ({ type: 'tcp', url, timeoutSeconds })
const REFUSED = /^target refused: .* a private address; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true$/

/** A TCP listener that counts connections and tells when each one closes. */
async function tcpListener (tt: Teardown, host = '127.0.0.1') {
  const connections: Socket[] = []
  const closed: Array<Promise<void>> = []
  const server = createServer((socket) => {
    connections.push(socket)
    closed.push(new Promise((resolve) => socket.on('close', () => resolve())))
    socket.on('error', () => {})
  })
  const { port } = await listen(tt, server, { host })
  return { port, connections, closed }
}

/** Maps names to fixed addresses, like the probe tests' lookup. */
function fakeLookup (table: Record<string, string[]>) {
  const calls: string[] = []
  const lookup = async (hostname: string) => {
    calls.push(hostname)
    const entry = table[hostname]
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return entry.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }))
  }
  return { lookup, calls }
}

t.test('up: a connection opens, nothing is sent, and it is closed at once', async (t) => {
  const target = await tcpListener(t)
  const result = await testProber(t).probe(tcp(`tcp://127.0.0.1:${target.port}`))
  t.match(result, { isUp: true, degraded: false, statusCode: null, errorMessage: null })
  t.ok(Number.isInteger(result.responseTimeMs) && result.responseTimeMs >= 0)
  t.equal(target.connections.length, 1)
  await target.closed[0] // the probe's side closed it: this resolves only when it did
  t.equal(target.connections[0].bytesRead, 0, 'nothing was sent')
})

t.test('a name is looked up once and the connection goes to the checked address', async (t) => {
  const target = await tcpListener(t)
  const { lookup, calls } = fakeLookup({ 'db.test': ['127.0.0.1'] })
  t.match(await testProber(t, { lookup }).probe(tcp(`tcp://db.test:${target.port}`)), { isUp: true })
  t.same(calls, ['db.test'])
  t.equal(target.connections.length, 1)
  t.match(await testProber(t, { lookup }).probe(tcp(`tcp://nowhere.test:${target.port}`)),
    { isUp: false, statusCode: null, errorMessage: 'DNS lookup failed for nowhere.test (ENOTFOUND)' })
})

t.test('an IPv6 literal in brackets', async (t) => {
  let target: Awaited<ReturnType<typeof tcpListener>>
  try {
    target = await tcpListener(t, '::1')
  } catch {
    t.pass('skipped: no IPv6 loopback here')
    return
  }
  t.match(await testProber(t).probe(tcp(`tcp://[::1]:${target.port}`)), { isUp: true, errorMessage: null })
  t.equal(target.connections.length, 1)
})

t.test('a closed port is down: connection refused', async (t) => {
  const port = await freePort()
  t.match(await testProber(t).probe(tcp(`tcp://127.0.0.1:${port}`)),
    { isUp: false, degraded: false, statusCode: null, errorMessage: `connection refused by 127.0.0.1:${port}` })
})

t.test('the address policy: private addresses refused before any connection, unless allowed', async (t) => {
  const target = await tcpListener(t)
  const strict = testProber(t, { allowPrivateTargets: false })
  t.match(await strict.probe(tcp(`tcp://127.0.0.1:${target.port}`)), { isUp: false, statusCode: null, errorMessage: REFUSED })
  t.match(await strict.probe(tcp(`tcp://127.0.0.1:${target.port}`)), { errorMessage: /^target refused: 127\.0\.0\.1 is a private address/ })
  t.match(await strict.probe(tcp(`tcp://127.1:${target.port}`)), { errorMessage: /^target refused: 127\.0\.0\.1 is a private address/ }, '127.1 is read as 127.0.0.1')
  t.match(await strict.probe(tcp(`tcp://[::1]:${target.port}`)), { errorMessage: /^target refused: ::1 is a private address/ })
  t.match(await strict.probe(tcp(`tcp://localhost:${target.port}`)), { errorMessage: /^target refused: localhost resolves to / })
  const { lookup } = fakeLookup({ 'mixed.test': ['93.184.215.14', '10.0.0.5'] })
  t.match(await testProber(t, { allowPrivateTargets: false, lookup }).probe(tcp('tcp://mixed.test:5432')),
    { errorMessage: /^target refused: mixed\.test resolves to a private address;/ }, 'every resolved address must be allowed')
  t.equal(target.connections.length, 0, 'nothing connected')

  // Exactly 127.0.0.1 counts as public here, as in the HTTP probe's tests.
  const only = testProber(t, { allowPrivateTargets: false, isAllowedAddress: (ip) => ip === '127.0.0.1', lookup: fakeLookup({ 'public.test': ['127.0.0.1'] }).lookup })
  t.match(await only.probe(tcp(`tcp://public.test:${target.port}`)), { isUp: true })
  t.match(await only.probe(tcp(`tcp://127.0.0.2:${target.port}`)), { isUp: false, errorMessage: /^target refused: 127\.0\.0\.2 is a private address/ })
  t.equal(target.connections.length, 1)
  t.match(await testProber(t).probe(tcp(`tcp://127.0.0.1:${target.port}`)), { isUp: true }, 'allowed when private targets are')
})

t.test('targets that are not tcp://host:port fail without a connection', async (t) => {
  const p = testProber(t)
  for (const [url, message] of [
    ['tcp://127.0.0.1', 'invalid tcp target "tcp://127.0.0.1": expected tcp://host:port'],
    ['tcp://127.0.0.1:0', 'invalid tcp target "tcp://127.0.0.1:0": expected tcp://host:port'],
    ['tcp://127.0.0.1:5432/db', 'invalid tcp target "tcp://127.0.0.1:5432/db": expected tcp://host:port'],
    ['tcp://user@127.0.0.1:5432', 'invalid tcp target "tcp://user@127.0.0.1:5432": expected tcp://host:port'],
    ['tcp://127.0.0.1:70000', 'invalid tcp target "tcp://127.0.0.1:70000": expected tcp://host:port'],
    ['http://127.0.0.1:80', 'unsupported URL scheme http:'],
  ]) {
    t.match(await p.probe(tcp(url)), { isUp: false, statusCode: null, errorMessage: message }, url)
  }
})

t.test('a connect that never completes times out within the deadline', { skip: platform() === 'linux' ? false : 'the full accept queue drops SYNs on Linux' }, async (t) => {
  const { port, fill } = await acceptQueueFull(t)
  await fill()
  const started = Date.now()
  const result = await testProber(t).probe(tcp(`tcp://127.0.0.1:${port}`, 1))
  const took = Date.now() - started
  t.match(result, { isUp: false, statusCode: null, errorMessage: 'timeout after 1000 ms' })
  t.ok(took >= 950, `returned after ${took} ms`)
})

t.test('a lookup that never answers times out; an abort ends the check at once', async (t) => {
  const p = testProber(t, { lookup: () => new Promise(() => {}) })
  t.match(await p.probe(tcp('tcp://slow.test:5432', 1)), { isUp: false, errorMessage: 'timeout after 1000 ms' })
  const abort = new AbortController()
  const running = p.probe(tcp('tcp://slow.test:5432', 60), abort.signal)
  abort.abort()
  t.match(await running, { isUp: false, statusCode: null, errorMessage: 'aborted' })
  t.match(await p.probe(tcp('tcp://slow.test:5432'), abort.signal), { errorMessage: 'aborted' }, 'already aborted')
})

t.test('responseTimeMs comes from the injected clock; a closed prober checks nothing', async (t) => {
  const target = await tcpListener(t)
  let calls = 0
  const p = createProber({ allowPrivateTargets: true, now: () => (calls++ === 0 ? 1000 : 1042.4) })
  t.equal((await p.probe(tcp(`tcp://127.0.0.1:${target.port}`))).responseTimeMs, 42)
  await p.close()
  t.match(await p.probe(tcp(`tcp://127.0.0.1:${target.port}`)), { isUp: false, errorMessage: 'prober closed' })
  t.equal(target.connections.length, 1)
})

/**
 * A listener whose process never accepts (a worker thread blocked on Atomics.wait) with a backlog of 1:
 * once `fill()` has queued the two connections Linux keeps for it, the kernel drops further SYNs, so a
 * connect neither succeeds nor fails.
 */
async function acceptQueueFull (tt: Teardown) {
  const wake = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const server = require('node:net').createServer()
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
      parentPort.postMessage(server.address().port)
      Atomics.wait(workerData, 0, 0)
      server.close()
    })`, { eval: true, workerData: wake })
  const clients: Socket[] = []
  tt.teardown(async () => {
    for (const client of clients) client.destroy()
    Atomics.store(wake, 0, 1)
    Atomics.notify(wake, 0)
    await worker.terminate()
  })
  const port = await new Promise<number>((resolve) => worker.once('message', resolve))
  const fill = async () => {
    for (let i = 0; i < 2; i++) {
      const client = connect(port, '127.0.0.1')
      clients.push(client)
      await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject))
    }
  }
  return { port, fill }
}
