// The ping URL of heartbeat monitors, through app.inject and over real HTTP as a cron job calls it: no key, any
// body (never parsed, the first 10 KiB kept), HEAD, /fail, unknown and paused monitors, and the rate limit per token.
import t from 'tap'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { rowsOf } from '../../src/db/client.ts'
import { tokenDigest } from '../../src/routes/pings.ts'
import { buildTestApp, createTestDatabase, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'

interface CheckRow { is_up: boolean, status_code: number | null, response_time_ms: number, error_message: string | null, ping_body: string | null, checked_at: string }

async function checksOf (app: FastifyInstance, monitorId: string): Promise<CheckRow[]> {
  return rowsOf<CheckRow>(await app.db.execute(sql`
    select is_up, status_code, response_time_ms, error_message, ping_body, checked_at from checks where monitor_id = ${monitorId} order by checked_at, id`))
}

/** A heartbeat monitor made through the API, with the path of its ping URL. */
async function heartbeat (app: FastifyInstance, auth: Record<string, string>, fields: Record<string, unknown> = {}) {
  const monitor = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Nightly backup', ...fields })
  const path = new URL(monitor.ping_url as string).pathname
  return { monitor, path, token: path.split('/').at(-1)! }
}

async function setup (t: Teardown, env: Record<string, string> = {}) {
  const clock = { now: new Date('2026-05-01T12:00:00.000Z') }
  const { app } = await buildTestApp(t, { clock: () => clock.now, env })
  const { auth } = await makeUser(app)
  return { app, auth, clock }
}

/** A raw HTTP request, as curl sends it: exactly these headers, this body. */
function send (base: string, method: string, path: string, options: { headers?: Record<string, string>, body?: Buffer | string } = {}) {
  return new Promise<{ status: number, headers: Record<string, unknown>, body: string }>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers: options.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

t.test('over real HTTP: empty GET, text, JSON, malformed JSON, a form, bytes, no content type, 50 KiB, /fail, HEAD', async (t) => {
  const { app, auth, clock } = await setup(t)
  const { monitor, path } = await heartbeat(app, auth)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const tick = () => { clock.now = new Date(clock.now.getTime() + 1000) }

  const empty = await send(base, 'GET', path)
  t.equal(empty.status, 200)
  t.equal(empty.body, 'OK', 'a few bytes')
  t.match(empty.headers['content-type'], /^text\/plain/)
  t.notOk(empty.headers['x-ratelimit-limit'], 'no rate-limit headers on a ping')
  const bodies: Array<[string, Record<string, string>, Buffer | string, string | null]> = [
    ['text', { 'content-type': 'text/plain' }, 'backup done: 3 files\n', 'backup done: 3 files\n'],
    ['JSON', { 'content-type': 'application/json' }, '{"files":3}', '{"files":3}'],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"files":', '{"files":'],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'files=3&ok=1', 'files=3&ok=1'],
    ['bytes, invalid UTF-8 and NUL', { 'content-type': 'application/octet-stream' }, Buffer.from([0x6f, 0x6b, 0xff, 0x00, 0x21]), 'ok\uFFFD\uFFFD!'],
    ['no content type', {}, 'plain words', 'plain words'],
    ['an empty POST', { 'content-length': '0' }, '', null],
  ]
  for (const [name, headers, body] of bodies) {
    tick()
    const res = await send(base, 'POST', path, { headers, body })
    t.equal(res.status, 200, `${name}: 200`)
    t.equal(res.body, 'OK', `${name}: OK`)
  }
  tick()
  const big = Buffer.alloc(50 * 1024, 'a')
  t.equal((await send(base, 'POST', path, { headers: { 'content-type': 'text/plain' }, body: big })).status, 200, '50 KiB: 200')
  tick()
  // A multi-byte character cut by the 10 KiB boundary becomes U+FFFD.
  const cut = Buffer.concat([Buffer.alloc(10 * 1024 - 1, 'b'), Buffer.from('é', 'utf8')])
  t.equal((await send(base, 'POST', path, { headers: { 'content-type': 'text/plain' }, body: cut })).status, 200)
  tick()
  const fail = await send(base, 'POST', `${path}/fail`, { headers: { 'content-type': 'text/plain' }, body: '\n  pg_dump: error: connection refused  \nexit 1\n' })
  t.equal(fail.status, 200, '/fail: 200')
  tick()
  const head = await send(base, 'HEAD', path)
  t.equal(head.status, 200, 'HEAD: 200')
  t.equal(head.body, '', 'HEAD: no body')

  const rows = await checksOf(app, monitor.id)
  t.equal(rows.length, 1 + bodies.length + 4, 'one check per ping, HEAD too')
  t.strictSame(rows.slice(0, 1 + bodies.length).map((r) => r.ping_body), [null, ...bodies.map(([, , , stored]) => stored)], 'each body kept as text, never parsed')
  t.equal(rows[1 + bodies.length].ping_body, 'a'.repeat(10 * 1024), '50 KiB: the first 10 KiB kept')
  t.equal(rows[2 + bodies.length].ping_body, `${'b'.repeat(10 * 1024 - 1)}\uFFFD`, 'a character cut at 10 KiB: U+FFFD')
  t.match(rows[0], { is_up: true, status_code: null, response_time_ms: 0, error_message: null }, 'a ping: a passing check')
  t.match(rows[3 + bodies.length], { is_up: false, status_code: null, response_time_ms: 0, error_message: 'ping /fail: pg_dump: error: connection refused' },
    '/fail: a failing check quoting the first line')
  t.equal(new Date(rows[0].checked_at).toISOString(), '2026-05-01T12:00:00.000Z', 'checked at the app\'s clock')
})

t.test('app.inject: /fail without a body, a long first line, GET /fail; the API\'s records', async (t) => {
  const { app, auth, clock } = await setup(t)
  const { monitor, path } = await heartbeat(app, auth, { failure_threshold: 1 })
  t.equal((await app.inject({ method: 'GET', url: `${path}/fail` })).body, 'OK')
  clock.now = new Date(clock.now.getTime() + 1000)
  await app.inject({ method: 'POST', url: `${path}/fail`, headers: { 'content-type': 'text/plain' }, payload: `${'x'.repeat(300)}\nmore` })
  const rows = await checksOf(app, monitor.id)
  t.equal(rows[0].error_message, 'ping /fail')
  t.equal(rows[1].error_message, `ping /fail: ${'x'.repeat(200)}`, 'at most 200 characters of the line')
  const checks = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks` })
  t.notOk('ping_body' in checks.json().data[0], 'the body is not in the API\'s check record')
  const after = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })
  t.equal(after.json().data.status, 'down', 'failure_threshold 1: down')
})

t.test('a body over 1 MiB: 413, nothing recorded', async (t) => {
  const { app, auth } = await setup(t)
  const { monitor, path } = await heartbeat(app, auth)
  const res = await app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain' }, payload: Buffer.alloc(1024 * 1024 + 1, 'a') })
  t.equal(res.statusCode, 413)
  t.equal((await checksOf(app, monitor.id)).length, 0)
})

t.test('unknown token, another kind of monitor, deleted: 404; paused: 409, not recorded; no key needed, one given is ignored', async (t) => {
  const { app, auth } = await setup(t)
  const unknown = await app.inject({ method: 'GET', url: '/ping/no-such-token' })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), { error: 'No heartbeat monitor has this ping URL' })
  t.ok(unknown.body.length < 60, 'a short body')

  const { monitor, path } = await heartbeat(app, auth)
  t.equal((await app.inject({ method: 'GET', url: path, headers: { authorization: 'Bearer not-a-key' } })).statusCode, 200, 'a key is not asked for')
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })
  const paused = await app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain' }, payload: 'done' })
  t.equal(paused.statusCode, 409)
  t.same(paused.json(), { error: 'The monitor is paused: the ping was not recorded' })
  t.equal((await checksOf(app, monitor.id)).length, 1, 'the paused ping is not recorded')

  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}` })
  t.equal((await app.inject({ method: 'GET', url: path })).statusCode, 404, 'deleted: 404')
  t.equal((await app.inject({ method: 'GET', url: `${path}/fail` })).statusCode, 404, 'deleted: /fail 404')
})

t.test('rate limited per token: GET, POST, HEAD and /fail share the bucket; another token has its own', async (t) => {
  const { app, auth } = await setup(t, { PING_RATE_LIMIT: '3' })
  const first = await heartbeat(app, auth)
  const second = await heartbeat(app, auth)
  t.equal((await app.inject({ method: 'GET', url: first.path })).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: first.path })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: `${first.path}/fail` })).statusCode, 200)
  const limited = await app.inject({ method: 'POST', url: first.path })
  t.equal(limited.statusCode, 429, 'the 4th ping of the minute')
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After')
  t.same(limited.json(), { error: 'Rate limit exceeded' })
  t.equal((await checksOf(app, first.monitor.id)).length, 3, 'the refused ping is not recorded')
  t.equal((await app.inject({ method: 'GET', url: second.path })).statusCode, 200, 'another token: its own bucket')
  t.equal((await app.inject({ method: 'GET', url: '/ping/unknown' })).statusCode, 404, 'an unknown token: its own bucket too')
  const api = await request(app, auth, { url: '/api/v1/monitors' })
  t.equal(api.statusCode, 200, 'the API\'s limit is apart')
})

