// Tests of the HTTP(S) probe against real local servers: status, timeouts, redirects, bodies, TLS and the address policy.
import t from 'tap'
import http from 'node:http'
import https from 'node:https'
import { createProber } from '../../src/checker/probe.ts'
import { USER_AGENT } from '../../src/net/user-agent.ts'
import type { Teardown } from '../helper.ts'
import { getTarget, testProber } from '../support/prober.ts'
import { endlessBody, freePort, listen, selfSignedCertificate } from '../support/target-server.ts'

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void
interface Seen { method: string, url: string, headers: http.IncomingHttpHeaders }

const MiB = 1024 * 1024

/** A server on `host`, closed (with its open connections) when the test ends; records every request. */
async function serve (tt: Teardown, handler: Handler, host = '127.0.0.1', port = 0, make: (h: Handler) => http.Server = (h) => http.createServer(h)) {
  const seen: Seen[] = []
  const server = make((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers })
    handler(req, res)
  })
  return { server, seen, port: (await listen(tt, server, { host, port })).port }
}

const prober = testProber
const get = getTarget

/** A lookup that maps names to fixed answers and counts its calls. */
function fakeLookup (table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = []
  const lookup = async (hostname: string) => {
    calls.push(hostname)
    const entry = table[hostname]
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    const addresses = typeof entry === 'function' ? entry() : entry
    return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }))
  }
  return { lookup, calls }
}

const ok: Handler = (_req, res) => res.end('ok')
const REFUSED = /^target refused: .* a private address; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true/

