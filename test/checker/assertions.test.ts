// The HTTP assertions of a check (api-contract section 9) against real local servers: the monitor's request
// headers and body, the keyword in the body, and the response time that makes a passing check degraded.
import t from 'tap'
import http from 'node:http'
import { keywordFinder } from '../../src/checker/probe.ts'
import { USER_AGENT } from '../../src/net/user-agent.ts'
import type { Teardown } from '../helper.ts'
import { getTarget, testProber } from '../support/prober.ts'
import { listen } from '../support/target-server.ts'

interface Seen { method: string, url: string, headers: http.IncomingHttpHeaders, rawNames: string[], body: string }
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

const MiB = 1024 * 1024

/** A server on 127.0.0.1 that records every request with its whole body before `handler` answers it. */
async function serve (tt: Teardown, handler: Handler) {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const rawNames = req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase())
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawNames, body: Buffer.concat(chunks).toString() })
      handler(req, res)
    })
  })
  const { port, url } = await listen(tt, server)
  return { seen, port, url }
}

const prober = testProber
const get = getTarget

/** A body sent in the given parts, each one flushed and the next a little later, so they arrive as separate chunks. */
const inParts = (...parts: Array<string | Buffer>): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' })
  const next = (i: number) => {
    if (res.destroyed) return
    if (i === parts.length) return res.end()
    res.write(parts[i])
    setTimeout(() => next(i + 1), 30)
  }
  next(0)
}

t.test('request headers and body', async (t) => {
  const { seen, url } = await serve(t, (req, res) => {
    if (req.url === '/p303' || req.url === '/p301') { res.writeHead(req.url === '/p303' ? 303 : 301, { location: '/echo' }); return res.end() }
    if (req.url === '/p307') { res.writeHead(307, { location: '/echo' }); return res.end() }
    res.end('ok')
  })
  const p = prober(t)

  t.test('the monitor\'s headers arrive and replace the defaults in any case; Host stays the checker\'s own', async (t) => {
    const result = await p.probe(get(`${url}/h`, {
      method: 'POST',
      requestHeaders: { 'User-Agent': 'custom/1.0', ACCEPT: 'application/json', 'content-type': 'application/json', 'X-Trace': 'a b', Host: 'evil.test' },
      requestBody: '{"ping":true}',
    }))
    t.match(result, { isUp: true, degraded: false, errorMessage: null })
    const [req] = seen.splice(0)
    t.match(req, { method: 'POST', url: '/h', body: '{"ping":true}' })
    t.match(req.headers, {
      'user-agent': 'custom/1.0',
      accept: 'application/json',
      'content-type': 'application/json',
      'x-trace': 'a b',
      host: url.slice('http://'.length),
      'content-length': '13',
    })
    for (const name of ['user-agent', 'accept', 'host']) t.equal(req.rawNames.filter((n) => n === name).length, 1, `one ${name} header`)
  })

  t.test('without headers of its own a check sends the defaults', async (t) => {
    await p.probe(get(`${url}/plain`, { requestHeaders: {} }))
    await p.probe(get(`${url}/plain`))
    for (const req of seen.splice(0)) t.match(req.headers, { 'user-agent': USER_AGENT, accept: '*/*' })
  })

  t.test('the body goes with every method but GET and HEAD; without one, POST, PUT and PATCH send an empty body', async (t) => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      t.match(await p.probe(get(`${url}/m`, { method, requestBody: `to ${method}` })), { isUp: true }, method)
    }
    t.same(seen.splice(0).map((s) => `${s.method} ${s.body}`), ['POST to POST', 'PUT to PUT', 'PATCH to PATCH', 'DELETE to DELETE', 'OPTIONS to OPTIONS'])
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE'] as const) {
      t.match(await p.probe(get(`${url}/m`, { method, requestBody: method === 'GET' || method === 'HEAD' ? 'never sent' : null })), { isUp: true })
    }
    t.same(seen.splice(0).map((s) => [s.method, s.body, s.headers['content-length']]),
      [['GET', '', undefined], ['HEAD', '', undefined], ['POST', '', '0'], ['DELETE', '', undefined]])
  })

  t.test('a redirect that turns the request into a GET drops the body and the headers that describe it; a 307 keeps both', async (t) => {
    const target = (path: string) => get(`${url}${path}`, {
      method: 'POST', requestBody: 'payload', requestHeaders: { 'Content-Type': 'text/plain', 'Content-Language': 'en', 'X-Keep': 'yes' },
    })
    for (const path of ['/p303', '/p301', '/p307']) t.match(await p.probe(target(path)), { isUp: true }, path)
    const [p303, echo303, p301, echo301, p307, echo307] = seen.splice(0)
    for (const first of [p303, p301, p307]) t.match(first, { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } })
    for (const echo of [echo303, echo301]) {
      t.match(echo, { method: 'GET', url: '/echo', body: '', headers: { 'x-keep': 'yes' } })
      t.notOk('content-type' in echo.headers || 'content-language' in echo.headers || 'content-length' in echo.headers, 'no body, no body headers')
    }
    t.match(echo307, { method: 'POST', url: '/echo', body: 'payload', headers: { 'content-type': 'text/plain', 'content-language': 'en', 'x-keep': 'yes' } })
  })
})

