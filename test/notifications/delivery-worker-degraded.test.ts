// The delivery worker and `monitor.degraded`: a degraded incident's two edges (one event type) are sent in order,
// a resolution never before its failed opening; events one check writes together (a degraded incident ending where
// the down one starts, a recovery that comes back degraded) go older incident first.
import t from 'tap'
import { recordCheck } from '../../src/checks/record-check.ts'
import type { Database } from '../../src/db/client.ts'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { createTestDatabase } from '../helper.ts'
import { webhookReceiver, type Answer, type Received } from '../support/webhook-receiver.ts'
import { deliveryRows, deliverySetup, newSecret, testDeliveryOptions } from './delivery-helper.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never
const EVENTS = ['incident.opened', 'incident.resolved', 'monitor.degraded'] as const

/** A database, a monitor (thresholds 1), a webhook channel that wants slowness too, a worker on a driven clock. */
async function setup (t: Parameters<typeof testDeliveryOptions>[0], answer?: (received: Received, index: number) => Answer) {
  const { handle: { db } } = await createTestDatabase(t)
  const { monitor, channel } = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer })
  const hook = await channel(receiver.url, { secret, events: [...EVENTS] })
  const clock = { now: new Date() }
  const worker = new DeliveryWorker({ ...testDeliveryOptions(t, { clock: () => clock.now, random: () => 0 }), db, log: silent, concurrency: 10 })
  /** Records a check `seconds` after the start: `slow` passes slower than allowed. */
  const start = clock.now.getTime()
  async function check (db: Database, seconds: number, result: 'fast' | 'slow' | 'failed') {
    const recorded = await recordCheck(db, monitor.id, {
      isUp: result !== 'failed',
      degraded: result === 'slow',
      statusCode: result === 'failed' ? 503 : 200,
      responseTimeMs: result === 'slow' ? 900 : 5,
      errorMessage: result === 'slow' ? 'response took 900 ms, degraded after 200 ms' : result === 'failed' ? 'expected status 200, got 503' : null,
      checkedAt: new Date(start + seconds * 1000),
    }, 30_000)
    if (!recorded) throw new Error('check not recorded')
  }
  const told = () => receiver.received.map((r) => `${r.payload.type} ${r.payload.data.incident.kind} ${r.payload.data.incident.status}`)
  return { db, hook, clock, worker, receiver, told, check: (seconds: number, result: 'fast' | 'slow' | 'failed') => check(db, seconds, result) }
}

t.test('the events of one check go older incident first: degraded ends, then down opens; down resolves, then degraded opens', async (t) => {
  const { db, hook, clock, worker, receiver, told, check } = await setup(t)
  await check(0, 'slow')
  await check(60, 'failed')
  await check(120, 'slow')
  await check(180, 'fast')
  clock.now = new Date(clock.now.getTime() + 240_000)
  await worker.runOnce()
  t.same(told(), [
    'monitor.degraded degraded open',
    'monitor.degraded degraded resolved', 'incident.opened down open',
    'incident.resolved down resolved', 'monitor.degraded degraded open',
    'monitor.degraded degraded resolved',
  ])
  t.ok(receiver.received.every((r) => r.verifiedWith.length === 1), 'every request verified')
  t.same((await deliveryRows(db, hook.id)).map((d) => d.status), Array(6).fill('delivered'))
})

t.test('a degraded incident\'s resolution waits for its failed opening\'s retry: never told before it', async (t) => {
  const { db, hook, clock, worker, told, check } = await setup(t, (_r, i) => ({ status: i === 0 ? 500 : 204 }))
  await check(0, 'slow')
  await worker.runOnce() // the opening: 500, retried later
  await check(1, 'fast')
  clock.now = new Date(clock.now.getTime() + 1000)
  await worker.runOnce()
  t.same(told(), ['monitor.degraded degraded open'], 'the resolution is not sent before its opening')
  const [opening, resolution] = await deliveryRows(db, hook.id)
  t.match(opening, { status: 'failed', attempts: 1 })
  t.match(resolution, { status: 'pending', attempts: 0 })
  t.ok(resolution.next_attempt_at! < opening.next_attempt_at!, 'due, it waits behind its opening\'s retry')

  clock.now = opening.next_attempt_at!
  await worker.runOnce()
  t.same(told(), ['monitor.degraded degraded open', 'monitor.degraded degraded open', 'monitor.degraded degraded resolved'])
})
