// Input caps over real sockets: deep JSON, Content-Type lies, bodies over 1 MiB with and without a length,
// clients too slow to finish a request, headers and URLs too large, malformed HTTP and URLs: `{error}`, no 5xx.
import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { buildTestApp, makeMonitor, makeUser } from '../helper.ts'

interface RawResponse { status: number, headers: string, body: string, closed: boolean }

/**
 * Writes `chunks` to a fresh connection (each after the previous one is flushed) and then nothing more;
 * resolves with what came back once the server closes the connection or completes a keep-alive response.
 * (A server that does neither holds the test until its timeout.)
 */
function raw (port: number, chunks: Array<string | Buffer>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    let settled = false
    const finish = (closed: boolean) => {
      if (settled) return
      settled = true
      socket.destroy()
      const [head, ...rest] = data.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: rest.join('\r\n\r\n'), closed })
    }
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      data += chunk
      // A complete response on a connection the server keeps open: done (a closing one waits for the close).
      const end = data.indexOf('\r\n\r\n')
      const length = /\r\ncontent-length: (\d+)/i.exec(data.slice(0, end))
      if (end > 0 && length && !/\r\nconnection: close/i.test(data.slice(0, end)) && data.length - end - 4 >= Number(length[1])) finish(false)
    })
    socket.on('close', () => finish(true))
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err) })
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return
        await new Promise<void>((resolve) => socket.write(chunk, () => resolve()))
      }
    })
  })
}

