// tls.expiring end to end: HTTPS targets with certificates made by openssl, checks made by the checker on a
// driven clock, webhook channels made through the API, and every delivery sent to a real receiver that verifies
// its signature. 14, 7 and 1 days before the expiry, once each; a new certificate or another url starts again; a
// certificate first seen 5 days before its expiry is told once; an expired one is told by its incident; all of it in
// the check's transaction (both databases).
import t from 'tap'
import https from 'node:https'
import { X509Certificate } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { createProber } from '../../src/checker/probe.ts'
import { recordCheck } from '../../src/checks/record-check.ts'
import { Checker } from '../../src/checker/scheduler.ts'
import { rowsOf } from '../../src/db/client.ts'
import { attemptDelivery } from '../../src/notifications/deliver.ts'
import { buildTestApp, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'
import { caSignedCertificate, listen } from '../support/target-server.ts'
import { asWritten, webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, testDeliveryOptions } from '../notifications/delivery-helper.ts'

const DAY = 86_400_000
const expiryOf = (cert: Buffer) => new Date(new X509Certificate(cert).validTo)
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms)

async function httpsServer (tt: Teardown, tls: { key: Buffer, cert: Buffer }) {
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (_req, res) => res.end('ok'))
  const { port } = await listen(tt, server, { scheme: 'https' })
  return { server, port }
}