t.test('up: 200 expected 200, with the Pingward User-Agent and no keep-alive', async (t) => {
  const { port, seen } = await serve(t, ok)
  const result = await prober(t).probe(get(`http://127.0.0.1:${port}/health?x=1#frag`))
  t.match(result, { isUp: true, statusCode: 200, errorMessage: null })
  t.ok(Number.isInteger(result.responseTimeMs) && result.responseTimeMs >= 0)
  t.equal(seen.length, 1)
  t.match(seen[0], { method: 'GET', url: '/health?x=1', headers: { 'user-agent': USER_AGENT, host: `127.0.0.1:${port}`, connection: 'close' } })
  t.match(USER_AGENT, /^Pingward\//)
})

t.test('wrong status', async (t) => {
  const { port } = await serve(t, (_req, res) => { res.statusCode = 503; res.end('down') })
  t.same(await prober(t).probe(get(`http://127.0.0.1:${port}/`)).then((r) => ({ ...r, responseTimeMs: 0 })),
    { isUp: false, degraded: false, statusCode: 503, responseTimeMs: 0, errorMessage: 'expected status 200, got 503' })
})

t.test('responseTimeMs comes from the injected clock, rounded', async (t) => {
  const { port } = await serve(t, ok)
  let calls = 0
  const result = await prober(t, { now: () => (calls++ === 0 ? 1000 : 2234.4) }).probe(get(`http://127.0.0.1:${port}/`))
  t.equal(result.responseTimeMs, 1234)
})

t.test('a server that never answers times out within the deadline', async (t) => {
  const { port } = await serve(t, () => {})
  const started = Date.now()
  const result = await prober(t).probe(get(`http://127.0.0.1:${port}/`, { timeoutSeconds: 1 }))
  const took = Date.now() - started
  // The deadline ended it (nothing else would: the server never answers), and not before its time.
  t.match(result, { isUp: false, statusCode: null, errorMessage: 'timeout after 1000 ms' })
  t.ok(took >= 950, `returned after ${took} ms`)
  t.ok(result.responseTimeMs >= 950)
})

t.test('a DNS lookup that never answers also times out', async (t) => {
  // The lookup never settles: only the deadline can end the probe, and the message says it did.
  const result = await prober(t, { lookup: () => new Promise(() => {}) }).probe(get('http://slow.test/', { timeoutSeconds: 1 }))
  t.match(result, { statusCode: null, errorMessage: 'timeout after 1000 ms' })
})

t.test('connection refused', async (t) => {
  const port = await freePort()
  const result = await prober(t).probe(get(`http://127.0.0.1:${port}/`))
  t.match(result, { isUp: false, statusCode: null, errorMessage: `connection refused by 127.0.0.1:${port}` })
})

t.test('connection reset and connection closed without a response', async (t) => {
  const reset = await serve(t, (req) => req.socket.resetAndDestroy())
  const closed = await serve(t, (req) => req.socket.destroy())
  const p = prober(t)
  t.match(await p.probe(get(`http://127.0.0.1:${reset.port}/`)), { statusCode: null, errorMessage: 'connection reset' })
  t.match(await p.probe(get(`http://127.0.0.1:${closed.port}/`)),
    { statusCode: null, errorMessage: 'connection closed by the server before a complete response' })
})

t.test('a response that is not HTTP', async (t) => {
  const { port } = await serve(t, (req) => { req.socket.end('SSH-2.0-OpenSSH\r\n\r\n') })
  const result = await prober(t).probe(get(`http://127.0.0.1:${port}/`))
  t.match(result, { statusCode: null, errorMessage: /^invalid HTTP response: / })
})

t.test('redirects', async (t) => {
  const { port, seen } = await serve(t, (req, res) => {
    const url = req.url ?? ''
    const to = (status: number, location: string) => { res.writeHead(status, { location }); res.end('moved') }
    if (url === '/a') return to(301, '/b') // relative to the path
    if (url === '/b') return to(302, `http://public.test:${port}/c`) // absolute, through a name
    if (url === '/c') return to(307, 'd?q=1') // relative to the directory
    if (url === '/d?q=1') return res.end('final')
    if (url === '/loop') return to(302, '/loop')
    const hops = /^\/n(\d+)$/.exec(url)
    if (hops) return Number(hops[1]) === 0 ? res.end('done') : to(302, `/n${Number(hops[1]) - 1}`)
    if (url === '/ftp') return to(302, 'ftp://example.com/file')
    if (url === '/bad') return to(302, 'http://[oops/')
    if (url === '/post303') return to(303, '/echo')
    if (url === '/post301') return to(301, '/echo')
    if (url === '/post307') return to(307, '/echo')
    if (url === '/echo') return res.end(req.method)
    res.statusCode = 404
    res.end()
  })
  const { lookup, calls } = fakeLookup({ 'public.test': ['127.0.0.1'] })
  const p = prober(t, { lookup })
  const base = `http://127.0.0.1:${port}`
  const paths = () => seen.splice(0).map((s) => `${s.method} ${s.url}`)

  t.test('a chain of 3 redirects ending in 200 is up', async (t) => {
    t.match(await p.probe(get(`${base}/a`)), { isUp: true, statusCode: 200, errorMessage: null })
    t.same(paths(), ['GET /a', 'GET /b', 'GET /c', 'GET /d?q=1'])
    t.same(calls, ['public.test', 'public.test'], 'one lookup per hop on the named host')
    t.equal(seen.length, 0)
  })

  t.test('exactly 5 redirects are followed, a 6th is too many', async (t) => {
    t.match(await p.probe(get(`${base}/n5`)), { isUp: true, statusCode: 200 })
    t.equal(paths().length, 6)
    t.match(await p.probe(get(`${base}/n6`)), { isUp: false, statusCode: 302, errorMessage: 'too many redirects (more than 5)' })
    t.equal(paths().length, 6, 'the 6th Location is not requested')
  })

  t.test('a redirect loop hits the same limit', async (t) => {
    t.match(await p.probe(get(`${base}/loop`)), { isUp: false, statusCode: 302, errorMessage: 'too many redirects (more than 5)' })
    t.equal(paths().length, 6)
  })

  t.test('an expected 3xx is not followed', async (t) => {
    t.match(await p.probe(get(`${base}/a`, { expectedStatus: 301 })), { isUp: true, statusCode: 301, errorMessage: null })
    t.same(paths(), ['GET /a'])
    t.match(await p.probe(get(`${base}/a`, { expectedStatus: 302 })), { isUp: false, statusCode: 301, errorMessage: 'expected status 302, got 301' })
    t.same(paths(), ['GET /a'])
  })

  t.test('a Location that is not http(s) or not a URL fails the check', async (t) => {
    t.match(await p.probe(get(`${base}/ftp`)),
      { isUp: false, statusCode: 302, errorMessage: 'redirect to unsupported URL scheme ftp: (only http and https are followed)' })
    t.match(await p.probe(get(`${base}/bad`)), { isUp: false, statusCode: 302, errorMessage: 'invalid redirect Location "http://[oops/"' })
    t.same(paths(), ['GET /ftp', 'GET /bad'])
  })

  t.test('methods change like in browsers', async (t) => {
    const post = (path: string) => p.probe(get(`${base}${path}`, { method: 'POST' }))
    t.match(await post('/post303'), { isUp: true })
    t.match(await post('/post301'), { isUp: true })
    t.match(await post('/post307'), { isUp: true })
    t.match(await p.probe(get(`${base}/post303`, { method: 'HEAD' })), { isUp: true })
    t.same(paths(), ['POST /post303', 'GET /echo', 'POST /post301', 'GET /echo', 'POST /post307', 'POST /echo', 'HEAD /post303', 'HEAD /echo'])
  })
})

t.test('bodies', async (t) => {
  t.test('an endless body is cut at the cap and the connection destroyed', async (t) => {
    const sent = { bytes: 0 }
    const endless = endlessBody(200, sent)
    let closed: Promise<boolean> = Promise.resolve(false)
    const { port } = await serve(t, (req, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve(true)))
      endless(req, res)
    })
    for (const maxBodyBytes of [undefined, 10_000, 0]) {
      sent.bytes = 0
      const result = await prober(t, { maxBodyBytes }).probe(get(`http://127.0.0.1:${port}/`, { timeoutSeconds: 10 }))
      t.match(result, { isUp: true, statusCode: 200, errorMessage: null })
      t.ok(await closed, 'the server saw the connection closed')
      // The cap (1 MiB at most) and the socket buffers; read on until the 10 s deadline, it would be gigabytes.
      t.ok(sent.bytes < 64 * MiB, `cut at the cap, not at the deadline (${(sent.bytes / MiB).toFixed(1)} MiB sent)`)
    }
  })

  t.test('a trickling body after good headers is cut at the deadline and the check stays up', async (t) => {
    let dots = 0
    const { port } = await serve(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.flushHeaders()
      const timer = setInterval(() => { dots++; res.write('.') }, 50)
      res.on('close', () => clearInterval(timer))
    })
    const started = Date.now()
    // The probe's clock counts the dots sent: the time it measures says how much of the body had come.
    const result = await prober(t, { now: () => dots }).probe(get(`http://127.0.0.1:${port}/`, { timeoutSeconds: 1 }))
    const took = Date.now() - started
    t.match(result, { isUp: true, statusCode: 200, errorMessage: null })
    // The body never ends: only the deadline can end the probe, and it did not come early.
    t.ok(took >= 900, `returned after ${took} ms`)
    t.ok(result.responseTimeMs <= dots / 2, `timed at the headers, not at the end of the body (${result.responseTimeMs} of ${dots} dots)`)
  })

  t.test('a wrong status with a body is still read and reported by status', async (t) => {
    const { port } = await serve(t, (_req, res) => { res.statusCode = 404; res.end('x'.repeat(3 * 1024 * 1024)) })
    t.match(await prober(t).probe(get(`http://127.0.0.1:${port}/`)), { statusCode: 404, errorMessage: 'expected status 200, got 404' })
  })
})

