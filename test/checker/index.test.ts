// startChecker as the server runs it: the real loop and clock notice a new monitor by themselves and
// check it for its first slot.
import t from 'tap'
import { startChecker } from '../../src/checker/index.ts'
import { buildTestApp, makeMonitor, makeUser, request, testConfig, until } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

t.test('a running checker picks up a new monitor by itself, checks it at once and stops cleanly', async (t) => {
  let hits = 0
  const target = await targetServer(t, (_req, res) => { hits++; res.end('ok') })
  const url = `${target.url}/`

  const env = { ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const checker = startChecker({ config: testConfig(env), db: app.db, log: app.log })
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { url })

  // Nothing here asks the checker to look: its loop finds the monitor, probes it and records the check.
  const checked = await until(async () => {
    const data = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data
    return data.status !== 'pending' && data
  })
  t.equal(checked.status, 'up')
  const lateMs = Date.parse(checked.last_checked_at) - Date.parse(monitor.created_at)
  t.ok(lateMs < checked.interval_minutes * 60_000, `checked for its first slot, not an interval later (${lateMs} ms after its creation)`)
  await checker.stop()
  t.equal(hits, 1, 'checked once: the next check is an interval away')
})
