// Maintenance windows (api-contract section 14): what a window must say, its occurrence and state, start and end
// now, who may do what, and the rules at its edges: inside, nothing is told; still down at the end, one opening then;
// down before and after, nothing new; resolved inside, nothing at all.
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf, type Database } from '../../src/db/client.ts'
import { actOnDueEdges } from '../../src/maintenance/service.ts'
import { claimDueMonitors } from '../../src/monitors/scheduling.ts'
import { DEFAULT_LOCATION } from '../../src/domain/locations.ts'
import { buildTestApp, makeMember, makeMonitor, makeTeam, request } from '../helper.ts'

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })
const passed = (checkedAt: Date) => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt })

/** A clock the test moves by hand. */
function manualClock (start: string) {
  let now = new Date(start).getTime()
  const clock = () => new Date(now)
  return Object.assign(clock, { advance: (ms: number) => { now += ms } })
}

/** The events queued so far, oldest first: type, and the incident's or window's id. */
async function told (db: Database): Promise<Array<{ type: string, about: string | null }>> {
  return rowsOf<{ type: string, about: string | null }>(await db.execute(sql`
    select type, coalesce(incident_id::text, payload->'data'->'maintenance_window'->>'id') as about
    from notification_events order by created_at, id`))
}

async function setUp (t: Test, start = '2026-12-01T09:00:00.000Z') {
  const clock = manualClock(start)
  const { app } = await buildTestApp(t, { clock, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const team = await makeTeam(app)
  const monitor = await makeMonitor(app, team.auth, { failure_threshold: 1, recovery_threshold: 1, labels: { service: 'api' } })
  await request(app, team.auth, {
    method: 'POST',
    url: '/api/v1/notification-channels',
    payload: { name: 'hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' }, all_monitors: true, events: ['incident.opened', 'incident.resolved', 'maintenance.started', 'maintenance.ended'] },
  })
  const create = async (payload: Record<string, unknown>) => request(app, team.auth, { method: 'POST', url: '/api/v1/maintenance-windows', payload })
  const monitorRecord = async () => (await request(app, team.auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data
  const incidents = async () => (await request(app, team.auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data
  return { app, clock, team, monitor, create, monitorRecord, incidents }
}

const MINUTE = 60_000

t.test('a window made without starts_at starts now; inside it an incident is told to no one, and told once at the end if still open', async (t) => {
  const { app, clock, team, monitor, create, monitorRecord, incidents } = await setUp(t)
  const made = await create({ title: 'Deploy', ends_at: new Date(clock().getTime() + 30 * MINUTE).toISOString(), label_selector: ['service:api'] })
  t.equal(made.statusCode, 201)
  const window = made.json().data
  t.equal(made.headers.location, `/api/v1/maintenance-windows/${window.id}`)
  t.match(window, { state: 'active', mode: 'mute', timezone: 'UTC', rrule: null, starts_at: clock().toISOString(), next_starts_at: clock().toISOString() })
  t.equal((await monitorRecord()).in_maintenance, true, 'the monitor its label selector picks is in maintenance')

  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, failed(clock()), 30_000)
  const [inside] = await incidents()
  t.match(inside, { status: 'open', during_maintenance: true })
  t.same((await told(app.db)).map((e) => e.type), ['maintenance.started'], 'the opening inside is told to no one')

  clock.advance(MINUTE)
  const ended = await request(app, team.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/end` })
  t.equal(ended.statusCode, 200)
  t.match(ended.json().data, { state: 'completed', next_starts_at: null })
  t.equal((await monitorRecord()).in_maintenance, false)
  const atTheEnd = await told(app.db)
  t.same(atTheEnd[0], { type: 'maintenance.started', about: window.id })
  t.same(atTheEnd.slice(1).sort((a, b) => a.type < b.type ? -1 : 1), [
    { type: 'incident.opened', about: inside.id },
    { type: 'maintenance.ended', about: window.id },
  ], 'still down at the end: incident.opened is sent then, with maintenance.ended')

  await actOnDueEdges(app.db, clock())
  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, passed(clock()), 30_000)
  t.same((await told(app.db)).map((e) => e.type).slice(3), ['incident.resolved'], 'its resolution is told, since its opening was; nothing twice')
  const timeline = (await request(app, team.auth, { url: `/api/v1/incidents/${inside.id}` })).json().data.timeline
  t.same(timeline.map((e: { kind: string, event_type?: string }) => e.event_type ?? e.kind), [
    'maintenance_started', 'opened', 'maintenance_ended', 'incident.opened', 'incident.resolved', 'resolved',
  ], 'told at the window\'s end, when it left maintenance')
  t.equal(timeline[0].window_id, window.id)
  t.equal((await request(app, team.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/end` })).statusCode, 409, 'nothing under way to end')
})

t.test('resolved inside: nothing is told; down before and still down after: nothing new', async (t) => {
  const { app, clock, team, monitor, create, incidents } = await setUp(t)
  const window = (await create({ title: 'Short', monitor_ids: [monitor.id], ends_at: new Date(clock().getTime() + 10 * MINUTE).toISOString() })).json().data
  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, failed(clock()), 30_000)
  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, passed(clock()), 30_000)
  clock.advance(10 * MINUTE)
  t.equal(await actOnDueEdges(app.db, clock()), 1, 'the sweep ends the window at its time')
  t.same((await told(app.db)).map((e) => e.type), ['maintenance.started', 'maintenance.ended'], 'opened and resolved inside: told to no one')

  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, failed(clock()), 30_000)
  const [before] = await incidents()
  t.match(before, { status: 'open', during_maintenance: false })
  clock.advance(MINUTE)
  const again = (await request(app, team.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/start`, payload: { duration_minutes: 5 } })).json().data
  t.match(again, { state: 'active', next_ends_at: new Date(clock().getTime() + 5 * MINUTE).toISOString() })
  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, failed(clock()), 30_000)
  clock.advance(5 * MINUTE)
  await actOnDueEdges(app.db, clock())
  t.same((await told(app.db)).map((e) => e.type), [
    'maintenance.started', 'maintenance.ended', 'incident.opened', 'maintenance.started', 'maintenance.ended',
  ], 'down before and after: only its first opening, nothing new at the end')
})

t.test('a pause window claims no checks while it lasts, and schedules the monitor at its end', async (t) => {
  const { app, clock, monitor, create, monitorRecord } = await setUp(t)
  await create({ title: 'Pause', all_monitors: true, mode: 'pause', starts_at: new Date(clock().getTime() + MINUTE).toISOString(), ends_at: new Date(clock().getTime() + 11 * MINUTE).toISOString() })
  clock.advance(MINUTE)
  await actOnDueEdges(app.db, clock())
  t.equal((await monitorRecord()).in_maintenance, true)
  t.same(await claimDueMonitors(app.db, DEFAULT_LOCATION, new Date(clock().getTime() + 60 * MINUTE), 10, 30_000), [], 'nothing is claimed, however late')
  clock.advance(10 * MINUTE)
  await actOnDueEdges(app.db, clock())
  const claimed = await claimDueMonitors(app.db, DEFAULT_LOCATION, clock(), 10, 30_000)
  t.same(claimed.map((m) => m.id), [monitor.id], 'due at the end')
})

t.test('a recurring window keeps its wall-clock time and moves to its next occurrence', async (t) => {
  const { app, clock, team, monitor, create } = await setUp(t, '2027-03-25T12:00:00.000Z')
  const made = await create({
    title: 'Nightly',
    monitor_ids: [monitor.id],
    timezone: 'Europe/Berlin',
    rrule: 'FREQ=DAILY;COUNT=5',
    starts_at: '2027-03-26T01:00:00.000Z',
    ends_at: '2027-03-26T02:00:00.000Z',
  })
  t.match(made.json().data, { state: 'scheduled', next_starts_at: '2027-03-26T01:00:00.000Z' })
  clock.advance(14 * 60 * MINUTE)
  t.equal(await actOnDueEdges(app.db, clock()), 1)
  clock.advance(60 * MINUTE)
  await actOnDueEdges(app.db, clock())
  const after = (await request(app, team.auth, { url: `/api/v1/maintenance-windows/${made.json().data.id}` })).json().data
  t.match(after, { state: 'scheduled', next_starts_at: '2027-03-27T01:00:00.000Z' }, '02:00 in Berlin, the day before summer time')
  clock.advance(24 * 60 * MINUTE)
  await actOnDueEdges(app.db, clock())
  await actOnDueEdges(app.db, new Date(clock().getTime() + 60 * MINUTE))
  const summer = (await request(app, team.auth, { url: `/api/v1/maintenance-windows/${made.json().data.id}` })).json().data
  t.match(summer, { next_starts_at: '2027-03-28T01:00:00.000Z' }, '02:00 does not exist on the 28th: 03:00 CEST, the same instant')
})

t.test('a window says what is wrong with it, by field; roles and organizations are kept apart', async (t) => {
  const { app, team, monitor, create } = await setUp(t)
  const other = await makeTeam(app)
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ title: 'x', ends_at: '2026-12-01T10:00:00.000Z' }, 'body/monitor_ids must name a monitor, unless all_monitors is true or label_selector is given'],
    [{ title: 'x', all_monitors: true, starts_at: '2026-12-01T10:00:00.000Z', ends_at: '2026-12-01T10:00:00.000Z' }, 'body/ends_at must be after starts_at'],
    [{ title: 'x', all_monitors: true, ends_at: '2026-12-02T10:00:00.000Z', timezone: 'Mars/Olympus' }, 'body/timezone must be an IANA time zone such as Europe/Berlin; "Mars/Olympus" is not one'],
    [{ title: 'x', all_monitors: true, ends_at: '2026-12-02T10:00:00.000Z', rrule: 'FREQ=HOURLY' }, 'body/rrule: FREQ must be DAILY, WEEKLY or MONTHLY'],
    [{ title: 'x', all_monitors: true, ends_at: '2026-12-02T10:00:00.000Z', rrule: 'FREQ=WEEKLY;BYDAY=2MO' }, 'body/rrule: BYDAY "2MO": an ordinal needs FREQ=MONTHLY'],
    [{ title: 'x', monitor_ids: ['0b9e8d7c-6a5b-4c3d-9e2f-000000000000'], ends_at: '2026-12-02T10:00:00.000Z' }, 'body/monitor_ids: 0b9e8d7c-6a5b-4c3d-9e2f-000000000000 is not a monitor of this organization'],
    [{ title: 'x', all_monitors: true, starts_at: '2026-11-01T10:00:00.000Z', ends_at: '2026-11-01T11:00:00.000Z' }, 'body/ends_at is past and no occurrence is left: the window would never start'],
  ]
  for (const [payload, error] of cases) {
    const res = await create(payload)
    t.same([res.statusCode, res.json()], [400, { error }], error)
  }
  const otherMonitor = await makeMonitor(app, other.auth)
  t.equal((await create({ title: 'x', monitor_ids: [otherMonitor.id], ends_at: '2026-12-02T10:00:00.000Z' })).statusCode, 400, 'another organization\'s monitor is not named')

  const window = (await create({ title: 'Later', monitor_ids: [monitor.id], starts_at: '2026-12-02T10:00:00.000Z', ends_at: '2026-12-02T11:00:00.000Z' })).json().data
  const responder = await makeMember(app, team.orgId, 'responder')
  const viewer = await makeMember(app, team.orgId, 'viewer')
  t.equal((await request(app, viewer.auth, { url: `/api/v1/maintenance-windows/${window.id}` })).statusCode, 200)
  t.equal((await request(app, viewer.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/start`, payload: {} })).statusCode, 403)
  t.equal((await request(app, responder.auth, { method: 'PATCH', url: `/api/v1/maintenance-windows/${window.id}`, payload: { title: 'y' } })).statusCode, 403)
  const started = await request(app, responder.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/start`, payload: {} })
  t.match([started.statusCode, started.json().data], [200, { state: 'active' }], 'a responder starts a window')
  t.equal((await request(app, other.auth, { url: `/api/v1/maintenance-windows/${window.id}` })).statusCode, 404)

  const cancelled = await request(app, team.auth, { method: 'PATCH', url: `/api/v1/maintenance-windows/${window.id}`, payload: { state: 'cancelled' } })
  t.match(cancelled.json().data, { state: 'cancelled', next_starts_at: null })
  t.equal((await request(app, team.auth, { method: 'POST', url: `/api/v1/maintenance-windows/${window.id}/start`, payload: {} })).statusCode, 409)
  const restored = await request(app, team.auth, { method: 'PATCH', url: `/api/v1/maintenance-windows/${window.id}`, payload: { state: 'scheduled' } })
  t.match(restored.json().data, { state: 'scheduled', next_starts_at: '2026-12-02T10:00:00.000Z' })
  t.equal((await request(app, team.auth, { method: 'DELETE', url: `/api/v1/maintenance-windows/${window.id}` })).statusCode, 204)
  const events = (await request(app, team.auth, { url: `/api/v1/audit-events?entity_id=${window.id}` })).json().data
  t.same(events.find((e: { action: string }) => e.action === 'maintenance_window.started').changes.state, ['scheduled', 'active'], 'the start is audited as it left the window')
  const actions = events.map((e: { action: string }) => e.action)
  t.same(actions.sort(), ['maintenance_window.created', 'maintenance_window.deleted', 'maintenance_window.started', 'maintenance_window.updated', 'maintenance_window.updated'])
  t.same((await told(app.db)).map((e) => e.type).sort(), ['maintenance.ended', 'maintenance.started'], 'the cancel ended the occurrence under way')
})

t.test('a monitor whose labels change enters or leaves a window under way at once; leaving, what opened inside is told', async (t) => {
  const { app, clock, team, monitor, create, monitorRecord, incidents } = await setUp(t)
  await create({ title: 'Payments deploy', label_selector: ['team:payments'], ends_at: new Date(clock().getTime() + 60 * MINUTE).toISOString() })
  t.equal((await monitorRecord()).in_maintenance, false, 'service:api is not team:payments')
  const patch = (labels: Record<string, string>) => request(app, team.auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { labels } })
  const entered = await patch({ service: 'api', team: 'payments' })
  t.equal(entered.json().data.in_maintenance, true, 'the answer says so')
  clock.advance(MINUTE)
  await recordCheck(app.db, monitor.id, failed(clock()), 30_000)
  const [inside] = await incidents()
  t.equal(inside.during_maintenance, true)
  clock.advance(MINUTE)
  t.equal((await patch({ service: 'api' })).json().data.in_maintenance, false)
  t.same((await told(app.db)).map((e) => e.type), ['maintenance.started', 'incident.opened'], 'still down as it leaves: its opening is told then')
  const timeline = (await request(app, team.auth, { url: `/api/v1/incidents/${inside.id}` })).json().data.timeline
  t.same(timeline.map((e: { kind: string }) => e.kind).slice(0, 3), ['maintenance_started', 'opened', 'maintenance_ended'])
})

t.test('sweeps side by side act on each edge once', async (t) => {
  const { app, clock, create } = await setUp(t)
  for (let i = 0; i < 5; i++) {
    await create({ title: `Window ${i}`, all_monitors: true, starts_at: new Date(clock().getTime() + MINUTE).toISOString(), ends_at: new Date(clock().getTime() + 2 * MINUTE).toISOString() })
  }
  clock.advance(MINUTE)
  const acted = await Promise.all([actOnDueEdges(app.db, clock()), actOnDueEdges(app.db, clock()), actOnDueEdges(app.db, clock())])
  t.equal(acted.reduce((a, b) => a + b, 0), 5, 'five windows, each started by one sweep')
  t.equal((await told(app.db)).filter((e) => e.type === 'maintenance.started').length, 5)
  const stays = rowsOf<{ n: number }>(await app.db.execute(sql`select count(*)::int as n from monitor_maintenance`))
  t.equal(stays[0].n, 1, 'the monitor entered maintenance once')
})