t.test('input caps', async (t) => {
  const { app } = await buildTestApp(t, { env: { REQUEST_TIMEOUT_MS: '1000' } })
  const { auth, key } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as import('node:net').AddressInfo).port
  // Node reports a request cut off by its requestTimeout (REQUEST_TIMEOUT_MS) as this clientError; the 60 s
  // idle timeout of a connection would close it without one. Counted to tell which of the two cut it off.
  let requestTimeouts = 0
  app.server.on('clientError', (err: NodeJS.ErrnoException) => { if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') requestTimeouts++ })
  const base = `http://127.0.0.1:${port}/api/v1`
  const post = (body: string, type = 'application/json', path = '/monitors') =>
    fetch(`${base}${path}`, { method: 'POST', headers: { ...auth, 'content-type': type }, body })
  const head = (method: string, path: string, extra = '') =>
    `${method} /api/v1${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n${extra}`

  await t.test('deeply nested JSON is a 400, never a crash', async (t) => {
    for (const [label, body] of [
      ['100k arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['100k objects', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)],
      ['100k unclosed arrays', '['.repeat(100_000)],
      ['deep value of a real field', `{"name":${'['.repeat(50_000)}${']'.repeat(50_000)},"url":"https://example.com"}`],
    ]) {
      const res = await post(body)
      t.equal(res.status, 400, label)
      t.match(await res.json(), { error: /^(Body is not valid JSON|body\/?\S* (must|is) .+)$/ }, label)
    }
    t.equal((await fetch(`${base}/monitors/${monitor.id}`, { headers: auth })).status, 200, 'still serving')
  })

  await t.test('a Content-Type that lies', async (t) => {
    const json = JSON.stringify({ name: 'x', url: 'https://example.com' })
    let res = await post('name=x&url=https://example.com', 'application/json')
    t.equal(res.status, 400)
    t.same(await res.json(), { error: 'Body is not valid JSON' }, 'says JSON, is not')
    for (const type of ['text/plain', 'text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
      res = await post(json, type)
      t.equal(res.status, 415, `JSON sent as ${type}`)
      t.same(await res.json(), { error: 'Unsupported media type' })
    }
    res = await fetch(`${base}/monitors`, { method: 'POST', headers: auth, body: new TextEncoder().encode(json) })
    t.equal(res.status, 415, 'no Content-Type at all')
    const list = await (await fetch(`${base}/monitors`, { headers: auth })).json()
    t.equal(list.data.length, 1, 'nothing was created')
  })

  await t.test('a body over 1 MiB is a 413, with or without a Content-Length', async (t) => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), url: 'https://example.com' })
    const res = await post(big)
    t.equal(res.status, 413)
    t.same(await res.json(), { error: 'Request body is too large' })
    // Chunked: the server cannot know the size up front and must stop reading at the limit.
    const chunked = await raw(port, [
      head('POST', '/monitors', 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'),
      ...Array.from({ length: 20 }, () => `${(128 * 1024).toString(16)}\r\n${'x'.repeat(128 * 1024)}\r\n`),
      '0\r\n\r\n',
    ])
    t.equal(chunked.status, 413, 'chunked body over the limit')
    t.same(JSON.parse(chunked.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, '')), { error: 'Request body is too large' })
    // A Content-Length over the limit is refused before the body is sent.
    const declared = await raw(port, [head('POST', '/monitors', `Content-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"name":`)])
    t.equal(declared.status, 413, 'a declared 50 MiB body is refused without waiting for it')
  })

  await t.test('a client that never finishes its request is cut off', async (t) => {
    const slowBody = await raw(port, [head('POST', '/monitors', 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"slo')])
    t.ok(slowBody.closed, 'the connection was closed by the server')
    t.equal(requestTimeouts, 1, 'by the request timeout (REQUEST_TIMEOUT_MS=1000), not the idle-connection one')
    t.ok(slowBody.status === 408 || slowBody.status === 400 || slowBody.status === 0, `status ${slowBody.status}`)
    if (slowBody.status !== 0) t.same(JSON.parse(slowBody.body), { error: slowBody.status === 408 ? 'Request timeout' : 'Bad request' })

    const slowHeaders = await raw(port, ['GET /api/v1/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1'])
    t.ok(slowHeaders.closed, 'headers that never end are cut off too')
    t.equal(requestTimeouts, 2, 'by the request timeout too')
    t.equal(slowHeaders.status, 408)
    t.same(JSON.parse(slowHeaders.body), { error: 'Request timeout' })
    t.match(slowHeaders.headers, /x-request-id: [0-9a-f-]{36}/)
    t.equal((await fetch(`${base}/monitors`, { headers: auth })).status, 200, 'still serving')
  })

  await t.test('headers too large, URL too long, malformed HTTP, broken URLs: {error}', async (t) => {
    const bigHeader = await raw(port, [head('GET', '/monitors', `X-Big: ${'a'.repeat(20_000)}\r\n\r\n`)])
    t.equal(bigHeader.status, 431)
    t.same(JSON.parse(bigHeader.body), { error: 'Request header fields too large' })
    const longUrl = await raw(port, [head('GET', `/monitors?x=${'a'.repeat(20_000)}`, '\r\n')])
    t.equal(longUrl.status, 431, 'the URL counts against the header limit')
    t.same(JSON.parse(longUrl.body), { error: 'Request header fields too large' })
    const garbage = await raw(port, ['HELLO\x00WORLD\r\n\r\n'])
    t.equal(garbage.status, 400)
    t.same(JSON.parse(garbage.body), { error: 'Bad request' })

    const badEncoding = await raw(port, [head('GET', '/monitors/%E0%A4%A', '\r\n')])
    t.equal(badEncoding.status, 400)
    t.same(JSON.parse(badEncoding.body), { error: 'Bad request: the URL path is not valid percent-encoding' })
    const longParam = await fetch(`${base}/monitors/${'a'.repeat(300)}`, { headers: auth })
    t.equal(longParam.status, 400)
    t.same(await longParam.json(), { error: 'Bad request: a path segment is too long' })
    t.ok(longParam.headers.get('x-request-id'))
  })
})

t.test('ambiguous and misleading requests: a 4xx that says what is wrong, with {error} and a request id', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth, key } = await makeUser(app)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as import('node:net').AddressInfo).port
  const get = (path: string, headers: string) => raw(port, [`GET ${path} HTTP/1.1\r\n${headers}\r\n`])
  const expectError = (t: Test, res: RawResponse, status: number, error: string | RegExp) => {
    t.equal(res.status, status)
    t.match(JSON.parse(res.body || 'null'), { error })
    t.match(res.headers, /\r\nx-request-id: [0-9a-f-]{36}/i, 'with a request id')
  }

  await t.test('two Authorization headers are refused, not answered with the first', async (t) => {
    const twice = await get('/api/v1/monitors', `Host: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer sk_other\r\n`)
    expectError(t, twice, 400, 'Bad request: more than one Authorization header')
    const once = await get('/api/v1/monitors', `Host: x\r\nAuthorization: Bearer ${key}\r\n`)
    t.equal(once.status, 200)
  })

  await t.test('no Host header (HTTP/1.1) is a 400, an unknown Expect a 417', async (t) => {
    expectError(t, await get('/api/v1/monitors', `Authorization: Bearer ${key}\r\n`), 400, 'Bad request: the Host header is missing')
    expectError(t, await get('/healthz', 'Host: x\r\nExpect: 200-ok\r\n'), 417, 'Expectation failed: only 100-continue is supported')
    t.equal((await get('/healthz', 'Host: x\r\n')).status, 200)
  })

  await t.test('a __proto__ key is refused by name', async (t) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/monitors`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"__proto__":{"x":1},"name":"a","url":"https://example.com"}',
    })
    t.equal(res.status, 400)
    t.same(await res.json(), { error: 'Body has a "__proto__" key, which is refused' })
  })

  await t.test('a path that climbs out of /docs/static is a 404', async (t) => {
    for (const path of ['/docs/static/../../api/v1/monitors', '/docs/static/..%2f..%2fpackage.json', '/docs/static/%2e%2e/%2e%2e/package.json']) {
      expectError(t, await get(path, 'Host: x\r\n'), 404, 'Not found')
    }
  })
})
