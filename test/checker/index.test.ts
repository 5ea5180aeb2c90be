// startChecker as the server runs it: the real loop and clock check a new monitor within seconds.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startChecker } from '../../src/checker/index.ts'
import { buildTestApp, makeMonitor, makeUser, request, testConfig } from '../helper.ts'

t.test('a running checker picks up a new monitor within seconds and stops cleanly', async (t) => {
  let hits = 0
  const server = createServer((_req, res) => { hits++; res.end('ok') })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

  const env = { ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const checker = startChecker({ config: testConfig(env), db: app.db, log: app.log })
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { url })

  const started = Date.now()
  let status = 'pending'
  while (status === 'pending' && Date.now() - started < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    status = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data.status
  }
  t.equal(status, 'up')
  t.ok(Date.now() - started < 3000, `checked within seconds (${Date.now() - started} ms)`)
  await checker.stop()
  t.equal(hits, 1, 'checked once: the next check is an interval away')
})