/** An app and a checker on one driven clock, trusting `ca`; a user; and a way to make webhook channels with receivers. */
async function setup (tt: Teardown, ca: Buffer) {
  const clock = { now: new Date() }
  const { app } = await buildTestApp(tt, { clock: () => clock.now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const checker = new Checker({
    db: app.db, clock: () => clock.now, log: app.log, prober: createProber({ allowPrivateTargets: true, tlsCa: ca }), concurrency: 2, confirmDelayMs: 30_000,
  })
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
    return { id: created.id as string, secret, receiver }
  }

  /** Checks what is due at `at` (the checker's clock), then sends every delivery written (now: the receiver checks the signature's time). */
  async function checkAt (at: Date, due = 1) {
    clock.now = at
    if (await checker.runOnce() !== due) throw new Error(`expected ${due} checks at ${at.toISOString()}`)
    for (const delivery of await deliveryRows(app.db)) {
      if (delivery.status === 'pending') await attemptDelivery(app.db, delivery.id, options)
    }
  }

  return { app, auth, clock, channel, checkAt }
}

/** The monitor's events of a type as the outbox wrote them. */
async function eventsOf (app: FastifyInstance, monitorId: string, type: string) {
  return rowsOf<{ payload: any }>(await app.db.execute(sql`
    select payload from notification_events where monitor_id = ${monitorId} and type = ${type} order by created_at`))
    .map((row) => typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload)
}

/** Whole days from the check to the expiry, rounded up: what the event's reader is told. */
const daysTold = (payload: any) =>
  Math.ceil((new Date(payload.data.monitor.tls_expires_at).getTime() - new Date(payload.data.check.checked_at).getTime()) / DAY)

t.test('14, 7 and 1 days before the expiry, once each, to the channels that want it and cover the monitor; a new certificate and another url start again', async (t) => {
  const first = caSignedCertificate(20)
  const renewed = caSignedCertificate(40)
  const { server, port } = await httpsServer(t, first)
  const { app, auth, channel, checkAt } = await setup(t, Buffer.concat([first.ca, renewed.ca]))
  const every = await channel('every monitor', { events: ['tls.expiring'], all_monitors: true })
  const opted = await channel('opted in', { events: ['tls.expiring'], all_monitors: false })
  const incidents = await channel('incidents only', { all_monitors: true })
  const elsewhere = await channel('other monitors', { events: ['tls.expiring'], all_monitors: false })
  const m = await makeMonitor(app, auth, { url: `https://localhost:${port}/`, interval_minutes: 1, notification_channel_ids: [opted.id] })

  const expires = expiryOf(first.cert)
  const told = () => every.receiver.received.map((r) => r.payload)
  const steps: Array<[number, number | null]> = [
    [15, null], [13.5, 14], [13, null], [10, null], [6.5, 7], [3, null], [0.5, 1], [0.25, null], [-1 / 24, null],
  ]
  for (const [daysBefore, expected] of steps) {
    const before = told().length
    await checkAt(plus(expires, -daysBefore * DAY))
    const now = told()
    if (expected === null) {
      t.equal(now.length, before, `${daysBefore} days before: nothing`)
    } else {
      t.equal(now.length, before + 1, `${daysBefore} days before: one event`)
      t.equal(daysTold(now.at(-1)), expected, `the ${expected}-day one`)
    }
  }
  t.equal(told().length, 3, '14, 7 and 1 days: three events, and none once it expired (by the check\'s clock)')
  const [fourteen] = every.receiver.received
  t.strictSame(fourteen.verifiedWith, [every.secret], 'signed with the channel\'s secret')
  t.match(fourteen.payload, {
    type: 'tls.expiring',
    timestamp: plus(expires, -13.5 * DAY).toISOString(),
    data: {
      monitor: {
        id: m.id,
        url: `https://localhost:${port}/`,
        tls_expires_at: expires.toISOString(),
        tls_issuer: 'Pingward Test CA, Pingward Test Root',
        notification_channel_ids: [opted.id],
      },
      incident: null,
      check: { monitor_id: m.id, is_up: true, status_code: 200, checked_at: plus(expires, -13.5 * DAY).toISOString() },
    },
  })
  t.notOk('tls_expiry_told_days' in fourteen.payload.data.monitor, 'the mark is not part of the monitor\'s record')
  t.strictSame(await eventsOf(app, m.id, 'tls.expiring'), told().map(asWritten), 'the outbox wrote what was sent, one event per threshold')
  t.strictSame(opted.receiver.received.map((r) => r.payload), told(), 'a channel the monitor opted into gets the same')
  t.ok(opted.receiver.received.every((r) => r.verifiedWith[0] === opted.secret))
  t.equal(incidents.receiver.received.length + elsewhere.receiver.received.length, 0, 'not a channel without the event, nor one that does not cover the monitor')
  t.same((await deliveryRows(app.db)).filter((d) => d.status !== 'delivered'), [], 'every delivery delivered')

  // The certificate is renewed: another expiry, another certificate, told from 14 days again.
  server.setSecureContext({ key: renewed.key, cert: renewed.cert })
  const renewedExpires = expiryOf(renewed.cert)
  await checkAt(plus(expires, 2 * 3_600_000))
  t.equal(told().length, 3, 'renewed, 20 days away: nothing')
  t.match((await request(app, auth, { url: `/api/v1/monitors/${m.id}` })).json().data, { tls_expires_at: renewedExpires.toISOString() })
  await checkAt(plus(renewedExpires, -10 * DAY))
  t.equal(told().length, 4, 'the renewed certificate 10 days from its expiry: its 14-day event')
  t.match(told().at(-1).data.monitor, { tls_expires_at: renewedExpires.toISOString() })
  await checkAt(plus(renewedExpires, -9 * DAY))
  t.equal(told().length, 4, 'once')

  // Another url (the same server): what was told of the old url's certificate is forgotten with it.
  const moved = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { url: `https://localhost:${port}/health` } })
  t.match(moved.json().data, { tls_expires_at: null })
  await checkAt(plus(renewedExpires, -9 * DAY + 60_000))
  t.equal(told().length, 5, 'the certificate seen at the new url is told again')
  t.match(told().at(-1).data.monitor, { url: `https://localhost:${port}/health`, tls_expires_at: renewedExpires.toISOString() })
  t.equal(daysTold(told().at(-1)), 9)
  t.equal(every.receiver.received.filter((r) => r.verifiedWith.length === 1).length, 5, 'every request verified')
})

