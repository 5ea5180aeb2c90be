// Pings of unknown tokens: each counts against the client address's API limit (429 with its headers once spent,
// shared through Redis), and repeated and malformed ones cost no database statement. (A flood of them: ping-flood.long.ts.)
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { rowsOf } from '../../src/db/client.ts'
import { buildTestApp, createTestDatabase, limiterStore, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'
import { countStatements } from '../support/statements.ts'

async function checkCount (app: FastifyInstance, monitorId: string): Promise<number> {
  return rowsOf<{ n: number }>(await app.db.execute(sql`select count(*)::int as n from checks where monitor_id = ${monitorId}`))[0].n
}

/** A heartbeat monitor made through the API, with the path of its ping URL. */
async function heartbeat (app: FastifyInstance, auth: Record<string, string>) {
  const monitor = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Nightly backup' })
  return { monitor, path: new URL(monitor.ping_url as string).pathname }
}

async function setup (t: Teardown, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env })
  const { auth } = await makeUser(app)
  return { app, auth }
}

/** A token as the server makes them (24 base64url characters) that no monitor has. */
const unknownToken = () => randomBytes(18).toString('base64url')

t.test('unknown tokens count against the address\'s API limit: 429 with the rate-limit headers; live pings, other addresses go on', async (t) => {
  const { app, auth } = await setup(t, { RATE_LIMIT_MAX: '4', ...limiterStore() })
  const seen = await heartbeat(app, auth)
  const fresh = await heartbeat(app, auth)
  const flooder = '203.0.113.7'
  const ping = (path: string, remoteAddress = flooder) => app.inject({ url: path, remoteAddress })
  t.equal((await ping(seen.path)).statusCode, 200, 'a live token before the flood')
  t.equal((await ping(seen.path)).statusCode, 200, 'live pings are not counted against the address')
  for (let i = 0; i < 4; i++) {
    const res = await ping(i === 3 ? '/ping/not-a-token' : `/ping/${unknownToken()}`)
    t.equal(res.statusCode, 404, `unknown token ${i + 1}: 404`)
    t.equal(res.headers['x-ratelimit-limit'], '4', 'the API\'s limit')
    t.equal(res.headers['x-ratelimit-remaining'], String(3 - i), 'counted against the address')
  }
  const limited = await ping(`/ping/${unknownToken()}/fail`)
  t.equal(limited.statusCode, 429, 'the 5th unknown token of the window')
  t.same(limited.json(), { error: 'Rate limit exceeded' })
  t.equal(limited.headers['x-ratelimit-limit'], '4')
  t.equal(limited.headers['x-ratelimit-remaining'], '0')
  t.ok(Number(limited.headers['x-ratelimit-reset']) > 0, 'x-ratelimit-reset')
  t.ok(Number(limited.headers['retry-after']) > 0, 'retry-after')
  t.equal((await ping('/ping/garbage')).statusCode, 429, 'a malformed token too')
  t.equal((await app.inject({ url: '/api/v1/monitors', remoteAddress: flooder })).statusCode, 429, 'the API without a key: the same budget, spent')
  t.equal((await request(app, auth, { url: '/api/v1/monitors', remoteAddress: flooder })).statusCode, 200, 'with a key: the key\'s own')

  t.equal((await ping(seen.path)).statusCode, 200, 'a token this process has seen live: still recorded')
  t.equal((await ping(fresh.path)).statusCode, 429, 'a token not seen yet, from the same address: refused before any lookup')
  t.equal((await ping(fresh.path, '198.51.100.9')).statusCode, 200, 'from another address: recorded')
  t.equal(await checkCount(app, seen.monitor.id), 3)
  t.equal(await checkCount(app, fresh.monitor.id), 1)
})

t.test('an unknown token again, or a malformed one, is answered without a database statement; paused and resumed are not remembered', async (t) => {
  const { app, auth } = await setup(t)
  const token = unknownToken()
  const statements = async (fn: () => Promise<unknown>) => {
    const counter = countStatements(app.db)
    try {
      await fn()
    } finally {
      counter.stop()
    }
    return counter.count
  }
  const statuses: number[] = []
  const asked = async (url: string, method: 'GET' | 'POST' | 'HEAD' = 'GET') => { statuses.push((await app.inject({ url, method })).statusCode) }
  t.ok(await statements(() => asked(`/ping/${token}`)) > 0, 'the first time: looked up')
  t.equal(await statements(async () => {
    await asked(`/ping/${token}`)
    await asked(`/ping/${token}/fail`, 'POST')
    await asked(`/ping/${token}`, 'HEAD')
  }), 0, 'again: no statement')
  t.equal(await statements(async () => {
    await asked('/ping/not-a-token')
    await asked(`/ping/${token}x`)
    await asked(`/ping/${token.slice(1)}`)
    await asked(`/ping/${token.slice(1)}%2B`)
  }), 0, 'not the shape of a token: no statement')
  t.same(statuses, Array(8).fill(404), 'all 404')

  const { monitor, path } = await heartbeat(app, auth)
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })
  t.equal((await app.inject({ url: path })).statusCode, 409, 'paused')
  t.ok(await statements(async () => t.equal((await app.inject({ url: path })).statusCode, 409)) > 0, 'paused again: looked up again')
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: true } })
  t.equal((await app.inject({ url: path })).statusCode, 200, 'resumed: recorded')
  const site = await makeMonitor(app, auth)
  const changed = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${site.id}`, payload: { monitor_type: 'heartbeat' } })
  t.equal((await app.inject({ url: new URL(changed.json().data.ping_url).pathname })).statusCode, 200, 'a monitor that became a heartbeat: its new token is recorded')
  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}` })
  t.equal((await app.inject({ url: path })).statusCode, 404, 'deleted: 404')
  t.equal(await statements(async () => t.equal((await app.inject({ url: path })).statusCode, 404)), 0, 'deleted, again: no statement')
})

t.test('two instances count an address\'s unknown tokens in one budget through Redis', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async (t) => {
  const { handle } = await createTestDatabase(t)
  const env = { RATE_LIMIT_MAX: '2', ...limiterStore() }
  const one = await buildTestApp(t, { env, database: handle })
  const two = await buildTestApp(t, { env, database: handle })
  const ping = (app: FastifyInstance) => app.inject({ url: `/ping/${unknownToken()}`, remoteAddress: '203.0.113.8' })
  t.same([(await ping(one.app)).statusCode, (await ping(two.app)).statusCode, (await ping(one.app)).statusCode], [404, 404, 429])
})
