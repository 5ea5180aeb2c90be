// The API's HTTP conveniences: gzip and br when asked (decompressed and compared), ETag and If-None-Match -> 304
// on reads, and CORS off by default, on for the origins of CORS_ORIGINS only.
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import xxhash from 'xxhash-wasm'
import { OPENAPI_PATH } from '../../src/plugins/openapi.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const LIST = { method: 'GET', url: '/api/v1/monitors' } as const

t.test('API responses are compressed when the client asks, and only then', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  for (let i = 0; i < 20; i++) await makeMonitor(app, auth, { name: `Compressed ${i}` })
  const plain = await request(app, auth, LIST)
  t.equal(plain.statusCode, 200)
  t.equal(plain.headers['content-encoding'], undefined, 'no accept-encoding: as it is')
  t.ok(plain.rawPayload.length > 2048, `a list worth compressing (${plain.rawPayload.length} bytes)`)

  const decoders = { br: brotliDecompressSync, gzip: gunzipSync }
  for (const [encoding, decompress] of Object.entries(decoders)) {
    const res = await request(app, auth, { ...LIST, headers: { 'accept-encoding': encoding } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-encoding'], encoding)
    t.match(res.headers.vary, /accept-encoding/i)
    t.ok(res.rawPayload.length < plain.rawPayload.length / 3, `${encoding}: ${res.rawPayload.length} of ${plain.rawPayload.length} bytes`)
    t.equal(decompress(res.rawPayload).toString(), plain.body, `${encoding}: decompressed, the same body`)
    t.equal(res.headers.etag, plain.headers.etag, `${encoding}: the same (weak) tag`)
  }
  // Both accepted: br is preferred; a client refusing everything but identity gets the body as it is.
  t.equal((await request(app, auth, { ...LIST, headers: { 'accept-encoding': 'gzip, deflate, br' } })).headers['content-encoding'], 'br')
  t.equal((await request(app, auth, { ...LIST, headers: { 'accept-encoding': 'identity' } })).headers['content-encoding'], undefined)
  // An error is JSON too, and small: left alone.
  const refused = await app.inject({ ...LIST, headers: { 'accept-encoding': 'gzip' } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['content-encoding'], undefined)
})

t.test('reads carry an ETag; If-None-Match with it is answered 304 without a body', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { name: 'Tagged' })
  const one = { method: 'GET', url: `/api/v1/monitors/${monitor.id}` } as const

  const first = await request(app, auth, one)
  t.equal(first.statusCode, 200)
  const tag = first.headers.etag as string
  t.match(tag, /^W\/"[0-9a-f]{16}"$/, 'a weak tag')
  t.equal(tag, await xxh64Tag(first.rawPayload), 'the XXH64 of the bytes sent (a body serialized as a string)')
  t.equal((await request(app, auth, one)).headers.etag, tag, 'the same body, the same tag')

  const notModified = await request(app, auth, { ...one, headers: { 'if-none-match': tag } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.body, '', 'no body')
  t.equal(notModified.headers.etag, tag)
  t.equal(notModified.headers['content-type'], undefined)
  t.equal(notModified.headers['content-length'], undefined)
  t.ok(notModified.headers['x-ratelimit-remaining'], 'still counted and told')
  for (const header of [`"other", ${tag}`, tag.slice(2), '*']) {
    t.equal((await request(app, auth, { ...one, headers: { 'if-none-match': header } })).statusCode, 304, `If-None-Match: ${header}`)
  }
  t.equal((await request(app, auth, { ...one, headers: { 'if-none-match': 'W/"other"' } })).statusCode, 200, 'another tag: the body')
  const head = await request(app, auth, { ...one, method: 'HEAD', headers: { 'if-none-match': tag } })
  t.equal(head.statusCode, 304, 'HEAD too')
  t.equal(head.headers['content-length'], String(first.rawPayload.length), 'HEAD: the length of the 200 it stands for')

  // A change makes a new tag: the old one gets the new body.
  const changed = await request(app, auth, { method: 'PATCH', url: one.url, payload: { name: 'Renamed' } })
  t.equal(changed.statusCode, 200)
  t.equal(changed.headers.etag, undefined, 'writes carry no tag')
  const after = await request(app, auth, { ...one, headers: { 'if-none-match': tag } })
  t.equal(after.statusCode, 200)
  t.not(after.headers.etag, tag)
  t.equal(after.json().data.name, 'Renamed')

  // Lists too; an error never.
  const list = await request(app, auth, LIST)
  t.equal(list.headers.etag, await xxh64Tag(list.rawPayload), 'the XXH64 of the bytes sent (a body the database made, a Buffer)')
  t.equal((await request(app, auth, { ...LIST, headers: { 'if-none-match': list.headers.etag as string } })).statusCode, 304)
  const missing = await request(app, auth, { method: 'GET', url: '/api/v1/monitors/00000000-0000-4000-8000-000000000000' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers.etag, undefined)

  // The document says so, for every read of the API (and for no write); the document itself is outside the API's context.
  const paths = (app.swagger() as { paths: Record<string, Record<string, any>> }).paths
  for (const [path, item] of Object.entries(paths).filter(([path]) => path.startsWith('/api/v1/') && path !== OPENAPI_PATH)) {
    for (const method of ['get', 'head'].filter((method) => item[method])) {
      t.ok(item[method].responses['304'] && item[method].responses['200'].headers.ETag, `${method} ${path}: ETag and 304 declared`)
      t.ok(item[method].parameters.some((p: { in: string, name: string }) => p.in === 'header' && p.name === 'If-None-Match'), `${method} ${path}: If-None-Match`)
    }
    if (item.post) t.equal(item.post.responses['304'], undefined, `POST ${path}: no 304`)
  }
})

/** The tag a client can compute of a body it got: XXH64 (seed 0) in 16 hex digits, weak. */
async function xxh64Tag (body: Buffer): Promise<string> {
  const { h64Raw } = await xxhash()
  // XXH64's reference value for no input, so that the tag's format is a known hash and not this library's whim.
  if (h64Raw(Buffer.alloc(0)) !== 0xef46db3751d8e999n) throw new Error('xxhash-wasm is not XXH64 with seed 0')
  return `W/"${h64Raw(body).toString(16).padStart(16, '0')}"`
}

const ORIGIN = 'https://app.example.com'
const preflight = (origin: string) => ({
  method: 'OPTIONS' as const,
  url: '/api/v1/monitors',
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
})

t.test('CORS is off by default: no Access-Control-* header for any origin', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const res = await request(app, auth, { ...LIST, headers: { origin: ORIGIN } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['access-control-allow-origin'], undefined)
  const pre = await app.inject(preflight(ORIGIN))
  t.not(pre.statusCode, 204, `a preflight is not granted (${pre.statusCode})`)
  t.equal(pre.headers['access-control-allow-origin'], undefined)
  t.equal(pre.headers['access-control-allow-methods'], undefined)
})

t.test('CORS_ORIGINS allows the listed origins, and only them', async (t) => {
  const { app } = await buildTestApp(t, { env: { CORS_ORIGINS: `${ORIGIN}, http://192.168.1.20:8080` } })
  const { auth } = await makeUser(app)

  // The browser's preflight carries no key: answered before the key is asked for.
  const pre = await app.inject(preflight(ORIGIN))
  t.equal(pre.statusCode, 204)
  t.equal(pre.headers['access-control-allow-origin'], ORIGIN)
  t.match(pre.headers['access-control-allow-methods'], 'POST')
  t.match(pre.headers['access-control-allow-headers'], /authorization/i)
  t.equal(pre.headers['access-control-allow-credentials'], undefined, 'keys go in a header, not cookies')

  for (const origin of [ORIGIN, 'http://192.168.1.20:8080']) {
    const res = await request(app, auth, { ...LIST, headers: { origin } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['access-control-allow-origin'], origin, `${origin} allowed`)
    t.match(res.headers.vary, /origin/i)
    for (const exposed of ['etag', 'x-request-id', 'x-ratelimit-remaining', 'location']) {
      t.match(res.headers['access-control-expose-headers'], exposed, `a script may read ${exposed}`)
    }
  }
  // A refused key is readable by the allowed page too (it can tell the user why).
  const refused = await app.inject({ ...LIST, headers: { origin: ORIGIN } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['access-control-allow-origin'], ORIGIN)

  // Anyone else: nothing.
  for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'http://app.example.com']) {
    const res = await request(app, auth, { ...LIST, headers: { origin } })
    t.equal(res.headers['access-control-allow-origin'], undefined, `${origin} not allowed`)
    t.equal((await app.inject(preflight(origin))).headers['access-control-allow-origin'], undefined, `${origin}: no preflight grant`)
  }
  // The dashboard is not part of the API: no CORS headers there.
  t.equal((await app.inject({ url: '/sign-in', headers: { origin: ORIGIN } })).headers['access-control-allow-origin'], undefined)
})
