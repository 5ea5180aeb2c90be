// Incident routes: fields, newest first, paging, duration; open incidents are unique per monitor.
import t from 'tap'
import { listIncidents, openIncident, resolveOpenIncident } from '../../src/repositories/incidents.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

t.test('incidents of a monitor', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 1) + minutes * 60_000)

  for (let i = 0; i < 5; i++) {
    await openIncident(app.db, monitor.id, { cause: `expected status 200, got ${500 + i}`, statusCode: 500 + i, startedAt: at(i * 100) })
    // A second open incident for the same monitor, of either kind, is refused by the database (the insert does nothing).
    await openIncident(app.db, monitor.id, { kind: 'degraded', cause: 'duplicate', statusCode: null, startedAt: at(i * 100 + 1) })
    if (i < 4) await resolveOpenIncident(app.db, monitor.id, at(i * 100 + 7.5))
  }
  t.equal((await listIncidents(app.db, monitor.id, {})).length, 5, 'the duplicates were not inserted')

  const res = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })
  t.equal(res.statusCode, 200)
  const data = res.json().data
  t.equal(data.length, 5)
  t.same(data.map((i: { status_code: number }) => i.status_code), [504, 503, 502, 501, 500])
  t.same(data[0], {
    id: data[0].id,
    monitor_id: monitor.id,
    status: 'open',
    kind: 'down',
    cause: 'expected status 200, got 504',
    status_code: 504,
    started_at: at(400).toISOString(),
    resolved_at: null,
    duration_seconds: null,

    acknowledged_at: null,
    acknowledged_by: null,
    during_maintenance: false,
    suppressed_by: null,
  })
  t.same(data[1], {
    id: data[1].id,
    monitor_id: monitor.id,
    status: 'resolved',
    kind: 'down',
    cause: 'expected status 200, got 503',
    status_code: 503,
    started_at: at(300).toISOString(),
    resolved_at: at(307.5).toISOString(),
    duration_seconds: 450,

    acknowledged_at: null,
    acknowledged_by: null,
    during_maintenance: false,
    suppressed_by: null,
  })

  const page = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents?limit=2&before=${encodeURIComponent(data[1].started_at)}` })).json().data
  t.same(page.map((i: { status_code: number }) => i.status_code), [502, 501])
  t.notOk(res.headers.link, 'without limit the list is whole')
  const full = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents?limit=2` })
  t.equal(full.headers.link, `</api/v1/monitors/${monitor.id}/incidents?limit=2&before=${encodeURIComponent(at(300).toISOString())}>; rel="next"`,
    'a full page links to the next: the same limit, before its oldest start')
  const followed = await request(app, auth, { url: /^<([^>]+)>/.exec(full.headers.link as string)![1] })
  t.same(followed.json().data.map((i: { status_code: number }) => i.status_code), [502, 501])
  const end = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents?limit=2&before=${encodeURIComponent(at(100).toISOString())}` })
  t.equal(end.json().data.length, 1)
  t.notOk(end.headers.link, 'the last page (not full) has none')
  const limited = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents?limit=101` })
  t.same(limited.json(), { error: 'querystring/limit must be <= 100' })

  const quiet = await makeMonitor(app, auth)
  t.same((await request(app, auth, { url: `/api/v1/monitors/${quiet.id}/incidents` })).json(), { data: [] })
})

t.test('pausing or deleting a monitor resolves its open incident at that moment', async (t) => {
  let now = new Date('2026-11-21T10:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const { auth } = await makeUser(app)
  const paused = await makeMonitor(app, auth)
  const deleted = await makeMonitor(app, auth)
  for (const m of [paused, deleted]) {
    await openIncident(app.db, m.id, { cause: 'timeout after 10000 ms', statusCode: null, startedAt: new Date('2026-11-21T09:58:00.000Z') })
  }
  now = new Date('2026-11-21T10:05:00.000Z')
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${paused.id}`, payload: { is_active: false } })
  const [incident] = (await request(app, auth, { url: `/api/v1/monitors/${paused.id}/incidents` })).json().data
  t.match(incident, { status: 'resolved', resolved_at: '2026-11-21T10:05:00.000Z', duration_seconds: 420 })
  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${deleted.id}` })
  const [gone] = await listIncidents(app.db, deleted.id, {})
  t.match(gone, { status: 'resolved', resolved_at: '2026-11-21T10:05:00.000Z' })
})
