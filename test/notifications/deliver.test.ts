// One attempt of a delivery to a real receiver that verifies the signature with the `standardwebhooks`
// package: delivered, retried after a 500, a timeout or a 429 with Retry-After, dead after two days, and a
// 410 that turns the channel off; rotation signs with both secrets for 24 h.
import t from 'tap'
import { eq, sql } from 'drizzle-orm'
import { notificationChannels } from '../../src/db/schema.ts'
import { attemptDelivery } from '../../src/notifications/deliver.ts'
import { createTestDatabase } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { dnsServer } from '../support/dns-server.ts'
import { cachingLookup } from '../../src/net/caching-lookup.ts'
import { createHttpSender } from '../../src/notifications/http-sender.ts'
import { createTransport } from '../../src/notifications/transport.ts'
import { deliveryRows, deliverySetup, newSecret, testDeliveryOptions } from './delivery-helper.ts'

t.test('a test event arrives signed as Standard Webhooks says, and its delivery is recorded', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const channel = await setup.channel(`${receiver.url}/hooks?x=1`, { secret })
  const { deliveryId, eventId } = await setup.testEvent(channel.id)

  await attemptDelivery(db, deliveryId, testDeliveryOptions(t))

  t.equal(receiver.received.length, 1)
  const [got] = receiver.received
  t.same(got.verifiedWith, [secret], 'standardwebhooks verifies the signature')
  t.equal(got.id, eventId, 'webhook-id is the event id')
  t.match(got.headers, { 'content-type': 'application/json', 'user-agent': /^Pingward\// })
  t.match(got.timestamp, /^\d{10}$/, 'webhook-timestamp in unix seconds')
  t.match(got.payload, { type: 'test', data: { monitor: null, incident: null, check: null } })
  const [row] = await deliveryRows(db)
  t.match(row, { id: deliveryId, status: 'delivered', attempts: 1, next_attempt_at: null, lease_until: null, last_status_code: 204, last_error: null })
  t.ok(row.delivered_at)
  t.equal(row.attempt_log.length, 1)
  t.match(row.attempt_log[0], { status_code: 204, error: null, duration_ms: Number })
  const [after] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, channel.id))
  t.equal(after.deliveryLeaseUntil, null, 'the channel is given back')
})

t.test('after a rotation both secrets sign for 24 h, then only the new one', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const [oldSecret, newOne] = [newSecret(), newSecret()]
  const receiver = await webhookReceiver(t, { verifyWith: () => [oldSecret, newOne] })
  const rotated = await setup.channel(receiver.url, { secret: newOne, previousSecret: oldSecret, previousSecretUntil: new Date(Date.now() + 3600_000) })
  const expired = await setup.channel(receiver.url, { secret: newOne, previousSecret: oldSecret, previousSecretUntil: new Date(Date.now() - 1000) })
  const options = testDeliveryOptions(t)
  await attemptDelivery(db, (await setup.testEvent(rotated.id)).deliveryId, options)
  await attemptDelivery(db, (await setup.testEvent(expired.id)).deliveryId, options)

  const [during, after] = receiver.received
  t.equal(during.signature.split(' ').length, 2, 'two signatures, space-separated')
  t.same(during.verifiedWith, [oldSecret, newOne], 'a receiver with either secret verifies')
  t.equal(after.signature.split(' ').length, 1)
  t.same(after.verifiedWith, [newOne], 'once the 24 h are over, the old secret no longer verifies')
})