t.test('methods arrive with the Pingward User-Agent; bodies are empty', async (t) => {
  const { port, seen } = await serve(t, (_req, res) => res.end('ok'))
  const p = prober(t)
  for (const method of ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    t.match(await p.probe(get(`http://127.0.0.1:${port}/m`, { method })), { isUp: true }, method)
  }
  t.same(seen.map((s) => s.method), ['HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
  t.ok(seen.every((s) => s.headers['user-agent'] === USER_AGENT))
  t.same(seen.filter((s) => ['POST', 'PUT', 'PATCH'].includes(s.method)).map((s) => s.headers['content-length']), ['0', '0', '0'])
})

t.test('a self-signed HTTPS server fails with a TLS error; SNI names the host, not the pinned address', async (t) => {
  const servernames: string[] = []
  const tls = selfSignedCertificate()
  const { port, seen } = await serve(t, ok, '127.0.0.1', 0, (h) => https.createServer({
    ...tls,
    SNICallback: (name, cb) => { servernames.push(name); cb(null, null as never) },
  }, h))
  const { lookup } = fakeLookup({ localhost: ['127.0.0.1'] })
  const p = prober(t, { lookup })
  t.match(await p.probe(get(`https://localhost:${port}/`)), { isUp: false, statusCode: null, errorMessage: 'TLS error: self-signed certificate' })
  t.same(servernames, ['localhost'])
  t.match(await p.probe(get(`https://127.0.0.1:${port}/`)), { statusCode: null, errorMessage: 'TLS error: self-signed certificate' })
  t.same(servernames, ['localhost'], 'no SNI for an IP literal')
  t.equal(seen.length, 0)
})

t.test('address policy (private targets not allowed)', async (t) => {
  const { port, seen } = await serve(t, ok)
  const { lookup, calls } = fakeLookup({
    'public.test': ['10.0.0.5'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mixed6.test': ['2606:4700::1', 'fd00::5'],
  })
  const p = prober(t, { allowPrivateTargets: false, lookup })

  t.test('IP literals in every spelling are refused without a request', async (t) => {
    const urls = [
      `http://127.0.0.1:${port}/`, `http://127.1:${port}/`, `http://0x7f000001:${port}/`, `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`, 'http://169.254.169.254/', 'http://10.0.0.1/', 'http://100.64.0.1/', 'http://[fd00::1]/',
      `https://127.0.0.1:${port}/`, 'http://0.0.0.0/', 'http://[64:ff9b::a00:1]/',
    ]
    // Refused at once: by the policy's message (not a timeout or a connection error), with no request
    // to the server and no lookup (checked after the loop).
    for (const url of urls) {
      t.match(await p.probe(get(url)), { isUp: false, statusCode: null, errorMessage: REFUSED }, url)
    }
    t.match((await p.probe(get('http://10.0.0.1/'))).errorMessage, /^target refused: 10\.0\.0\.1 is a private address;/)
    t.match((await p.probe(get(`http://0x7f000001:${port}/`))).errorMessage, /^target refused: 127\.0\.0\.1 is a private address;/)
    t.equal(seen.length, 0, 'the server saw no request')
    t.same(calls, [], 'literals are not looked up')
  })

  t.test('the same literals reach the server when private targets are allowed (the test above is meaningful)', async (t) => {
    const open = prober(t)
    for (const url of [`http://127.0.0.1:${port}/`, `http://127.1:${port}/`, `http://0x7f000001:${port}/`]) {
      t.match(await open.probe(get(url)), { isUp: true }, url)
    }
    t.equal(seen.splice(0).length, 3)
  })

  t.test('names resolving to any private address are refused', async (t) => {
    t.match(await p.probe(get(`http://public.test:${port}/`)),
      { statusCode: null, errorMessage: /^target refused: public\.test resolves to a private address; / })
    t.match(await p.probe(get('http://mixed.test/')), { statusCode: null, errorMessage: /^target refused: mixed\.test resolves to a private address;/ })
    t.match(await p.probe(get('http://mixed6.test/')), { statusCode: null, errorMessage: /^target refused: mixed6\.test resolves to a private address;/ })
    t.equal(seen.length, 0)
  })

  t.test('the default lookup is used when none is injected', async (t) => {
    const plain = createProber({ allowPrivateTargets: false })
    t.teardown(() => plain.close())
    t.match(await plain.probe(get(`http://localhost:${port}/`)), { statusCode: null, errorMessage: /^target refused: localhost resolves to / })
    t.equal(seen.length, 0)
  })
})

t.test('a redirect from an allowed host to a refused address is refused', async (t) => {
  const inner = await serve(t, ok, '127.0.0.2')
  const outer = await serve(t, (req, res) => {
    res.writeHead(302, { location: req.url === '/to-name' ? 'http://private.test/' : `http://127.0.0.2:${inner.port}/secret` })
    res.end()
  })
  const { lookup } = fakeLookup({ 'public.test': ['127.0.0.1'], 'private.test': ['10.0.0.7'] })
  // Exactly 127.0.0.1 counts as public here, so the first hop is allowed with the policy on.
  const p = prober(t, { allowPrivateTargets: false, lookup, isAllowedAddress: (ip) => ip === '127.0.0.1' })
  t.match(await p.probe(get(`http://public.test:${outer.port}/`)), {
    isUp: false,
    statusCode: null,
    errorMessage: `target refused: 127.0.0.2 is a private address; the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true (after 1 redirect, at http://127.0.0.2:${inner.port})`,
  })
  t.match(await p.probe(get(`http://public.test:${outer.port}/to-name`)),
    { statusCode: null, errorMessage: /^target refused: private\.test resolves to a private address; .* \(after 1 redirect, at http:\/\/private\.test\)$/ })
  t.equal(outer.seen.length, 2)
  t.equal(inner.seen.length, 0, 'the private server never got a request')
  t.match(await prober(t, { lookup }).probe(get(`http://public.test:${outer.port}/`)), { isUp: true }, 'allowed when private targets are')
  t.equal(inner.seen.length, 1)
})

t.test('DNS pinning: one lookup per hop, and the connection goes to the checked address', async (t) => {
  const first = await serve(t, (req, res) => {
    if (req.url === '/one') { res.writeHead(302, { location: '/two' }); return res.end() }
    res.end('first')
  })
  // Same port on another loopback address: where a second resolution would lead.
  const second = await serve(t, ok, '127.0.0.2', first.port)
  let answers = 0
  const { lookup, calls } = fakeLookup({ 'public.test': () => (answers++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']) })
  const p = prober(t, { lookup })
  t.match(await p.probe(get(`http://public.test:${first.port}/`)), { isUp: true })
  t.equal(calls.length, 1, 'looked up once')
  t.equal(first.seen.length, 1, 'connected to the first answer')
  t.equal(second.seen.length, 0)
  t.equal(first.seen[0].headers.host, `public.test:${first.port}`, 'the Host header keeps the name')

  answers = 0
  first.seen.length = 0
  t.match(await p.probe(get(`http://public.test:${first.port}/one`)), { isUp: true })
  t.equal(calls.length, 3, 'one more lookup per hop')
  t.same(first.seen.map((s) => s.url), ['/one'])
  t.same(second.seen.map((s) => s.url), ['/two'], 'each hop connects to its own checked address')
})

t.test('addresses: IPv4 is preferred among the answers, IPv6 literals connect in brackets', async (t) => {
  const v4 = await serve(t, ok)
  const { lookup } = fakeLookup({ 'dual.test': ['::1', '127.0.0.1'] })
  t.match(await prober(t, { lookup }).probe(get(`http://dual.test:${v4.port}/`)), { isUp: true })
  t.equal(v4.seen.length, 1)
  const v6 = await serve(t, ok, '::1').catch(() => undefined)
  if (!v6) return t.comment('no IPv6 loopback here: the IPv6 literal is not exercised')
  t.match(await prober(t).probe(get(`http://[::1]:${v6.port}/`)), { isUp: true })
  t.equal(v6.seen[0].headers.host, `[::1]:${v6.port}`)
})

t.test('DNS failures', async (t) => {
  const { lookup } = fakeLookup({ 'empty.test': [] })
  const p = prober(t, { lookup, allowPrivateTargets: false })
  t.match(await p.probe(get('http://nohost.invalid/')), { statusCode: null, errorMessage: 'DNS lookup failed for nohost.invalid (ENOTFOUND)' })
  t.match(await p.probe(get('http://empty.test/')), { statusCode: null, errorMessage: 'DNS lookup failed for empty.test (no addresses)' })
})

t.test('bad targets fail without throwing', async (t) => {
  const p = prober(t)
  t.match(await p.probe(get('not a url')), { statusCode: null, errorMessage: 'invalid URL "not a url"' })
  t.match(await p.probe(get('ftp://example.com/')), { statusCode: null, errorMessage: 'unsupported URL scheme ftp:' })
})

t.test('abort and close', async (t) => {
  const controller = new AbortController()
  // A server that never answers: aborted once the request is in, the probe ends by the abort or never.
  const { port } = await serve(t, () => controller.abort())
  const p = prober(t)
  t.match(await p.probe(get(`http://127.0.0.1:${port}/`), controller.signal), { isUp: false, statusCode: null, errorMessage: 'aborted' })
  t.match(await p.probe(get(`http://127.0.0.1:${port}/`), AbortSignal.abort()), { errorMessage: 'aborted' })

  const closing = createProber({ allowPrivateTargets: true })
  await closing.close()
  t.match(await closing.probe(get(`http://127.0.0.1:${port}/`)), { statusCode: null, errorMessage: 'prober closed' })
})
