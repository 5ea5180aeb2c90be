// A monitor's locations (api-contract section 17): `locations` and `location_quorum` set through the API and checked
// against GET /locations, only a checker of a listed location claims the monitor, each location's latest check shows in
// `location_states`, and `GET /monitors/{id}/checks?location=` lists one location's checks (real checkers, a real target).
import http from 'node:http'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { createProber } from '../../src/checker/probe.ts'
import { Checker } from '../../src/checker/scheduler.ts'
import { recordChecks } from '../../src/checks/record-check.ts'
import { claimDueMonitors } from '../../src/monitors/scheduling.ts'
import { upsertBuiltin } from '../../src/locations/repository.ts'
import { PINGWARD_VERSION } from '../../src/runtime/version.ts'
import { buildTestApp, makeUser, request, until, type Teardown } from '../helper.ts'
import { countStatements } from '../support/statements.ts'
import { listen } from '../support/target-server.ts'

async function setUp (tt: Teardown) {
  const clock = { now: new Date(Math.floor(Date.now() / 1000) * 1000) }
  const { app } = await buildTestApp(tt, { clock: () => clock.now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const target = { status: 200 }
  const { url } = await listen(tt, http.createServer((_req, res) => res.writeHead(target.status).end('ok')))
  for (const code of ['default', 'eu-west', 'us-east']) await upsertBuiltin(app.db, code, { at: clock.now, version: PINGWARD_VERSION })
  const checkerAt = (location?: string) => {
    const checker = new Checker({
      db: app.db, clock: () => clock.now, log: app.log, prober: createProber({ allowPrivateTargets: true }), concurrency: 4, confirmDelayMs: 30_000, location,
    })
    tt.teardown(() => checker.stop())
    return checker
  }
  const owner = await makeUser(app)
  const api = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) =>
    request(app, owner.auth, { method, url: `/api/v1${path}`, ...(payload && { payload }) })
  return { app, clock, url, target, checkerAt, owner, api }
}

t.test('each listed location checks the monitor in every slot, and the quorum of their latest checks sets its status', async (t) => {
  const { app, clock, url, target, checkerAt, api } = await setUp(t)
  const created = clock.now
  const made = await api('POST', '/monitors', { name: 'Shop', url, locations: ['eu-west', 'us-east'] })
  t.equal(made.statusCode, 201, made.body)
  const pending = { status: 'pending', last_checked_at: null, error_message: null }
  t.match(made.json().data, {
    locations: ['eu-west', 'us-east'],
    location_quorum: null,
    location_states: [{ location: 'eu-west', ...pending }, { location: 'us-east', ...pending }],
  })
  const id = made.json().data.id
  const anywhere = (await api('POST', '/monitors', { name: 'Blog', url })).json().data
  t.same([anywhere.locations, anywhere.location_quorum, anywhere.location_states], [[], null, []], 'by default: no locations')
  const [eu, us, fallback] = [checkerAt('eu-west'), checkerAt('us-east'), checkerAt()]
  const monitor = async () => (await api('GET', `/monitors/${id}`)).json().data
  const incidents = async () => (await api('GET', `/monitors/${id}/incidents`)).json().data as Array<{ kind: string, status: string, cause: string }>
  const slot = (n: number) => new Date(created.getTime() + n * 5 * 60_000)

  t.equal(await fallback.runOnce(), 1, 'a checker of another location claims only the monitor without locations')
  t.equal((await api('PATCH', `/monitors/${anywhere.id}`, { is_active: false })).statusCode, 200, 'and no more of it')
  t.equal(await eu.runOnce(), 1)
  t.equal(await eu.runOnce(), 0, 'a location checks once per slot')
  t.match(await monitor(), { status: 'pending', location_states: [{ location: 'eu-west', status: 'up', last_checked_at: created.toISOString() }, { location: 'us-east', ...pending }] },
    'one location of two is no majority: no status yet')
  clock.now = new Date(created.getTime() + 20_000)
  t.equal(await us.runOnce(), 1, 'the other location checks the same slot')
  t.match(await monitor(), { status: 'up', location_states: [{ status: 'up' }, { status: 'up', last_checked_at: clock.now.toISOString() }] })
  const schedules = await app.db.execute(sql`select location, next_check_at from monitor_schedules where monitor_id = ${id} order by location`)
  t.same(rowsOf<{ next_check_at: string }>(schedules).map((row) => new Date(row.next_check_at).toISOString()), [slot(1).toISOString(), slot(1).toISOString()],
    'both next check at the start of the next slot, however late one was')

  clock.now = slot(1)
  t.equal(await eu.runOnce(), 1)
  target.status = 503
  t.equal(await us.runOnce(), 1)
  t.match(await monitor(), { status: 'degraded', location_states: [{ status: 'up' }, { status: 'down', error_message: 'expected status 200, got 503' }] },
    'one of two failing: degraded')
  t.same(await incidents(), [], 'and no incident')

  clock.now = slot(2)
  t.equal(await eu.runOnce() + await us.runOnce(), 2)
  t.match(await monitor(), { status: 'down' }, 'both failing: down')
  t.match(await incidents(), [{ kind: 'down', status: 'open', cause: 'failing from eu-west, us-east (2 of 2 locations)' }])

  clock.now = slot(3)
  target.status = 200
  t.equal(await eu.runOnce(), 1)
  t.match(await monitor(), { status: 'degraded' }, 'one of two failing again: degraded')
  t.match(await incidents(), [{ kind: 'down', status: 'resolved' }], 'the down incident resolved')
  t.equal(await us.runOnce(), 1)
  t.match(await monitor(), { status: 'up' })
  t.equal((await incidents()).length, 1)

  const checks = async (query: string) => (await api('GET', `/monitors/${id}/checks${query}`)).json().data
  const all = await checks('')
  t.equal(all.length, 8, 'every location\'s checks, newest first')
  t.same(Object.keys(all[0]).sort(), ['checked_at', 'error_message', 'id', 'is_up', 'monitor_id', 'response_time_ms', 'status_code'],
    'a check keeps exactly the specification\'s fields')
  t.same((await checks('?location=us-east')).map((c: { is_up: boolean }) => c.is_up), [true, false, false, true])
  t.same((await checks('?location=eu-west')).map((c: { is_up: boolean }) => c.is_up), [true, false, true, true])
  t.same(await checks('?location=ap-south'), [], 'a location that made none: an empty list')
  t.same((await api('GET', `/monitors/${anywhere.id}/checks?location=default`)).json().data.length, 1, 'the default checker names its location')
  const paged = await api('GET', `/monitors/${id}/checks?location=us-east&limit=1`)
  t.match(paged.headers.link, /[?&]location=us-east(&|>)/, 'the next page keeps the location')

  const moved = await api('PATCH', `/monitors/${id}`, { locations: ['us-east', 'default'], location_quorum: 1 })
  t.equal(moved.statusCode, 200, moved.body)
  t.match(moved.json().data.location_states, [
    { location: 'us-east', status: 'up', last_checked_at: slot(3).toISOString() },
    { location: 'default', ...pending },
  ], 'a location that stays keeps its state; a new one is pending; one removed is gone')
  t.equal(await eu.runOnce(), 0, 'a location removed checks it no more')
  t.equal(await fallback.runOnce(), 1, 'a location added checks it at once')
  const events = (await api('GET', `/audit-events?entity_id=${id}`)).json().data
  t.match(events[0], { action: 'monitor.updated', changes: { locations: [['eu-west', 'us-east'], ['us-east', 'default']], location_quorum: [null, 1] } })
})

t.test('locations and location_quorum that cannot be are a 400 naming the field', async (t) => {
  const { app, api, owner } = await setUp(t)
  const agent = await api('POST', '/locations', { code: 'office', name: 'Office' })
  t.equal(agent.statusCode, 201)
  const refusals: Array<[object, string, string]> = [
    [{ locations: ['nowhere'] }, 'locations/0', 'locations/0 is not a location: nowhere is none of GET /locations'],
    [{ locations: ['Default'] }, 'body/locations/0', 'must be 2-32 lowercase letters, digits and hyphens'],
    [{ locations: ['default', 'default'] }, 'body/locations', 'duplicate'],
    [{ locations: ['default'], location_quorum: 2 }, 'location_quorum', 'location_quorum must be at most the number of locations (1)'],
    [{ location_quorum: 1 }, 'location_quorum', 'location_quorum needs locations'],
    [{ locations: ['default'], location_quorum: 0 }, 'body/location_quorum', 'must be >= 1'],
  ]
  for (const [fields, field, message] of refusals) {
    const res = await api('POST', '/monitors', { name: 'x', url: 'https://example.com', ...fields })
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    t.match(JSON.stringify(res.json()), field, `${JSON.stringify(fields)} names ${field}`)
    t.match(JSON.stringify(res.json()), message)
  }
  const heartbeat = await api('POST', '/monitors', { name: 'cron', monitor_type: 'heartbeat', locations: ['default'] })
  t.equal(heartbeat.statusCode, 400, 'a heartbeat is pinged: it has no locations')
  t.match(heartbeat.body, 'locations')

  const monitor = (await api('POST', '/monitors', { name: 'x', url: 'https://example.com', locations: ['default', 'eu-west'], location_quorum: 2 })).json().data
  const shrink = await api('PATCH', `/monitors/${monitor.id}`, { locations: ['default'] })
  t.equal(shrink.statusCode, 400, 'fewer locations than the quorum kept')
  t.match(shrink.json(), { error: 'body/location_quorum must be at most the number of locations (1), or null for a majority' })
  const toHeartbeat = await api('PATCH', `/monitors/${monitor.id}`, { monitor_type: 'heartbeat' })
  t.equal(toHeartbeat.statusCode, 200, toHeartbeat.body)
  t.same([toHeartbeat.json().data.locations, toHeartbeat.json().data.location_quorum, toHeartbeat.json().data.location_states], [[], null, []],
    'a heartbeat drops its locations')
  const other = await makeUser(app)
  t.not(other.orgId, owner.orgId)
  const theirs = await request(app, other.auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com', locations: ['office'] } })
  t.equal(theirs.statusCode, 400, 'another organization\'s agent location is no location of theirs')
  t.match(theirs.body, 'is not a location')
})

t.test('a slot claimed again after its lease ran out is recorded once, by the claim that holds it', async (t) => {
  const { app, clock, checkerAt, api } = await setUp(t)
  const seen: Array<() => void> = []
  let held = true
  const { url } = await listen(t, http.createServer((_req, res) => {
    const answer = () => res.writeHead(200).end('ok')
    if (held) seen.push(answer)
    else answer()
    held = false
  }))
  const created = clock.now
  const id = (await api('POST', '/monitors', { name: 'Slow', url, locations: ['eu-west'], timeout_seconds: 60 })).json().data.id
  const [first, second] = [checkerAt('eu-west'), checkerAt('eu-west')]
  const firstRun = first.runOnce()
  await until(() => seen.length === 1)
  clock.now = new Date(created.getTime() + 120_000)
  t.equal(await second.runOnce(), 1, 'its lease run out, another checker of the location claims the slot again, and records it')
  seen[0]()
  t.equal(await firstRun, 1)
  const rows = rowsOf<{ location: string, slot_at: string }>(await app.db.execute(sql`select location, slot_at from checks where monitor_id = ${id}`))
  t.same(rows.map((row) => [row.location, new Date(row.slot_at).toISOString()]), [['eu-west', created.toISOString()]],
    'one check of the slot: the first claim, whose lease ran out, records nothing')
  const [schedule] = rowsOf<{ next_check_at: string }>(await app.db.execute(sql`select next_check_at from monitor_schedules where monitor_id = ${id}`))
  t.equal(new Date(schedule.next_check_at).toISOString(), new Date(created.getTime() + 5 * 60_000).toISOString(), 'next due at the next slot')
})

t.test('the quorum adds one statement to a recorded batch, however many located checks it holds', async (t) => {
  const { app, clock, api } = await setUp(t)
  const batch = async (locations: string[]) => {
    for (let i = 0; i < 20; i++) await api('POST', '/monitors', { name: `m${i}`, url: `https://example.com/${i}`, locations })
    const claimed = await claimDueMonitors(app.db, 'eu-west', clock.now, 100, 90_000)
    const result = { isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt: clock.now, location: 'eu-west' }
    const counter = countStatements(app.db)
    const recorded = await recordChecks(app.db, claimed.map((monitor) => ({
      monitorId: monitor.id,
      result: { ...result, ...(monitor.slotAt && { slotAt: monitor.slotAt }) },
      confirmDelayMs: 30_000,
      ...(monitor.claimedBy === 'location' && { leaseUntil: monitor.leaseUntil }),
    })))
    counter.stop()
    t.same([recorded.length, recorded.every(Boolean)], [20, true], `${locations.length > 0 ? 'located' : 'unlocated'}: all recorded`)
    return counter.count
  }
  const anywhere = await batch([])
  const located = await batch(['eu-west'])
  t.ok(located - anywhere <= 1, `20 checks from anywhere: ${anywhere} statements; from a location, with the quorum: ${located}`)
})
