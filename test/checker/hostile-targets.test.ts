// The real checker (claim, probe, record) against hostile local targets: each one ends as a recorded check
// by its timeout_seconds at the latest, with a clear message, and twenty at once keep memory bounded.
import t, { type Test } from 'tap'
import http from 'node:http'
import https from 'node:https'
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net'
import { Checker } from '../../src/checker/scheduler.ts'
import { createProber } from '../../src/checker/probe.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { endlessBody, listen as listenLocal, selfSignedCertificate } from '../support/target-server.ts'

const TIMEOUT_SECONDS = 2
const MiB = 1024 * 1024

/** A listening server, closed with all its connections when the test ends; its URL. */
async function listen (t: Test, server: http.Server | TcpServer, scheme = 'http'): Promise<string> {
  return `${(await listenLocal(t, server, { scheme })).url}/`
}

/** A body that never ends, though it says it is 10 GiB long; counts what was written. */
const endless = (status: number, sent: { bytes: number }) =>
  endlessBody(status, sent, { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * MiB) })

/** Sends `head` at once, then `text` one byte a second, never finishing. */
function trickle (head: string, text: string) {
  return (socket: Socket) => {
    socket.write(head)
    let i = 0
    const timer = setInterval(() => { if (!socket.destroyed) socket.write(text[i++ % text.length]) }, 1000)
    socket.on('close', () => clearInterval(timer))
    socket.on('error', () => {})
  }
}

const tls = selfSignedCertificate()

async function hostileTargets (t: Test) {
  const endlessSent = { bytes: 0 }
  let loops = 0
  const urls = {
    silent: await listen(t, createTcpServer((socket) => socket.on('error', () => {}))),
    trickleHeaders: await listen(t, createTcpServer(trickle('', 'HTTP/1.1 200 OK\r\nX-Slow: yes'))),
    trickleBodyUp: await listen(t, createTcpServer(trickle('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n', '.'))),
    trickleBodyDown: await listen(t, createTcpServer(trickle('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 1000000\r\n\r\n', '.'))),
    endlessUp: await listen(t, http.createServer(endless(200, endlessSent))),
    endlessDown: await listen(t, http.createServer(endless(500, endlessSent))),
    redirectLoop: await listen(t, http.createServer((req, res) => { loops++; res.writeHead(302, { location: req.url === '/a' ? '/b' : '/a' }).end() })),
    hugeHeaders: await listen(t, http.createServer((_req, res) => { res.writeHead(200, { 'x-big': 'x'.repeat(512 * 1024) }).end() }).on('clientError', () => {})),
    selfSigned: await listen(t, https.createServer(tls, (_req, res) => res.end('ok')), 'https'),
  }
  return { urls, endlessSent, loops: () => loops }
}

async function setup (t: Test) {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const checker = new Checker({
    db: app.db, clock: () => new Date(), log: app.log, prober: createProber({ allowPrivateTargets: true }), concurrency: 100, confirmDelayMs: 30_000,
  })
  t.teardown(() => checker.stop())
  const { auth } = await makeUser(app)
  const monitor = (url: string) => makeMonitor(app, auth, { url, timeout_seconds: TIMEOUT_SECONDS, failure_threshold: 1 })
  const lastCheck = async (id: string) => (await request(app, auth, { url: `/api/v1/monitors/${id}/checks` })).json().data[0]
  return { app, auth, checker, monitor, lastCheck }
}

t.test('each hostile target is a recorded check within timeout_seconds, with a clear message', async (t) => {
  const { urls, endlessSent, loops } = await hostileTargets(t)
  const { checker, monitor, lastCheck } = await setup(t)
  const expected: Record<keyof typeof urls, { is_up: boolean, status_code: number | null, error_message: string | RegExp | null }> = {
    silent: { is_up: false, status_code: null, error_message: `timeout after ${TIMEOUT_SECONDS * 1000} ms` },
    trickleHeaders: { is_up: false, status_code: null, error_message: `timeout after ${TIMEOUT_SECONDS * 1000} ms` },
    // The status decides (src/checker/probe.ts): a body that never ends is cut at the deadline.
    trickleBodyUp: { is_up: true, status_code: 200, error_message: null },
    trickleBodyDown: { is_up: false, status_code: 503, error_message: 'expected status 200, got 503' },
    endlessUp: { is_up: true, status_code: 200, error_message: null },
    endlessDown: { is_up: false, status_code: 500, error_message: 'expected status 200, got 500' },
    redirectLoop: { is_up: false, status_code: 302, error_message: 'too many redirects (more than 5)' },
    hugeHeaders: { is_up: false, status_code: null, error_message: 'response headers too large' },
    selfSigned: { is_up: false, status_code: null, error_message: 'TLS error: self-signed certificate' },
  }
  const monitors = Object.fromEntries(await Promise.all(Object.entries(urls).map(async ([name, url]) => [name, await monitor(url)])))
  // runOnce() returns once every probe has ended and is recorded. The silent and trickling targets never
  // finish on their own, so their deadline ended them (their messages and results below say which way);
  // the endless bodies were cut at the cap (the bytes written, at the end), the rest answered.
  t.equal(await checker.runOnce(), Object.keys(urls).length, 'all claimed at once')
  for (const [name, want] of Object.entries(expected)) {
    const check = await lastCheck(monitors[name].id)
    t.match(check, want, name)
  }
  t.equal(loops(), 6, 'the redirect loop was followed exactly 5 times')
  t.ok(endlessSent.bytes < 64 * MiB, `the endless bodies were cut off (${(endlessSent.bytes / MiB).toFixed(1)} MiB written by the server)`)
})

t.test('twenty hostile probes at once keep memory bounded', async (t) => {
  const { urls, endlessSent } = await hostileTargets(t)
  const { checker, monitor } = await setup(t)
  const kinds = [urls.endlessUp, urls.endlessDown, urls.trickleBodyDown, urls.silent, urls.hugeHeaders]
  for (let i = 0; i < 20; i++) await monitor(`${kinds[i % kinds.length]}?n=${i}`)
  const baseline = process.memoryUsage().rss
  let peak = baseline
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 25)
  t.teardown(() => clearInterval(sampler))
  t.equal(await checker.runOnce(), 20)
  clearInterval(sampler)
  const growthMiB = (peak - baseline) / MiB
  t.comment(`rss ${(baseline / MiB).toFixed(0)} MiB before, peak +${growthMiB.toFixed(1)} MiB; the servers wrote ${(endlessSent.bytes / MiB).toFixed(0)} MiB`)
  t.ok(growthMiB < 100, `rss grew by ${growthMiB.toFixed(1)} MiB (< 100 MiB)`)
  t.ok(endlessSent.bytes < 20 * 64 * MiB, 'nobody read the endless bodies to the end')
})
