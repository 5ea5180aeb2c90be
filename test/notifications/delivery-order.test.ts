// The order of a channel's deliveries: a monitor's events reach it in the order they happened (a later one waits
// while an earlier one waits for its retry; other monitors' go meanwhile), and a 2xx brings its waiting retries forward.
import t from 'tap'
import { recordCheck } from '../../src/checks/record-check.ts'
import type { Database } from '../../src/db/client.ts'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { retryDelivery } from '../../src/notifications/repository.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { createTestDatabase, testAudit } from '../helper.ts'
import { webhookReceiver, type Answer } from '../support/webhook-receiver.ts'
import { deliveryRows, deliverySetup, newSecret, testDeliveryOptions } from './delivery-helper.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

/** A check of any monitor through recordCheck (threshold 1: a failure opens an incident, a success resolves it). */
async function check (db: Database, monitorId: string, isUp: boolean, at: Date) {
  const recorded = await recordCheck(db, monitorId, {
    isUp, statusCode: isUp ? 200 : 503, responseTimeMs: 5, errorMessage: isUp ? null : 'expected status 200, got 503', checkedAt: at,
  }, 30_000)
  if (!recorded) throw new Error('check not recorded')
}

async function twoMonitors (t: Parameters<typeof testDeliveryOptions>[0], answer: (index: number) => Answer) {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const blog = await createMonitor(db, { orgId: setup.user.id },
    withMonitorDefaults({ name: 'Blog', url: 'https://blog.example.com/health', failure_threshold: 1 }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: (_r, i) => answer(i) })
  const channel = await setup.channel(receiver.url, { secret })
  const start = new Date()
  const clock = { now: start }
  const at = (ms: number) => { clock.now = new Date(start.getTime() + ms); return clock.now }
  const worker = new DeliveryWorker({ ...testDeliveryOptions(t, { clock: () => clock.now, random: () => 0 }), db, log: silent, concurrency: 10 })
  /** What the receiver got: the event type and the monitor's name. */
  const got = () => receiver.received.map((r) => `${r.payload.type} ${r.payload.data.monitor.name}`)
  return { db, setup, blog, channel, worker, at, start, got }
}

t.test('a monitor\'s later events wait while its earlier one waits for a retry; another monitor\'s go; a 2xx brings the retry forward', async (t) => {
  const { db, setup, blog, channel, worker, at, start, got } = await twoMonitors(t, (i) => ({ status: i === 0 ? 500 : 204 }))

  await check(db, setup.monitor.id, false, at(0))
  await worker.runOnce() // 500: retried at +15 s
  const [failed] = await deliveryRows(db, channel.id)
  t.match(failed, { status: 'failed', attempts: 1 })
  t.equal(failed.next_attempt_at!.getTime(), start.getTime() + 15_000)

  await check(db, setup.monitor.id, true, at(1000)) // the incident resolves
  await check(db, setup.monitor.id, false, at(2000)) // and a new one opens
  await worker.runOnce()
  t.same(got(), ['incident.opened Shop'], 'Shop\'s later events wait for its retry')
  t.same((await deliveryRows(db, channel.id)).map((d) => [d.event_type, d.status]),
    [['incident.opened', 'failed'], ['incident.resolved', 'pending'], ['incident.opened', 'pending']])

  await check(db, blog.id, false, at(3000)) // another monitor goes down
  const twoXx = at(4000) // long before the retry's +15 s
  await worker.runOnce()
  t.same(got(), ['incident.opened Shop', 'incident.opened Blog', 'incident.opened Shop', 'incident.resolved Shop', 'incident.opened Shop'],
    'the other monitor\'s event goes; its 2xx brings the retry forward, then Shop\'s later events follow in the order they happened')
  const rows = await deliveryRows(db, channel.id)
  t.ok(rows.every((d) => d.status === 'delivered'))
  t.same(rows[0].attempt_log.map((a) => [a.at, a.status_code]), [[start.toISOString(), 500], [twoXx.toISOString(), 204]],
    'the retry went at the 2xx, without waiting out its backoff')
})

t.test('a retry asked of a waiting event goes after its monitor\'s earlier one; a 429 is not brought forward', async (t) => {
  const { db, setup, blog, channel, worker, at, start, got } = await twoMonitors(t,
    (i) => i === 0 ? { status: 429, headers: { 'retry-after': '120' } } : i === 1 ? { status: 500 } : { status: 204 })

  await check(db, setup.monitor.id, false, at(0))
  await worker.runOnce() // 429, Retry-After 120 s
  await check(db, setup.monitor.id, true, at(1000))
  const [, resolution] = await deliveryRows(db, channel.id)
  await retryDelivery(db, setup.user.id, resolution.id, at(2000)) // POST /deliveries/{id}/retry
  await check(db, blog.id, false, at(3000))
  await worker.runOnce() // Blog's: 500, then (its retry) a 204 ... not yet: +15 s
  at(20_000)
  await worker.runOnce() // Blog's retry: 204
  t.same(got(), ['incident.opened Shop', 'incident.opened Blog', 'incident.opened Blog'], 'the retried resolution does not pass its opening')
  const [opening] = await deliveryRows(db, channel.id)
  t.equal(opening.next_attempt_at!.getTime(), start.getTime() + 120_000, 'the receiver asked for 120 s: a 2xx does not shorten it')

  at(120_000)
  await worker.runOnce()
  t.same(got().slice(3), ['incident.opened Shop', 'incident.resolved Shop'])
})