t.test('secret headers are not sent to another origin after a redirect, and not again after it; the others are', async (t) => {
  const other = await serve(t, (req, res) => {
    if (req.url === '/back') { res.writeHead(302, { location: `${first.url}/final` }); return res.end() }
    res.end('other')
  })
  const first = await serve(t, (req, res) => {
    const to = { '/cross': `${other.url}/landed`, '/same': '/final', '/round': `${other.url}/back` }[req.url ?? '']
    if (to) { res.writeHead(302, { location: to }); return res.end() }
    res.end('first')
  })
  const requestHeaders = { Authorization: 'Bearer s3cret', Cookie: 'session=1', 'X-Api-Token': 't0ken', 'X-Trace': 'visible' }
  const secrets = ['authorization', 'cookie', 'x-api-token']
  const p = prober(t)
  for (const path of ['/cross', '/same', '/round']) t.match(await p.probe(get(`${first.url}${path}`, { requestHeaders })), { isUp: true }, path)

  const names = (s: Seen) => secrets.filter((name) => name in s.headers)
  // Same host, another port: another origin.
  t.same(first.seen.map((s) => [s.url, names(s), s.headers['x-trace']]), [
    ['/cross', secrets, 'visible'],
    ['/same', secrets, 'visible'],
    ['/final', secrets, 'visible'], // a redirect within the origin keeps them
    ['/round', secrets, 'visible'],
    ['/final', [], 'visible'], // back at the first origin after another: dropped for good
  ])
  t.same(other.seen.map((s) => [s.url, names(s), s.headers['x-trace']]), [['/landed', [], 'visible'], ['/back', [], 'visible']])
  t.equal(first.seen[0].headers.authorization, 'Bearer s3cret')
})

t.test('a redirect to another origin drops every header the API masks: the secret names and those the monitor marks', async (t) => {
  const other = await serve(t, (_req, res) => res.end('other'))
  const first = await serve(t, (_req, res) => { res.writeHead(302, { location: `${other.url}/landed` }); res.end() })
  const requestHeaders = {
    'X-Auth': 'a', 'X-Session': 's', 'X-Credentials': 'c', 'X-Signature': 'g', 'X-Passwd': 'p', 'X-Tenant': 'marked', 'X-Trace': 'visible',
  }
  const p = prober(t)
  t.match(await p.probe(get(`${first.url}/`, { requestHeaders, secretHeaders: ['x-tenant'] })), { isUp: true })
  const sent = (headers: http.IncomingHttpHeaders) => Object.keys(requestHeaders).map((name) => name.toLowerCase()).filter((name) => name in headers)
  t.same(sent(first.seen[0].headers), ['x-auth', 'x-session', 'x-credentials', 'x-signature', 'x-passwd', 'x-tenant', 'x-trace'], 'all to the first origin')
  t.same(sent(other.seen[0].headers), ['x-trace'], 'only the plain one to the next')
})

