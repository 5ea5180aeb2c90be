// Fairness between owners: one owner's channels take at most its share of a worker's slots, so that a receiver
// that never answers cannot delay anyone else's alerts; a channel that keeps timing out gets a shorter timeout.
import t from 'tap'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { createTestDatabase, until } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, deliverySetup, newSecret, testDeliveryOptions } from './delivery-helper.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

t.test('130 channels of one owner that never answer: another owner\'s webhook goes while they are all still held open', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const [owner, other] = [await deliverySetup(db), await deliverySetup(db)]
  const secret = newSecret()
  const hanging = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => 'hang' })
  const answering = await webhookReceiver(t, { verifyWith: () => [secret] })
  const channels = []
  for (let i = 0; i < 130; i++) channels.push(await owner.channel(`${hanging.url}/c${i}`, { secret }))
  const otherChannel = await other.channel(answering.url, { secret })
  for (const channel of channels) await owner.testEvent(channel.id)

  // 100 slots, an owner's share 25%: at most 25 of its channels at once.
  const worker = new DeliveryWorker({ ...testDeliveryOptions(t), db, log: silent, concurrency: 100, ownerShare: 25, pollMs: 10, stopGraceMs: 0 })
  worker.start()
  t.teardown(() => worker.stop())
  await hanging.waitFor(25)
  const { eventId } = await other.testEvent(otherChannel.id)

  // The senders' 15 s timeout ends the first of the owner's requests: the other webhook must come before it.
  const ownerAttempted = until(async () => (await deliveryRows(db)).some((d) => d.channel_id !== otherChannel.id && d.attempts > 0), 20)
  const first = await Promise.race([answering.waitFor(1).then(() => 'other owner\'s webhook'), ownerAttempted.then(() => 'a hanging request ended')])
  t.equal(first, 'other owner\'s webhook', 'it arrives while every hanging request is still open')
  t.equal(answering.received[0].id, eventId)
  t.equal(hanging.received.length, 25, 'the owner holds no more than its share of the slots')
  const [delivered] = await until(async () => {
    const rows = await deliveryRows(db, otherChannel.id)
    return rows[0].status === 'delivered' ? rows : undefined
  })
  t.match(delivered, { status: 'delivered', attempts: 1 })
})

t.test('a channel that timed out 3 times in a row gets a third of the timeout until it answers again', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  let answer: 'hang' | 'ok' = 'hang'
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => answer === 'hang' ? 'hang' : { status: 204 } })
  const channel = await setup.channel(receiver.url, { secret })
  let now = new Date()
  const worker = new DeliveryWorker({ ...testDeliveryOptions(t, { timeoutMs: 900, clock: () => now, random: () => 0 }), db, log: silent, concurrency: 10 })
  const { deliveryId } = await setup.testEvent(channel.id, now)
  const errors = async (id: string) => (await deliveryRows(db, channel.id)).find((d) => d.id === id)!.attempt_log.map((a) => a.error)

  for (let attempt = 1; attempt <= 4; attempt++) {
    await worker.runOnce()
    const [row] = await deliveryRows(db, channel.id)
    t.equal(row.attempts, attempt)
    now = new Date(row.next_attempt_at!.getTime())
  }
  t.same(await errors(deliveryId), ['timeout after 900 ms', 'timeout after 900 ms', 'timeout after 900 ms', 'timeout after 300 ms'])

  answer = 'ok'
  await worker.runOnce()
  t.same(await errors(deliveryId), ['timeout after 900 ms', 'timeout after 900 ms', 'timeout after 900 ms', 'timeout after 300 ms', null], 'it answers within the shorter timeout')
  answer = 'hang'
  const next = await setup.testEvent(channel.id, now)
  await worker.runOnce()
  t.same(await errors(next.deliveryId), ['timeout after 900 ms'], 'once it answered, the full timeout again')
})
