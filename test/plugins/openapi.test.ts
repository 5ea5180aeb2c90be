// The OpenAPI plugin's answers: the document and Swagger UI compressed as the API is, and every route the server
// answers (GET and HEAD alike) in the document, except the dashboard's and Swagger UI's own.
import { gunzipSync } from 'node:zlib'
import t from 'tap'
import { OPENAPI_PATH } from '../../src/plugins/openapi.ts'
import { buildTestApp } from '../helper.ts'
import { routeTable } from '../support/route-table.ts'

const DECODERS = { gzip: gunzipSync }

t.test('the document and Swagger UI are compressed when the client asks, and only then', async (t) => {
  const { app } = await buildTestApp(t)
  const document = JSON.parse(JSON.stringify(app.swagger()))
  for (const url of [OPENAPI_PATH, '/docs/json']) {
    const plain = await app.inject({ url })
    t.equal(plain.statusCode, 200)
    t.equal(plain.headers['content-encoding'], undefined, `${url}: no accept-encoding, as it is`)
    t.same(plain.json(), document)
    for (const [encoding, decompress] of Object.entries(DECODERS)) {
      const res = await app.inject({ url, headers: { 'accept-encoding': encoding } })
      t.equal(res.statusCode, 200)
      t.equal(res.headers['content-encoding'], encoding, `${url}: ${encoding}`)
      t.match(res.headers['content-type'], /^application\/json/)
      t.match(res.headers.vary, /accept-encoding/i)
      t.ok(res.rawPayload.length < plain.rawPayload.length / 5, `${url} ${encoding}: ${res.rawPayload.length} of ${plain.rawPayload.length} bytes`)
      t.same(JSON.parse(decompress(res.rawPayload).toString()), document, `${url} ${encoding}: decompressed, the document`)
    }
    const brotli = await app.inject({ url, headers: { 'accept-encoding': 'br' } })
    t.equal(brotli.headers['content-encoding'], undefined, `${url}: gzip only (brotli keeps its memory)`)
    const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'gzip' } })
    t.equal(head.statusCode, 200, `HEAD ${url}`)
    t.equal(head.body, '', `HEAD ${url}: no body`)
  }
  // Swagger UI's script is the largest thing it sends.
  const script = await app.inject({ url: '/docs/static/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(script.statusCode, 200)
  t.equal(script.headers['content-encoding'], 'gzip', 'Swagger UI\'s script')
})

t.test('every GET and HEAD route the server answers is in the document, but the dashboard\'s and Swagger UI\'s', async (t) => {
  const { app } = await buildTestApp(t)
  const paths = app.swagger().paths as Record<string, Record<string, unknown>>
  const documented = new Set(Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)))
  const reads = routeTable(app).filter((route) => route.method === 'GET' || route.method === 'HEAD')
  t.ok(reads.some((route) => route.method === 'HEAD'), 'the server answers HEAD')
  const undocumented: string[] = []
  for (const { method, path } of reads) {
    if (documented.has(`${method} ${path}`) || path.startsWith('/docs')) continue
    // Not in the document: then the dashboard's, a page (or a visitor without a session sent to sign in) or an asset.
    const res = await app.inject({ method: method as 'GET', url: path.replace(/:\w+|\*/g, 'x') })
    const dashboard = /^(text\/html|text\/css|image\/|text\/javascript)/.test(String(res.headers['content-type'])) ||
      String(res.headers.location).startsWith('/sign-in')
    if (!dashboard) undocumented.push(`${method} ${path} -> ${res.statusCode} ${res.headers['content-type']}`)
  }
  t.same(undocumented, [], 'no route answering anything but a page is left out of the document')
  for (const route of [`GET ${OPENAPI_PATH}`, `HEAD ${OPENAPI_PATH}`, 'HEAD /api/v1/monitors/:id', 'HEAD /healthz']) {
    t.ok(documented.has(route), `${route} is documented`)
  }
})