t.test('a 500 is retried later with its answer recorded; a timeout too', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, {
    verifyWith: () => [secret],
    answer: (_r, i) => i === 0 ? { status: 500, body: 'database\nis down' } : 'hang',
  })
  const channel = await setup.channel(receiver.url, { secret })
  const now = new Date()
  const options = testDeliveryOptions(t, { timeoutMs: 300, clock: () => now, random: () => 0 })

  const first = await setup.testEvent(channel.id, now)
  await attemptDelivery(db, first.deliveryId, options)
  const [failed] = await deliveryRows(db)
  t.match(failed, { status: 'failed', attempts: 1, last_status_code: 500, last_error: 'HTTP 500: database is down' })
  t.equal(failed.next_attempt_at!.getTime(), now.getTime() + 15_000, 'the first retry: half a 30 s step at the least jitter')

  const second = await setup.testEvent(channel.id, now)
  await attemptDelivery(db, second.deliveryId, options)
  const timedOut = (await deliveryRows(db)).find((d) => d.id === second.deliveryId)!
  t.match(timedOut, { status: 'failed', attempts: 1, last_status_code: null, last_error: 'timeout after 300 ms' })
  t.match(timedOut.attempt_log, [{ status_code: null, error: 'timeout after 300 ms' }])
  t.equal(receiver.received.length, 2)
  t.ok(receiver.received.every((r) => r.verifiedWith.length === 1))
})

t.test('a 429 with Retry-After sets the next attempt, in seconds or as an HTTP date, within 6 h', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  // The delivery's clock is fixed, and behind the wall clock: an HTTP date 10 min after it (whole seconds) is due in
  // 599-600 s by that clock, however long the setup takes (read against the wall clock it was 5 s short, and short by
  // the setup's time: a CI run failed with 598,998 ms).
  const now = new Date(Date.now() - 5000)
  const retryAfter = ['120', new Date(now.getTime() + 600_000).toUTCString(), String(7 * 24 * 3600)]
  const receiver = await webhookReceiver(t, {
    verifyWith: () => [secret],
    answer: (_r, i) => ({ status: 429, headers: { 'retry-after': retryAfter[i] } }),
  })
  const channel = await setup.channel(receiver.url, { secret })
  const options = testDeliveryOptions(t, { clock: () => now })
  const due: number[] = []
  for (let i = 0; i < retryAfter.length; i++) {
    const { deliveryId } = await setup.testEvent(channel.id, now)
    await attemptDelivery(db, deliveryId, options)
    const row = (await deliveryRows(db)).find((d) => d.id === deliveryId)!
    t.match(row, { status: 'failed', last_status_code: 429, last_error: 'HTTP 429' })
    due.push(row.next_attempt_at!.getTime() - now.getTime())
  }
  t.equal(due[0], 120_000, 'seconds')
  t.ok(due[1] > 599_000 && due[1] <= 600_000, `an HTTP date (${due[1]} ms)`)
  t.equal(due[2], 6 * 3600_000, 'a week is bounded to 6 h')
})

t.test('a delivery failing two days after it was written is dead', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => ({ status: 503 }) })
  const channel = await setup.channel(receiver.url, { secret })
  const written = new Date(Date.now() - 48 * 3600_000 + 5 * 60_000)
  const { deliveryId } = await setup.testEvent(channel.id, written)
  // Five minutes short of two days: a retry within them is still made.
  await attemptDelivery(db, deliveryId, testDeliveryOptions(t, { random: () => 0 }))
  t.match((await deliveryRows(db))[0], { status: 'failed', attempts: 1 })
  // The 9th failure's step (up to 2 h) would end past the two days: given up, still listed.
  const later = testDeliveryOptions(t, { random: () => 0 })
  await db.execute(sql`update notification_deliveries set attempts = 8, next_attempt_at = now() where id = ${deliveryId}`)
  await attemptDelivery(db, deliveryId, later)
  t.match((await deliveryRows(db))[0], { status: 'dead', attempts: 9, next_attempt_at: null, last_status_code: 503 })
  t.equal(receiver.received.length, 2)
})

t.test('410 Gone: the delivery is dead and the channel turned off, saying why', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => ({ status: 410 }) })
  const channel = await setup.channel(receiver.url, { secret })
  const { deliveryId } = await setup.testEvent(channel.id)
  await attemptDelivery(db, deliveryId, testDeliveryOptions(t))
  t.match((await deliveryRows(db))[0], { status: 'dead', attempts: 1, last_status_code: 410, next_attempt_at: null })
  const [after] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, channel.id))
  t.equal(after.isActive, false)
  t.match(after.disabledReason, /410 Gone/)
})