t.test('two instances share a token\'s bucket through Redis', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async (t) => {
  const { handle } = await createTestDatabase(t)
  // Every run makes new tokens, so runs never share a counter in Redis.
  const env = { PING_RATE_LIMIT: '3', REDIS_URL: process.env.REDIS_URL! }
  const one = await buildTestApp(t, { env, database: handle })
  const two = await buildTestApp(t, { env, database: handle })
  const { auth } = await makeUser(one.app)
  const { path, token } = await heartbeat(one.app, auth)
  const statuses = []
  for (let i = 0; i < 2; i++) {
    statuses.push((await one.app.inject({ url: path })).statusCode)
    statuses.push((await two.app.inject({ url: path })).statusCode)
  }
  t.same(statuses, [200, 200, 200, 429])
  // The token is a credential: the bucket's name in Redis is a digest of it, which counts the 4 pings.
  const redis = new Redis(process.env.REDIS_URL!)
  t.teardown(() => redis.quit())
  const keys = await redis.keys('pingward-rl:*')
  t.same(keys.filter((key) => key.includes(token)), [], 'no Redis key names the token')
  const bucket = keys.filter((key) => key.endsWith(`ping:${tokenDigest(token)}`))
  t.equal(bucket.length, 1, 'one bucket, named by the token\'s digest')
  t.equal(await redis.get(bucket[0]), '4', 'which counted every ping, the refused one too')
})