t.test('keyword', async (t) => {
  const bodies: Record<string, Handler> = {
    '/welcome': (_req, res) => res.end('<h1>Welcome, visitor</h1>'),
    '/error': (_req, res) => res.end('<h1>Internal Error</h1>'),
    '/lower': (_req, res) => res.end('welcome'),
    '/split': inParts('... Wel', 'come ...'),
    '/split-utf8': inParts(Buffer.from('Grü'), Buffer.from('ße').subarray(0, 1), Buffer.concat([Buffer.from('ße').subarray(1), Buffer.from('!')])),
    '/503': (_req, res) => { res.statusCode = 503; res.end('Welcome') },
  }
  const { url } = await serve(t, (req, res) => (bodies[req.url ?? ''] ?? ((_q, r) => { r.statusCode = 404; r.end() }))(req, res))
  const p = prober(t)
  const check = (path: string, keyword: string, keywordMode?: 'contains' | 'not_contains') =>
    p.probe(get(`${url}${path}`, { keyword, keywordMode }))

  t.test('contains: found is up, not found fails and says so', async (t) => {
    t.match(await check('/welcome', 'Welcome'), { isUp: true, degraded: false, statusCode: 200, errorMessage: null })
    t.match(await check('/error', 'Welcome'), { isUp: false, statusCode: 200, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' })
    t.match(await check('/lower', 'Welcome'), { isUp: false, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' }, 'case-sensitive')
    t.match(await check('/welcome', 'Welcome', 'contains'), { isUp: true })
  })

  t.test('not_contains: found fails and says so, not found is up', async (t) => {
    t.match(await check('/error', 'Error', 'not_contains'), { isUp: false, statusCode: 200, errorMessage: 'keyword "Error" found in the first 1 MiB' })
    t.match(await check('/welcome', 'Error', 'not_contains'), { isUp: true, errorMessage: null })
  })

  t.test('a keyword split across chunks is found, in the middle of a UTF-8 character too', async (t) => {
    t.match(await check('/split', 'Welcome'), { isUp: true })
    t.match(await check('/split', 'Welcome', 'not_contains'), { isUp: false, errorMessage: 'keyword "Welcome" found in the first 1 MiB' })
    t.match(await check('/split-utf8', 'Grüße!'), { isUp: true })
    t.match(await check('/split-utf8', 'Grüsse'), { isUp: false })
  })

  t.test('the status comes first', async (t) => {
    t.match(await check('/503', 'Welcome'), { isUp: false, statusCode: 503, errorMessage: 'expected status 200, got 503' })
    t.match(await check('/503', 'Welcome', 'not_contains'), { isUp: false, statusCode: 503, errorMessage: 'expected status 200, got 503' })
  })

  t.test('the keyword in a message is on one line and cut short', async (t) => {
    const result = await check('/welcome', `${'a'.repeat(150)}\n"quoted"`)
    t.equal(result.errorMessage, `keyword "${'a'.repeat(99)}…" not found in the first 1 MiB`)
    t.match((await check('/welcome', 'two\nlines')).errorMessage, 'keyword "two lines" not found')
    t.match((await check('/welcome', 'say "hi"')).errorMessage, 'keyword "say \\"hi\\"" not found')
  })
})

t.test('keyword and the 1 MiB cap', async (t) => {
  const sent = { bytes: 0 }
  const filler = Buffer.alloc(64 * 1024, 'x')
  let closed: Promise<boolean> = Promise.resolve(false)
  const { url } = await serve(t, (req, res) => {
    closed = new Promise((resolve) => res.on('close', () => resolve(true)))
    // 'x' up to where the keyword goes (its offset in the path), the keyword, then 'x' without end.
    const at = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('at'))
    res.writeHead(200)
    res.write(Buffer.alloc(at, 'x'))
    res.write('Welcome')
    const pump = () => {
      while (!res.destroyed) {
        sent.bytes += filler.length
        if (!res.write(filler)) return
      }
    }
    res.on('drain', pump)
    pump()
  })
  const p = prober(t)
  const check = async (at: number, keywordMode: 'contains' | 'not_contains' = 'contains') => {
    sent.bytes = 0
    const result = await p.probe(get(`${url}/?at=${at}`, { keyword: 'Welcome', keywordMode, timeoutSeconds: 20 }))
    t.ok(await closed, 'the connection was closed')
    // Read on until the deadline, it would be gigabytes.
    t.ok(sent.bytes < 64 * MiB, `reading stopped at the cap (${(sent.bytes / MiB).toFixed(1)} MiB sent)`)
    return result
  }
  t.match(await check(MiB - 7), { isUp: true }, 'ending at the last byte of the first MiB: found')
  t.match(await check(MiB - 3), { isUp: false, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' }, 'across the cap: not found')
  t.match(await check(MiB + 100), { isUp: false, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' }, 'after the cap')
  t.match(await check(MiB + 100, 'not_contains'), { isUp: true, errorMessage: null })
  t.match(await check(3 * MiB, 'not_contains'), { isUp: true })

  t.test('another cap is named in the message', async (t) => {
    const small = prober(t, { maxBodyBytes: 64 * 1024 })
    t.match(await small.probe(get(`${url}/?at=${MiB}`, { keyword: 'Welcome' })), { errorMessage: 'keyword "Welcome" not found in the first 64 KiB' })
    const odd = prober(t, { maxBodyBytes: 1000 })
    t.match(await odd.probe(get(`${url}/?at=2000`, { keyword: 'Welcome' })), { errorMessage: 'keyword "Welcome" not found in the first 1000 bytes' })
    t.match(await odd.probe(get(`${url}/?at=993`, { keyword: 'Welcome' })), { isUp: true })
  })
})

t.test('reading stops once the keyword decides; an unfinished body fails at the deadline', async (t) => {
  // Headers and a first part at once, then nothing, ever: only the deadline could end a read to the end.
  const { url } = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.write('Welcome. Error: ')
  })
  // Timers as long as a probe's deadline, set before it: equal timers fire in the order they were set, so whether one
  // has fired when the probe returns says whether its deadline could have ended it, however busy the machine.
  let deadlinePassed = false
  let mark: NodeJS.Timeout | undefined
  const deadlineMark = (ms: number) => {
    clearTimeout(mark)
    deadlinePassed = false
    mark = setTimeout(() => { deadlinePassed = true }, ms)
  }
  t.teardown(() => clearTimeout(mark))
  // The probe's clock reads 0 until the deadline's mark, then 1000: its response time says on which side it timed.
  const p = prober(t, { now: () => (deadlinePassed ? 1000 : 0) })
  deadlineMark(30_000)
  t.match(await p.probe(get(url, { keyword: 'Welcome', timeoutSeconds: 30 })), { isUp: true, errorMessage: null })
  t.match(await p.probe(get(url, { keyword: 'Error', keywordMode: 'not_contains', timeoutSeconds: 30 })),
    { isUp: false, errorMessage: 'keyword "Error" found in the first 1 MiB' })
  t.notOk(deadlinePassed, 'decided without waiting for the deadline')

  deadlineMark(1000)
  const result = await p.probe(get(url, { keyword: 'Missing', keywordMode: 'not_contains', timeoutSeconds: 1 }))
  t.ok(deadlinePassed, 'the deadline ended it')
  t.match(result, {
    isUp: false,
    statusCode: 200,
    errorMessage: 'timeout after 1000 ms while reading the body: keyword "Missing" not found in its first 16 bytes',
  })
  t.equal(result.responseTimeMs, 0, 'timed at the headers, before the deadline')
})

t.test('a body cut short by the server fails a keyword check with what was read', async (t) => {
  const { url } = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-length': '1000' })
    res.write('partial')
    setTimeout(() => req.socket.destroy(), 20)
  })
  t.match(await prober(t).probe(get(url, { keyword: 'Welcome' })), {
    isUp: false, statusCode: 200, errorMessage: /while reading the body: keyword "Welcome" not found in its first 7 bytes$/,
  })
})

t.test('degraded', async (t) => {
  let delayMs = 0
  const { url } = await serve(t, (_req, res) => { setTimeout(() => res.end('Welcome'), delayMs) })

  t.test('a passing check slower than degraded_after_ms stays up and says by how much', async (t) => {
    let calls = 0
    const clocked = prober(t, { now: () => (calls++ === 0 ? 0 : 9120) })
    t.same(await clocked.probe(get(url, { degradedAfterMs: 2000 })),
      { isUp: true, degraded: true, statusCode: 200, responseTimeMs: 9120, errorMessage: 'response took 9120 ms, degraded after 2000 ms' })
    calls = 0
    t.match(await clocked.probe(get(url, { degradedAfterMs: 9120 })), { isUp: true, degraded: false, errorMessage: null }, 'not when equal')
    calls = 0
    t.match(await clocked.probe(get(url, { degradedAfterMs: null })), { isUp: true, degraded: false, errorMessage: null }, 'never without a limit')
  })

  t.test('a server that delays its headers makes the check degraded', async (t) => {
    delayMs = 300
    const result = await prober(t).probe(get(url, { degradedAfterMs: 50 }))
    t.match(result, { isUp: true, degraded: true, statusCode: 200 })
    t.ok(result.responseTimeMs >= 290, `timed at the headers (${result.responseTimeMs} ms)`)
    t.equal(result.errorMessage, `response took ${result.responseTimeMs} ms, degraded after 50 ms`)
  })

  t.test('a failing assertion wins over slowness', async (t) => {
    delayMs = 100
    const p = prober(t)
    t.match(await p.probe(get(url, { degradedAfterMs: 10, keyword: 'Missing' })),
      { isUp: false, degraded: false, errorMessage: 'keyword "Missing" not found in the first 1 MiB' })
    t.match(await p.probe(get(url, { degradedAfterMs: 10, expectedStatus: 204 })),
      { isUp: false, degraded: false, errorMessage: 'expected status 204, got 200' })
    t.match(await p.probe(get(url, { degradedAfterMs: 10, keyword: 'Welcome' })), { isUp: true, degraded: true })
  })
})

t.test('keywordFinder finds a keyword split at every point between two and three chunks', async (t) => {
  const needle = Buffer.from('needle-ü')
  const text = Buffer.concat([Buffer.from('hay hay '), needle, Buffer.from(' hay')])
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) {
      const find = keywordFinder(needle)
      const found = [text.subarray(0, i), text.subarray(i, j), text.subarray(j)].some((chunk) => find(chunk))
      if (!found) t.fail(`not found when split at ${i} and ${j}`)
    }
  }
  const find = keywordFinder(needle)
  t.notOk([Buffer.from('needle'), Buffer.from('-'), Buffer.from('u needle-'), Buffer.from('\xc3')].some((chunk) => find(chunk)), 'no false match')
  const one = keywordFinder(Buffer.from('x'))
  t.notOk(one(Buffer.from('abc')))
  t.ok(one(Buffer.from('abx')))
})
