// Missed heartbeats end to end on a driven clock: the deadline claimer records a failed check, the monitor goes
// down and its incident opens at once, told as `heartbeat.missed` to webhook channels (made through the API,
// their receivers verifying each signature with standardwebhooks) that want it or `incident.opened`; a ping
// just before the deadline moves it; the next ping resolves the incident (`incident.resolved`). Both databases.
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { HeartbeatDeadlines, recordMissedHeartbeat } from '../../src/checker/heartbeat-deadlines.ts'
import { rowsOf } from '../../src/db/client.ts'
import { CHANNEL_ADAPTERS } from '../../src/notifications/channels/index.ts'
import { attemptDelivery } from '../../src/notifications/deliver.ts'
import { humanText } from '../../src/notifications/message.ts'
import { buildTestApp, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, testDeliveryOptions } from '../notifications/delivery-helper.ts'
import type { SendContext } from '../../src/notifications/channels/types.ts'

const T0 = new Date('2026-05-01T12:00:00.000Z')
const sendContext = (): SendContext => ({
  publicUrl: 'https://pingward.example.com', serviceUrls: { telegram: 'http://127.0.0.1:9', pagerduty: 'http://127.0.0.1:9/v2/enqueue', ntfy: 'http://127.0.0.1:9' }, now: T0,
})
const pagerdutyChannel = { id: 'cccccccc-0000-4000-8000-000000000001', name: 'Ops', type: 'pagerduty' as const, config: { routing_key: 'R0UT1NGKEY' }, secrets: [] }
const at = (minutes: number, seconds = 0) => new Date(T0.getTime() + minutes * 60_000 + seconds * 1000)

async function setup (tt: Teardown) {
  const clock = { now: T0 }
  const { app } = await buildTestApp(tt, { clock: () => clock.now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const deadlines = new HeartbeatDeadlines({ db: app.db, clock: () => clock.now, log: app.log })
  tt.teardown(() => deadlines.stop())
  const { auth } = await makeUser(app)
  const options = testDeliveryOptions(tt)

  /** A webhook channel of every monitor (through the API) whose receiver verifies with its secret. */
  async function channel (name: string, events?: string[]) {
    let secret = ''
    const receiver = await webhookReceiver(tt, { verifyWith: () => [secret] })
    const res = await request(app, auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name, type: 'webhook', config: { url: `${receiver.url}/hook` }, all_monitors: true, ...(events && { events }) },
    })
    if (res.statusCode !== 201) throw new Error(`channel: ${res.statusCode} ${res.body}`)
    secret = res.json().data.secret
    return { id: res.json().data.id as string, secret, receiver }
  }

  /** Records the deadlines missed at `when`, then sends every delivery written; returns how many were missed. */
  async function missedAt (when: Date): Promise<number> {
    clock.now = when
    const missed = await deadlines.drain()
    await deliver()
    return missed
  }

  async function deliver () {
    for (const delivery of await deliveryRows(app.db)) {
      if (delivery.status === 'pending') await attemptDelivery(app.db, delivery.id, options)
    }
  }

  /** A ping at `when` through the route, then the deliveries it wrote. */
  async function pingAt (when: Date, path: string) {
    clock.now = when
    const res = await app.inject({ method: 'GET', url: path })
    if (res.statusCode !== 200) throw new Error(`ping: ${res.statusCode} ${res.body}`)
    await deliver()
  }

  return { app, auth, clock, channel, missedAt, pingAt }
}

async function checksOf (app: FastifyInstance, monitorId: string) {
  return rowsOf<{ is_up: boolean, error_message: string | null, checked_at: string }>(await app.db.execute(sql`
    select is_up, error_message, checked_at from checks where monitor_id = ${monitorId} order by checked_at, id`))
    .map((row) => ({ ...row, checked_at: new Date(row.checked_at).toISOString() }))
}

async function monitorRow (app: FastifyInstance, id: string) {
  const [row] = rowsOf<{ next_check_at: string, status: string, last_checked_at: string | null }>(await app.db.execute(sql`
    select next_check_at, status, last_checked_at from monitors where id = ${id}`))
  return { ...row, next_check_at: new Date(row.next_check_at).toISOString(), last_checked_at: row.last_checked_at && new Date(row.last_checked_at).toISOString() }
}

