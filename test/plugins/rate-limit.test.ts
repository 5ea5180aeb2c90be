// Rate limit: per key (per address without a valid key), headers on every response, 429 {error},
// and counters shared by two app instances through Redis when REDIS_URL is set.
import t from 'tap'
import { buildTestApp, createTestDatabase, makeKey, makeUser, request } from '../helper.ts'

t.test('a small limit per key', async (t) => {
  const { app } = await buildTestApp(t, { env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW: '1 minute' } })
  const first = await makeUser(app)
  const second = await makeKey(app, first.user.id)

  const remaining: string[] = []
  for (let i = 0; i < 3; i++) {
    const res = await request(app, first.auth, { url: '/api/v1/monitors' })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-ratelimit-limit'], '3')
    t.ok(Number(res.headers['x-ratelimit-reset']) > 0 && Number(res.headers['x-ratelimit-reset']) <= 60)
    remaining.push(String(res.headers['x-ratelimit-remaining']))
  }
  t.same(remaining, ['2', '1', '0'])
  const limited = await request(app, first.auth, { url: '/api/v1/monitors' })
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { error: 'Rate limit exceeded' })
  t.equal(limited.headers['x-ratelimit-remaining'], '0')
  t.ok(Number(limited.headers['retry-after']) > 0, 'retry-after in seconds')
  t.ok(limited.headers['x-request-id'])
  // Writes count too, and are refused before they change anything.
  const write = await request(app, first.auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com' } })
  t.equal(write.statusCode, 429)

  t.equal((await request(app, second.auth, { url: '/api/v1/monitors' })).statusCode, 200, 'another key has its own budget')
  t.equal((await request(app, second.auth, { url: '/api/v1/monitors' })).json().data.length, 0, 'the refused write created nothing')
  t.equal((await app.inject({ url: '/healthz' })).statusCode, 200, 'health checks are not limited')
})

t.test('requests without a valid key are limited per client address', async (t) => {
  const { app } = await buildTestApp(t, { env: { RATE_LIMIT_MAX: '2' } })
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await app.inject({ url: '/api/v1/monitors', remoteAddress: '203.0.113.9' })).statusCode)
  t.same(statuses, [401, 401, 429])
  t.equal((await app.inject({ url: '/api/v1/monitors', remoteAddress: '203.0.113.10' })).statusCode, 401, 'another address is not limited')
})

t.test('two instances share the counters through Redis', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async (t) => {
  const { handle } = await createTestDatabase(t)
  // Counters are per key and every run makes a new key, so runs never share a counter in Redis.
  const env = { RATE_LIMIT_MAX: '4', REDIS_URL: process.env.REDIS_URL! }
  const one = await buildTestApp(t, { env, database: handle })
  const two = await buildTestApp(t, { env, database: handle })
  const { auth } = await makeUser(one.app)
  const statuses = []
  for (let i = 0; i < 3; i++) {
    statuses.push((await request(one.app, auth, { url: '/api/v1/monitors' })).statusCode)
    statuses.push((await request(two.app, auth, { url: '/api/v1/monitors' })).statusCode)
  }
  t.same(statuses, [200, 200, 200, 200, 429, 429])
})

t.test('unknown routes are counted and carry the rate-limit headers too', async (t) => {
  const { app } = await buildTestApp(t, { env: { RATE_LIMIT_MAX: '2' } })
  const first = await app.inject({ url: '/no/such/route' })
  t.equal(first.statusCode, 404)
  t.equal(first.headers['x-ratelimit-remaining'], '1')
  await app.inject({ url: '/api/v1/nothing' })
  const limited = await app.inject({ url: '/no/such/route' })
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { error: 'Rate limit exceeded' })
})