t.test('the target policy applies at connect, and redirects are not followed', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => ({ status: 302, headers: { location: 'https://example.com/' } }) })
  const redirecting = await setup.channel(receiver.url, { secret })
  const local = await setup.channel(receiver.url, { secret })
  await attemptDelivery(db, (await setup.testEvent(redirecting.id)).deliveryId, testDeliveryOptions(t))
  const options = testDeliveryOptions(t)
  const strict = { ...options, transport: createTransport({ http: createHttpSender({ allowPrivateTargets: false }) }) }
  t.teardown(() => strict.transport.close())
  await attemptDelivery(db, (await setup.testEvent(local.id)).deliveryId, strict)
  const rows = await deliveryRows(db)
  t.match(rows.find((r) => r.channel_id === redirecting.id), { status: 'failed', last_status_code: 302, last_error: 'HTTP 302 (redirects are not followed)' })
  t.match(rows.find((r) => r.channel_id === local.id), { status: 'failed', last_status_code: null, last_error: /^target refused: 127\.0\.0\.1 is a private address/ })
  t.equal(receiver.received.length, 1, 'neither the redirect nor the private address was requested')
})

t.test('a name that resolves to a private address is refused without naming the address', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const { server } = await dnsServer(t, { 'hooks.test': { A: ['127.0.0.1'] } })
  const lookup = cachingLookup({ servers: [server], hostsFile: null, fallback: async () => [] })
  const channel = await setup.channel(receiver.url.replace('127.0.0.1', 'hooks.test'), { secret })
  const options = testDeliveryOptions(t)
  const strict = { ...options, transport: createTransport({ http: createHttpSender({ allowPrivateTargets: false, lookup }) }) }
  t.teardown(() => strict.transport.close())
  await attemptDelivery(db, (await setup.testEvent(channel.id)).deliveryId, strict)
  const [row] = await deliveryRows(db, channel.id)
  t.match(row, { status: 'failed', last_status_code: null, last_error: /^target refused: hooks\.test resolves to a private address; / })
  t.notMatch(JSON.stringify([row.last_error, row.attempt_log]), '127.0.0.1', 'neither the last error nor the attempt log names the address')
  t.equal(receiver.received.length, 0)
})

t.test('while a worker holds the channel, attemptDelivery waits for it to give the channel back, for a while', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const channel = await setup.channel(receiver.url, { secret })
  const holdChannel = () => db.update(notificationChannels).set({ deliveryLeaseUntil: new Date(Date.now() + 60_000) })
    .where(eq(notificationChannels.id, channel.id))

  await holdChannel()
  const first = await setup.testEvent(channel.id)
  let done = false
  const attempt = attemptDelivery(db, first.deliveryId, testDeliveryOptions(t)).then(() => { done = true })
  // While the channel is held it cannot attempt; then the "worker" gives the channel back.
  t.match((await deliveryRows(db))[0], { status: 'pending', attempts: 0 })
  t.equal(done, false, 'it waits')
  await db.update(notificationChannels).set({ deliveryLeaseUntil: null }).where(eq(notificationChannels.id, channel.id))
  await attempt
  t.match((await deliveryRows(db))[0], { status: 'delivered', attempts: 1 })

  await holdChannel()
  const second = await setup.testEvent(channel.id)
  await attemptDelivery(db, second.deliveryId, { ...testDeliveryOptions(t), channelWaitMs: 500 })
  t.match((await deliveryRows(db)).find((d) => d.id === second.deliveryId), { status: 'pending', attempts: 0, lease_until: null },
    'held throughout: no attempt, the delivery stays due for the worker')
  t.equal(receiver.received.length, 1)
})