t.test('no ping: a failed check, down, an incident and heartbeat.missed at the deadline; one more check per period; the next ping resolves it', async (t) => {
  const { app, auth, channel, missedAt, pingAt } = await setup(t)
  const defaults = await channel('default events')
  const missedOnly = await channel('heartbeat.missed only', ['heartbeat.missed'])
  const neither = await channel('neither', ['incident.resolved', 'tls.expiring'])
  const m = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Nightly backup', interval_minutes: 5, grace_minutes: 1 })
  const path = new URL(m.ping_url).pathname
  t.equal((await monitorRow(app, m.id)).next_check_at, at(6).toISOString(), 'the first deadline: created + interval + grace')

  t.equal(await missedAt(at(5, 59)), 0, 'a second before the deadline: nothing')
  t.equal(await missedAt(at(6)), 1, 'at the deadline: missed')
  const message = 'no ping within 6 min (interval 5 + grace 1)'
  t.strictSame(await checksOf(app, m.id), [{ is_up: false, error_message: message, checked_at: at(6).toISOString() }], 'a failed check')
  t.match(await monitorRow(app, m.id), { status: 'down', last_checked_at: null, next_check_at: at(12).toISOString() },
    'down at once (failure_threshold 2 is not waited for); the next deadline a period later; last_checked_at stays the last ping\'s')
  const incidents = (await request(app, auth, { url: `/api/v1/monitors/${m.id}/incidents` })).json().data
  t.match(incidents, [{ status: 'open', kind: 'down', cause: message, started_at: at(6).toISOString() }], 'the incident, its cause the message')

  t.equal(defaults.receiver.received.length, 1, 'a channel with the default events hears it')
  t.equal(missedOnly.receiver.received.length, 1, 'a channel of heartbeat.missed only hears it')
  t.equal(neither.receiver.received.length, 0, 'a channel that wants neither does not')
  const [told] = defaults.receiver.received
  t.strictSame(told.verifiedWith, [defaults.secret], 'signed with the channel\'s secret (standardwebhooks verifies it)')
  t.match(told.payload, {
    type: 'heartbeat.missed',
    timestamp: at(6).toISOString(),
    data: {
      monitor: { id: m.id, monitor_type: 'heartbeat', status: 'down', url: null, interval_minutes: 5, grace_minutes: 1 },
      incident: { id: incidents[0].id, status: 'open', kind: 'down', cause: message },
      check: { monitor_id: m.id, is_up: false, error_message: message, checked_at: at(6).toISOString() },
    },
  })
  t.equal(missedOnly.receiver.received[0].payload.type, 'heartbeat.missed')

  // What a person reads, and PagerDuty's trigger keyed by the incident (so that the resolve closes it).
  const event = { id: told.id, event: told.payload }
  const text = humanText({ name: 'Ops' }, { kind: 'event', told: event }, sendContext())
  t.equal(text.title, 'Nightly backup missed its heartbeat: no ping since 2026-05-01 12:00 UTC (expected every 5 min + 1 min grace)')
  t.equal(text.tone, 'down')
  const pagerduty = CHANNEL_ADAPTERS.pagerduty.render(pagerdutyChannel, { kind: 'event', told: event }, sendContext())
  t.match(JSON.parse(pagerduty.kind === 'http' ? pagerduty.body : '{}'), { event_action: 'trigger', dedup_key: incidents[0].id, payload: { severity: 'critical' } })

  t.equal(await missedAt(at(11, 59)), 0, 'before the next period ends: nothing')
  t.equal(await missedAt(at(12)), 1, 'still no ping a period later: another failed check')
  t.equal((await checksOf(app, m.id)).length, 2)
  t.equal((await request(app, auth, { url: `/api/v1/monitors/${m.id}/incidents` })).json().data.length, 1, 'no new incident while one is open')
  t.equal(defaults.receiver.received.length, 1, 'and nothing more told')

  await pingAt(at(13), path)
  t.match(await monitorRow(app, m.id), { status: 'up', last_checked_at: at(13).toISOString(), next_check_at: at(19).toISOString() },
    'the ping: up (recovery_threshold 1), the next deadline counted from it')
  t.match((await request(app, auth, { url: `/api/v1/monitors/${m.id}/incidents` })).json().data,
    [{ status: 'resolved', resolved_at: at(13).toISOString(), duration_seconds: 7 * 60 }], 'the incident resolved by the ping')
  t.same(defaults.receiver.received.map((r) => r.payload.type), ['heartbeat.missed', 'incident.resolved'], 'the default channel hears the resolution')
  t.same(neither.receiver.received.map((r) => r.payload.type), ['incident.resolved'], 'a channel of incident.resolved hears it')
  t.same(missedOnly.receiver.received.map((r) => r.payload.type), ['heartbeat.missed'], 'one of heartbeat.missed only does not')
  t.match(defaults.receiver.received[1].payload.data, { incident: { id: incidents[0].id, status: 'resolved' }, check: { is_up: true } })

  const resolvedText = humanText({ name: 'Ops' }, { kind: 'event', told: { id: 'x', event: defaults.receiver.received[1].payload } }, sendContext())
  t.equal(resolvedText.title, 'Nightly backup is up again')
})

