// A probe that finishes while the database is away keeps its result and retries recording it (the whole
// outage-and-recovery story runs against a real PostgreSQL in test/resilience/outage.resilience.ts); stop()
// still ends such a retry within its grace period.
import t from 'tap'
import { Writable } from 'node:stream'
import pino from 'pino'
import { Checker } from '../../src/checker/scheduler.ts'
import { createProber } from '../../src/checker/probe.ts'
import { buildTestApp, createTestDatabase, makeMonitor, makeUser } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

const RETRYING = 'will retry recording a check'

t.test('recording retries while the database is unavailable, and stop() ends the retries', async (t) => {
  // A target that answers after a moment: the probe is still in flight when the database closes.
  const target = await targetServer(t, (_req, res) => { setTimeout(() => res.end('ok'), 300) })
  const { handle } = await createTestDatabase(t)
  const { app } = await buildTestApp(t, { database: handle, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  await makeMonitor(app, auth, { url: `${target.url}/` })

  let logged = ''
  let retrying!: () => void
  const retried = new Promise<void>((resolve) => { retrying = resolve })
  const log = pino({ level: 'warn' }, new Writable({
    write (chunk, _encoding, done) {
      logged += String(chunk)
      if (logged.includes(RETRYING)) retrying()
      done()
    },
  }))
  const checker = new Checker({
    db: app.db, clock: () => new Date(), log, prober: createProber({ allowPrivateTargets: true }), concurrency: 5, confirmDelayMs: 30_000, stopGraceMs: 500,
  })
  t.equal(await checker.tick(), 1, 'the probe is in flight')
  await handle.close()
  await retried
  t.match(logged, /"msg":"checker: database unavailable, will retry recording a check"/, 'the failed record is retried, not dropped')
  t.notMatch(logged, /could not record a check/)
  await checker.stop()
  // Retrying ends in one of two ways: stop() aborts it, or the lease (90 s) runs out and the check is given
  // up with this error. stop() has returned, and without it: stop() ended the retries.
  t.notMatch(logged, /could not record a check/, 'stop() ended the retries; they did not run out at the lease')
  t.match(logged, /could not release abandoned monitors/, 'the lease could not be given back either: it will expire')
})
