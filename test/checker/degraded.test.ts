// Degraded incidents end to end: a local HTTP server that answers slowly (400 ms against degraded_after_ms 200)
// or fast or 503 on demand, checks made by the checker on a driven clock, webhook channels made through the API,
// and every delivery sent to a real receiver that verifies its signature. A degraded incident opens with its
// cause, resolves on fast checks, ends where the down incident starts, comes back after a slow recovery, and
// ends with a pause; `monitor.degraded` goes only to the channels that want it (both databases).
import t from 'tap'
import http from 'node:http'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { createProber } from '../../src/checker/probe.ts'
import { Checker } from '../../src/checker/scheduler.ts'
import { rowsOf } from '../../src/db/client.ts'
import { attemptDelivery } from '../../src/notifications/deliver.ts'
import { buildTestApp, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'
import { listen } from '../support/target-server.ts'
import { asWritten, webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, testDeliveryOptions } from '../notifications/delivery-helper.ts'

const SLOW_MS = 400
const DEGRADED_AFTER_MS = 200

/** The target: `mode` says how the next request is answered. */
async function target (tt: Teardown) {
  const state = { mode: 'fast' as 'fast' | 'slow' | 'failing' }
  const server = http.createServer((_req, res) => {
    if (state.mode === 'failing') return res.writeHead(503).end('busy')
    if (state.mode === 'fast') return res.end('ok')
    const timer = setTimeout(() => res.end('ok'), SLOW_MS)
    res.on('close', () => clearTimeout(timer))
  })
  const { url } = await listen(tt, server)
  return { url, state }
}

async function setup (tt: Teardown) {
  const start = new Date(Math.floor(Date.now() / 1000) * 1000)
  const clock = { now: start }
  const { app } = await buildTestApp(tt, { clock: () => clock.now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const prober = createProber({ allowPrivateTargets: true })
  const checker = new Checker({ db: app.db, clock: () => clock.now, log: app.log, prober, concurrency: 1, confirmDelayMs: 30_000 })
  tt.teardown(() => checker.stop())
  const { auth } = await makeUser(app)
  const options = testDeliveryOptions(tt)

  /** A webhook channel (through the API) whose receiver verifies with its secret. */
  async function channel (name: string, fields: Record<string, unknown>) {
    let secret = ''
    const receiver = await webhookReceiver(tt, { verifyWith: () => [secret] })
    const res = await request(app, auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name, type: 'webhook', config: { url: `${receiver.url}/hook` }, ...fields },
    })
    if (res.statusCode !== 201) throw new Error(`channel: ${res.statusCode} ${res.body}`)
    const created = res.json().data
    secret = created.secret
    return { id: created.id as string, secret, receiver, told: () => receiver.received.map((r) => r.payload) }
  }

  /** Sends every delivery written (the receiver checks the signature against its own clock). */
  async function deliver () {
    for (const delivery of await deliveryRows(app.db)) {
      if (delivery.status === 'pending') await attemptDelivery(app.db, delivery.id, options)
    }
  }

  /** Checks what is due `seconds` after the start (the checker's clock), then sends what that wrote. */
  async function checkAt (seconds: number) {
    clock.now = at(seconds)
    if (await checker.runOnce() !== 1) throw new Error(`expected one check at ${seconds} s`)
    await deliver()
  }
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1000)

  return { app, auth, clock, channel, checkAt, deliver, at }
}

/** The monitor's events of a type as the outbox wrote them, oldest first. */
async function eventsOf (app: FastifyInstance, monitorId: string, type: string) {
  return rowsOf<{ payload: any }>(await app.db.execute(sql`
    select payload from notification_events where monitor_id = ${monitorId} and type = ${type} order by created_at`))
    .map((row) => typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload)
}

const SLOW_CAUSE = new RegExp(`^response took \\d+ ms, degraded after ${DEGRADED_AFTER_MS} ms$`)

