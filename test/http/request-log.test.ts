// The request log: one line per request, with what both of Fastify's lines said, and errors with their cause.
import t from 'tap'
import { Writable } from 'node:stream'
import { buildApp } from '../../src/app.ts'
import { buildTestApp, makeMonitor, makeUser, testConfig } from '../helper.ts'

t.test('one line per request, flat, with method, URL, host, address, status, time and request id', async (t) => {
  const { database } = await buildTestApp(t)
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done() } })
  const app = await buildApp({ config: testConfig(), database, logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  const user = await makeUser(app)
  const ok = await app.inject({ url: '/api/v1/monitors?is_active=true', headers: { ...user.auth, host: 'pingward.test' } })
  const missing = await app.inject({ url: '/api/v1/monitors/00000000-0000-4000-8000-000000000000', headers: user.auth })
  const requests = lines.filter((l) => l.msg === 'request completed')
  t.equal(requests.length, 2, 'one line each')
  t.match(requests[0], {
    level: 30,
    reqId: ok.headers['x-request-id'],
    method: 'GET',
    url: '/api/v1/monitors?is_active=true',
    host: 'pingward.test',
    remoteAddress: '127.0.0.1',
    statusCode: 200,
    responseTime: Number,
  })
  t.match(requests[1], { reqId: missing.headers['x-request-id'], statusCode: 404 })
  t.notOk(lines.some((l) => JSON.stringify(l).includes(user.key)), 'the key is never logged')

  // A heartbeat's ping URL holds its token, a credential: the line names the route.
  const heartbeat = await makeMonitor(app, user.auth, { monitor_type: 'heartbeat', url: undefined, name: 'Backup' })
  const path = new URL(heartbeat.ping_url).pathname
  t.equal((await app.inject({ method: 'POST', url: `${path}/fail`, payload: 'disk full' })).statusCode, 200)
  t.match(lines.filter((l) => l.msg === 'request completed').at(-1), { method: 'POST', url: '/ping/:token/fail', statusCode: 200 })
  t.notOk(lines.some((l) => JSON.stringify(l).includes(path.split('/').at(-1)!)), 'the token is never logged')
})
