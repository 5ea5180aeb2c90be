// Object-level authorization: another user's monitor is a 404 on every id route and nothing changes.
import t from 'tap'
import { insertChecks } from '../../src/repositories/checks.ts'
import { openIncident } from '../../src/repositories/incidents.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

t.test('two users never see or touch each other\'s monitors', async (t) => {
  const { app } = await buildTestApp(t)
  const alice = await makeUser(app)
  const bob = await makeUser(app)
  const aliceMonitor = await makeMonitor(app, alice.auth, { name: 'alice' })
  const bobMonitor = await makeMonitor(app, bob.auth, { name: 'bob' })
  await insertChecks(app.db, [{ monitorId: aliceMonitor.id, isUp: true, statusCode: 200, responseTimeMs: 9, checkedAt: new Date() }])
  await openIncident(app.db, aliceMonitor.id, { cause: 'expected status 200, got 500', statusCode: 500, startedAt: new Date() })

  const snapshot = async () => ({
    monitor: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}` })).json(),
    checks: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}/checks` })).json(),
    incidents: (await request(app, alice.auth, { url: `/api/v1/monitors/${aliceMonitor.id}/incidents` })).json(),
  })
  const before = await snapshot()
  t.equal(before.checks.data.length, 1)
  t.equal(before.incidents.data.length, 1)

  const id = aliceMonitor.id
  for (const route of [
    { method: 'GET', url: `/api/v1/monitors/${id}` },
    { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: { name: 'stolen', is_active: false } },
    { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: {} },
    { method: 'DELETE', url: `/api/v1/monitors/${id}` },
    { method: 'GET', url: `/api/v1/monitors/${id}/checks` },
    { method: 'GET', url: `/api/v1/monitors/${id}/incidents` },
  ] as const) {
    const res = await request(app, bob.auth, route)
    t.equal(res.statusCode, 404, `${route.method} ${route.url}`)
    t.same(res.json(), { error: 'Monitor not found' }, 'the same answer as for a monitor that does not exist')
  }
  t.same(await snapshot(), before, 'alice\'s monitor, checks and incidents are unchanged')

  const bobList = (await request(app, bob.auth, { url: '/api/v1/monitors' })).json().data
  t.same(bobList.map((m: { id: string }) => m.id), [bobMonitor.id])
  const aliceList = (await request(app, alice.auth, { url: '/api/v1/monitors' })).json().data
  t.same(aliceList.map((m: { id: string }) => m.id), [aliceMonitor.id])
  t.notOk(JSON.stringify(bobList).includes(aliceMonitor.id))
})
