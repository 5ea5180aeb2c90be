// A site monitor's assertions and request (api-contract section 9) through the API: stored and shown, bounds
// named by field, secret headers write-only (masked, and kept when sent back masked), what a request cannot carry.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { monitors } from '../../src/db/schema.ts'
import { buildTestApp, makeUser, request, validMonitor } from '../helper.ts'

t.test('site monitor assertions through the API', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const post = (payload: object) => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload })
  const patch = (id: string, payload: object) => request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload })
  const stored = async (id: string) => (await app.db.select().from(monitors).where(eq(monitors.id, id)))[0]

  await t.test('create stores every assertion; secret header values are masked in every answer', async (t) => {
    const res = await post(validMonitor({
      method: 'POST',
      keyword: 'Welcome home',
      keyword_mode: 'not_contains',
      degraded_after_ms: 2000,
      request_headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Api-Key': 'short', Accept: 'application/json' },
      request_body: '{"ping":true}',
    }))
    t.equal(res.statusCode, 201)
    const created = res.json().data
    t.match(created, {
      keyword: 'Welcome home',
      keyword_mode: 'not_contains',
      degraded_after_ms: 2000,
      request_body: '{"ping":true}',
    })
    t.same(created.request_headers, { Authorization: '…cdef', 'X-Api-Key': '…', Accept: 'application/json' }, 'secrets masked, the rest as given')
    t.same((await request(app, auth, { url: `/api/v1/monitors/${created.id}` })).json().data, created, 'GET shows the same')
    t.same((await stored(created.id)).requestHeaders, { Authorization: 'Bearer 0123456789abcdef', 'X-Api-Key': 'short', Accept: 'application/json' },
      'the database holds the real values')
  })

  await t.test('a masked value sent back keeps the secret; a new value replaces it; headers left out are removed', async (t) => {
    const { id } = (await post(validMonitor({ request_headers: { authorization: 'Bearer 0123456789abcdef', cookie: 'session=abcdefghijkl' } }))).json().data
    const read = (await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data
    const kept = await patch(id, { request_headers: read.request_headers })
    t.equal(kept.statusCode, 200)
    t.equal(kept.json().data.updated_at, read.updated_at, 'sending back what was read changes nothing')
    t.same((await stored(id)).requestHeaders, { authorization: 'Bearer 0123456789abcdef', cookie: 'session=abcdefghijkl' })
    const changed = await patch(id, { request_headers: { authorization: 'Bearer fedcba9876543210' } })
    t.same(changed.json().data.request_headers, { authorization: '…3210' })
    t.same((await stored(id)).requestHeaders, { authorization: 'Bearer fedcba9876543210' }, 'replaced, and the cookie removed')
    t.same((await patch(id, { request_headers: {} })).json().data.request_headers, {})
  })

  await t.test('each bound is a 400 that names the field', async (t) => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ keyword: '' }, /^body\/keyword must NOT have fewer than 1 characters$/],
      [{ keyword: 'x'.repeat(1025) }, /^body\/keyword must NOT have more than 1024 characters$/],
      [{ keyword: 5 }, /^body\/keyword must be string/],
      [{ keyword_mode: 'regex' }, /^body\/keyword_mode must be one of: contains, not_contains$/],
      [{ keyword_mode: null }, /^body\/keyword_mode must be string, not null$/],
      [{ degraded_after_ms: 0 }, /^body\/degraded_after_ms must be >= 1$/],
      [{ degraded_after_ms: 60_001 }, /^body\/degraded_after_ms must be <= 60000$/],
      [{ degraded_after_ms: 1.5 }, /^body\/degraded_after_ms must be integer/],
      [{ request_headers: null }, /^body\/request_headers must be object, not null$/],
      [{ request_headers: { 'bad name': 'x' } }, /^body\/request_headers\/bad name is not allowed$/],
      [{ request_headers: { ['x'.repeat(101)]: 'x' } }, /^body\/request_headers\/x{101} is not allowed$/],
      [{ request_headers: { 'x-a': 'line\r\nbreak' } }, /^body\/request_headers\/x-a must be a header value of at most 8192 characters, without line breaks$/],
      [{ request_headers: { 'x-a': 1 } }, /^body\/request_headers\/x-a must be string$/],
      [{ request_headers: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-h${i}`, 'v'])) }, /^body\/request_headers must NOT have more than 32 properties$/],
      [{ request_headers: { Host: 'example.org' } }, /^body\/request_headers: the header "Host" cannot be set$/],
      [{ request_headers: { 'Content-Length': '5' } }, /^body\/request_headers: the header "Content-Length" cannot be set$/],
      [{ request_headers: { 'Accept-Encoding': 'gzip' } }, /^body\/request_headers: the header "Accept-Encoding" cannot be set$/],
      [{ keyword: 'ok', method: 'HEAD' }, /^body\/keyword must be null for a HEAD request \(its answer has no body\)$/],
      [{ request_headers: { Accept: 'a', accept: 'b' } }, /^body\/request_headers: the header "accept" is given twice$/],
      [{ request_body: 'x'.repeat(65_537), method: 'POST' }, /^body\/request_body must NOT have more than 65536 characters$/],
      [{ request_body: 'x' }, /^body\/request_body must be null for a GET request$/],
      [{ request_body: 'x', method: 'HEAD' }, /^body\/request_body must be null for a HEAD request$/],
    ]
    for (const [override, message] of cases) {
      const res = await post(validMonitor(override))
      t.equal(res.statusCode, 400, JSON.stringify(override).slice(0, 60))
      t.match(res.json().error, message, JSON.stringify(override).slice(0, 60))
    }
    for (const edge of [{ degraded_after_ms: 1 }, { degraded_after_ms: 60_000 }, { keyword: 'x'.repeat(1024) }, { request_body: '', method: 'DELETE' }]) {
      t.equal((await post(validMonitor(edge))).statusCode, 201, JSON.stringify(edge).slice(0, 40))
    }
  })

  await t.test('an update is checked against the monitor it makes', async (t) => {
    const { id } = (await post(validMonitor({ method: 'POST', request_body: 'hello' }))).json().data
    const toGet = await patch(id, { method: 'GET' })
    t.equal(toGet.statusCode, 400)
    t.same(toGet.json(), { error: 'body/request_body must be null for a GET request' })
    const both = await patch(id, { method: 'GET', request_body: null })
    t.equal(both.statusCode, 200)
    t.match(both.json().data, { method: 'GET', request_body: null })
    t.equal((await patch(id, { request_body: 'again' })).statusCode, 400, 'a body on the GET monitor')
    t.equal((await patch(id, { keyword: 'x', method: 'HEAD' })).statusCode, 400, 'a keyword on a HEAD monitor')
    const cleared = await patch(id, { keyword: 'ok', degraded_after_ms: 500 })
    t.match(cleared.json().data, { keyword: 'ok', degraded_after_ms: 500 })
    t.match((await patch(id, { keyword: null, degraded_after_ms: null })).json().data, { keyword: null, degraded_after_ms: null }, 'null clears them')
  })
})