t.test('slow checks open a degraded incident, fast ones resolve it; degraded -> down -> degraded; a pause resolves it', async (t) => {
  const server = await target(t)
  const { app, auth, clock, channel, checkAt, deliver, at } = await setup(t)
  const slowHook = await channel('slowness too', { events: ['incident.opened', 'incident.resolved', 'monitor.degraded'], all_monitors: true })
  const plain = await channel('default events', { all_monitors: true })
  const m = await makeMonitor(app, auth, {
    url: `${server.url}/health`, interval_minutes: 1, failure_threshold: 2, recovery_threshold: 2, degraded_after_ms: DEGRADED_AFTER_MS,
  })
  const status = async () => (await request(app, auth, { url: `/api/v1/monitors/${m.id}` })).json().data.status
  const incidents = async () => {
    const res = await request(app, auth, { url: `/api/v1/monitors/${m.id}/incidents` })
    t.equal(res.statusCode, 200)
    return res.json().data
  }
  const iso = (seconds: number) => at(seconds).toISOString()

  t.test('one slow check: up, confirmed 30 s later; the second opens the degraded incident at the first', async (t) => {
    server.state.mode = 'slow'
    await checkAt(0)
    t.equal(await status(), 'up', 'below failure_threshold')
    t.same(await incidents(), [])
    await checkAt(30)
    t.equal(await status(), 'degraded')
    const [incident] = await incidents()
    t.match(incident, { kind: 'degraded', status: 'open', status_code: 200, started_at: iso(0), resolved_at: null, duration_seconds: null })
    t.match(incident.cause, SLOW_CAUSE, 'the first slow check\'s error is the cause')
    t.equal(slowHook.told().length, 1)
    t.match(slowHook.told()[0], {
      type: 'monitor.degraded',
      timestamp: iso(30),
      data: {
        monitor: { id: m.id, status: 'degraded' },
        incident: { id: incident.id, kind: 'degraded', status: 'open', started_at: iso(0) },
        check: { monitor_id: m.id, is_up: true, status_code: 200, checked_at: iso(30) },
      },
    })
    t.ok(slowHook.told()[0].data.check.response_time_ms >= SLOW_MS)
    t.strictSame(slowHook.receiver.received[0].verifiedWith, [slowHook.secret], 'signed with the channel\'s secret')
    t.strictSame(plain.receiver.received, [], 'a channel with the default events gets nothing')
    t.same((await deliveryRows(app.db, plain.id)).length, 0, 'not even a delivery row')
  })

  t.test('fast checks: still degraded after one (recovery_threshold 2), resolved at the second', async (t) => {
    server.state.mode = 'fast'
    await checkAt(90)
    t.equal(await status(), 'degraded')
    await checkAt(120)
    t.equal(await status(), 'up')
    t.match(await incidents(), [{ kind: 'degraded', status: 'resolved', started_at: iso(0), resolved_at: iso(120), duration_seconds: 120 }])
    t.equal(slowHook.told().length, 2)
    t.match(slowHook.told()[1], {
      type: 'monitor.degraded',
      timestamp: iso(120),
      data: { monitor: { status: 'up' }, incident: { kind: 'degraded', status: 'resolved', resolved_at: iso(120) }, check: { is_up: true, error_message: null } },
    })
    t.strictSame(plain.receiver.received, [])
  })

  t.test('degraded, then down: the degraded incident ends where the down one starts, at the first failing check', async (t) => {
    server.state.mode = 'slow'
    await checkAt(180)
    await checkAt(210)
    t.equal(await status(), 'degraded')
    server.state.mode = 'failing'
    await checkAt(270)
    t.equal(await status(), 'degraded', 'one failure of two: still degraded')
    await checkAt(300)
    t.equal(await status(), 'down')
    const [down, degraded] = await incidents()
    t.match(down, { kind: 'down', status: 'open', started_at: iso(270), cause: 'expected status 200, got 503', status_code: 503 })
    t.match(degraded, { kind: 'degraded', status: 'resolved', started_at: iso(180), resolved_at: iso(270), duration_seconds: 90 })
    const told = slowHook.told().slice(2)
    t.same(told.map((p) => [p.type, p.data.incident.kind, p.data.incident.status]).sort(), [
      ['incident.opened', 'down', 'open'], ['monitor.degraded', 'degraded', 'open'], ['monitor.degraded', 'degraded', 'resolved'],
    ])
    t.match(told.find((p) => p.type === 'monitor.degraded' && p.data.incident.status === 'resolved'), {
      timestamp: iso(300), data: { monitor: { status: 'down' }, check: { is_up: false, checked_at: iso(300) } },
    })
    t.same(plain.told().map((p) => p.type), ['incident.opened'], 'the default events: the down incident only')
  })

  t.test('recovered from down by slow checks: the down incident resolves and a degraded one opens at that check', async (t) => {
    server.state.mode = 'slow'
    await checkAt(360)
    t.equal(await status(), 'down', 'one pass of two')
    await checkAt(390)
    t.equal(await status(), 'degraded')
    const [degraded, down] = await incidents()
    t.match(degraded, { kind: 'degraded', status: 'open', started_at: iso(390) })
    t.match(degraded.cause, SLOW_CAUSE)
    t.match(down, { kind: 'down', status: 'resolved', resolved_at: iso(390) })
    t.same(plain.told().map((p) => p.type), ['incident.opened', 'incident.resolved'])
    t.same(slowHook.told().slice(5).map((p) => [p.type, p.data.incident.status]).sort(), [['incident.resolved', 'resolved'], ['monitor.degraded', 'open']])
  })

  t.test('a pause resolves the degraded incident at that moment and tells it', async (t) => {
    clock.now = at(400)
    const paused = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: false } })
    t.equal(paused.statusCode, 200)
    await deliver()
    t.match((await incidents())[0], { kind: 'degraded', status: 'resolved', resolved_at: iso(400), duration_seconds: 10 })
    t.match(slowHook.told().at(-1), {
      type: 'monitor.degraded', timestamp: iso(400), data: { monitor: { is_active: false }, incident: { kind: 'degraded', status: 'resolved' }, check: null },
    })
    t.equal(plain.told().length, 2, 'nothing more for the default events')
    const written = await eventsOf(app, m.id, 'monitor.degraded')
    t.same(written.map((p) => p.data.incident.status), ['open', 'resolved', 'open', 'resolved', 'open', 'resolved'], 'three degraded incidents, both edges each')
    t.strictSame(slowHook.told().filter((p) => p.type === 'monitor.degraded').map(asWritten), written, 'what was sent is what the outbox wrote')
    t.ok(slowHook.receiver.received.every((r) => r.verifiedWith[0] === slowHook.secret), 'every request verified')
    t.same((await deliveryRows(app.db)).filter((d) => d.status !== 'delivered'), [], 'every delivery delivered')
  })
})