t.test('first seen 5 days before its expiry: one event, the 7-day one; an expired certificate: its incident, no tls.expiring', async (t) => {
  const soon = caSignedCertificate(5)
  const expired = caSignedCertificate(-1)
  const soonServer = await httpsServer(t, soon)
  const expiredServer = await httpsServer(t, expired)
  const { app, auth, clock, channel, checkAt } = await setup(t, Buffer.concat([soon.ca, expired.ca]))
  const hook = await channel('ops', { events: ['incident.opened', 'tls.expiring'], all_monitors: true })
  const near = await makeMonitor(app, auth, { name: 'Near', url: `https://localhost:${soonServer.port}/`, interval_minutes: 1 })
  const late = await makeMonitor(app, auth, { name: 'Late', url: `https://localhost:${expiredServer.port}/`, interval_minutes: 1, failure_threshold: 1 })

  await checkAt(clock.now, 2)
  await checkAt(plus(clock.now, 3_600_000), 2)
  await checkAt(plus(clock.now, DAY), 2)
  const received = hook.receiver.received.map((r) => r.payload)
  t.equal(received.length, 2, 'one event per monitor')
  const expiring = received.find((p) => p.type === 'tls.expiring')
  t.match(expiring, { data: { monitor: { id: near.id, tls_expires_at: expiryOf(soon.cert).toISOString() }, incident: null } })
  t.equal(daysTold(expiring), 5, 'the 7-day threshold, told as the 5 days it is')
  t.strictSame(await eventsOf(app, near.id, 'tls.expiring'), [asWritten(expiring)], 'not the 14-day one too, and not again')
  t.match(received.find((p) => p.type === 'incident.opened'), {
    data: { monitor: { id: late.id, tls_expires_at: expiryOf(expired.cert).toISOString() }, incident: { cause: /^TLS error: certificate expired on / } },
  })
  t.strictSame(await eventsOf(app, late.id, 'tls.expiring'), [], 'an expired certificate is no reminder')
  t.ok(hook.receiver.received.every((r) => r.verifiedWith[0] === hook.secret), 'every request verified')
})

t.test('the reminder is written in the check\'s transaction: refused, nothing of the check stays; the check again tells it', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const payload = { name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com/pingward' }, events: ['tls.expiring'], all_monitors: true }
  const created = await request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload })
  t.equal(created.statusCode, 201)
  const monitor = await makeMonitor(app, auth, { url: 'https://shop.example.com/' })
  const row = async () => rowsOf<Record<string, unknown>>(await app.db.execute(sql`
    select tls_expires_at, tls_expiry_told_days, (select count(*) from checks where monitor_id = ${monitor.id})::int as checks,
      (select count(*) from notification_events where monitor_id = ${monitor.id})::int as events,
      (select count(*) from notification_deliveries)::int as deliveries
    from monitors where id = ${monitor.id}`))[0]
  const at = new Date()
  const check = { isUp: true, statusCode: 200, responseTimeMs: 20, errorMessage: null, checkedAt: at, tls: { expiresAt: plus(at, 6 * DAY), issuer: 'R11' } }
  // A real failure inside the transaction: the event's insert, after the check row, the certificate and the mark were written.
  await app.db.execute(sql.raw(`create function refuse_event() returns trigger language plpgsql as $$
    begin raise exception 'event refused by the test'; end $$`))
  await app.db.execute(sql.raw('create trigger refuse_event before insert on notification_events for each row execute function refuse_event()'))
  await t.rejects(recordCheck(app.db, monitor.id, check, 30_000), { cause: { message: /event refused by the test/ } })
  t.match(await row(), { tls_expires_at: null, tls_expiry_told_days: null, checks: 0, events: 0, deliveries: 0 }, 'nothing stays, the mark neither')

  await app.db.execute(sql.raw('drop trigger refuse_event on notification_events'))
  t.equal(await recordCheck(app.db, monitor.id, check, 30_000), true)
  t.match(await row(), { tls_expiry_told_days: 7, checks: 1, events: 1, deliveries: 1 }, 'told once nothing refuses it: the 7-day one')
  t.equal(await recordCheck(app.db, monitor.id, { ...check, checkedAt: plus(at, 60_000) }, 30_000), true)
  t.match(await row(), { tls_expiry_told_days: 7, checks: 2, events: 1 }, 'and not again')
})