t.test('a ping just before the deadline moves it: no check, no incident; pausing stops the deadlines, resuming counts anew', async (t) => {
  const { app, auth, channel, missedAt, pingAt } = await setup(t)
  const defaults = await channel('default events')
  const m = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Hourly sync', interval_minutes: 60, grace_minutes: 5 })
  const path = new URL(m.ping_url).pathname
  await pingAt(at(64, 59), path)
  t.equal((await monitorRow(app, m.id)).next_check_at, at(129, 59).toISOString(), 'the deadline moved to the ping + 65 min')
  t.equal(await missedAt(at(65)), 0, 'the old deadline passes: nothing')
  t.equal(await missedAt(at(129, 58)), 0)
  t.equal((await checksOf(app, m.id)).length, 1, 'only the ping')
  t.equal(defaults.receiver.received.length, 0, 'nothing told')

  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: false } })
  t.equal(await missedAt(at(200)), 0, 'paused: no deadline')
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: true } })
  t.equal((await monitorRow(app, m.id)).next_check_at, at(265).toISOString(), 'resumed: a deadline from now')
  t.equal(await missedAt(at(265)), 1, 'missed again after the resume')
  t.equal(defaults.receiver.received[0].payload.type, 'heartbeat.missed')
  const text = humanText({ name: 'Ops' }, { kind: 'event', told: { id: 'x', event: defaults.receiver.received[0].payload } }, sendContext())
  t.equal(text.title, 'Hourly sync missed its heartbeat: no ping since 2026-05-01 13:04 UTC (expected every 60 min + 5 min grace)',
    'no ping since the last one (before the pause)')
})

t.test('deadlines of several heartbeats, longest overdue first; a deleted one is left alone; the loop runs by itself', async (t) => {
  const { app, auth, clock } = await setup(t)
  const a = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'a', interval_minutes: 1, grace_minutes: 1 })
  clock.now = at(0, 30)
  const b = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'b', interval_minutes: 1, grace_minutes: 1 })
  const gone = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'gone', interval_minutes: 1, grace_minutes: 1 })
  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${gone.id}` })
  t.equal(await recordMissedHeartbeat(app.db, at(1, 59)), false, 'none due yet')
  t.equal(await recordMissedHeartbeat(app.db, at(3)), true)
  t.equal((await checksOf(app, a.id)).length, 1, 'the longest overdue first')
  t.equal((await checksOf(app, b.id)).length, 0)

  // The loop on its own: started, it records b's missed deadline (due at 2:30) without being asked.
  clock.now = at(3)
  const loop = new HeartbeatDeadlines({ db: app.db, clock: () => clock.now, log: app.log, pollMs: 20 })
  loop.start()
  t.teardown(() => loop.stop())
  for (let i = 0; i < 500 && (await checksOf(app, b.id)).length === 0; i++) await new Promise((resolve) => setImmediate(resolve))
  t.equal((await checksOf(app, b.id)).length, 1, 'b recorded by the running loop')
  await loop.stop()
  t.equal((await checksOf(app, gone.id)).length, 0, 'the deleted one: nothing')
})

t.test('two claimers at once record each missed deadline once (SKIP LOCKED; on PostgreSQL side by side)', async (t) => {
  const { app, auth, clock } = await setup(t)
  const ids: string[] = []
  for (let i = 0; i < 12; i++) {
    ids.push((await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: `job ${i}`, interval_minutes: 1, grace_minutes: 1 })).id)
  }
  clock.now = at(2)
  const one = new HeartbeatDeadlines({ db: app.db, clock: () => clock.now, log: app.log, batch: 3 })
  const two = new HeartbeatDeadlines({ db: app.db, clock: () => clock.now, log: app.log, batch: 3 })
  const [a, b] = await Promise.all([one.drain(), two.drain()])
  t.equal(a + b, 12, 'twelve missed deadlines between them')
  for (const id of ids) t.equal((await checksOf(app, id)).length, 1, 'one failed check each')
  const [row] = rowsOf<{ n: number }>(await app.db.execute(sql`select count(*)::int as n from incidents where status = 'open'`))
  t.equal(Number(row.n), 12, 'one incident each')
})
