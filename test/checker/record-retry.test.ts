// A probe that finishes while the database is away keeps its result and retries recording it (the whole
// outage-and-recovery story runs against a real PostgreSQL in test/resilience/outage.resilience.ts); stop()
// still ends such a retry within its grace period.
import t from 'tap'
import http from 'node:http'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { Checker } from '../../src/checker/scheduler.ts'
import { createProber } from '../../src/checker/probe.ts'
import { buildTestApp, createTestDatabase, makeMonitor, makeUser } from '../helper.ts'

t.test('recording retries while the database is unavailable, and stop() ends the retries', async (t) => {
  const target = http.createServer((_req, res) => { setTimeout(() => res.end('ok'), 300) })
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { target.closeAllConnections(); target.close() })
  const { handle } = await createTestDatabase(t)
  const { app } = await buildTestApp(t, { database: handle, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  await makeMonitor(app, auth, { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` })

  let logged = ''
  const log = pino({ level: 'warn' }, new Writable({ write (chunk, _encoding, done) { logged += String(chunk); done() } }))
  const checker = new Checker({
    db: app.db, clock: () => new Date(), log, prober: createProber({ allowPrivateTargets: true }), concurrency: 5, confirmDelayMs: 30_000, stopGraceMs: 500,
  })
  t.equal(await checker.tick(), 1, 'the probe is in flight')
  await handle.close()
  const deadline = Date.now() + 10_000
  while (!logged.includes('will retry recording a check') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  t.match(logged, /"msg":"checker: database unavailable, will retry recording a check"/, 'the failed record is retried, not dropped')
  t.notMatch(logged, /could not record a check/)
  const started = Date.now()
  await checker.stop()
  t.ok(Date.now() - started < 3000, `stop() ended the retries in ${Date.now() - started} ms`)
  t.match(logged, /could not release abandoned monitors/, 'the lease could not be given back either: it will expire')
})
