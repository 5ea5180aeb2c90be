// The delivery worker: sends what the outbox writes, in order per channel, one message at a time per
// channel; merges a flap and digests a storm for people; two workers send each delivery once; stop() gives
// back what it abandons.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { notificationChannels } from '../../src/db/schema.ts'
import { DeliveryWorker, startDeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { deliveryOptionsFromConfig } from '../../src/notifications/deliver.ts'
import type { Database } from '../../src/db/client.ts'
import { createTestDatabase, testConfig, until } from '../helper.ts'
import { smtpServer } from '../support/smtp-server.ts'
import { freePort, targetServer } from '../support/target-server.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, deliverySetup, newSecret, testDeliveryOptions } from './delivery-helper.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

function worker (t: Parameters<typeof testDeliveryOptions>[0], db: Database, extra: Parameters<typeof testDeliveryOptions>[1] & { stopGraceMs?: number, pollMs?: number } = {}) {
  return new DeliveryWorker({ ...testDeliveryOptions(t, extra), db, log: silent, concurrency: 100, stopGraceMs: extra.stopGraceMs, pollMs: extra.pollMs })
}

t.test('a running worker sends what a check writes, signed, and records it', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  await setup.channel(receiver.url, { secret })
  const running = worker(t, db)
  running.start()
  t.teardown(() => running.stop())

  await setup.check(false, new Date())
  const [opened] = await receiver.waitFor(1)
  t.same(opened.verifiedWith, [secret])
  t.match(opened.payload, { type: 'incident.opened', data: { monitor: { id: setup.monitor.id, name: 'Shop' }, incident: { status: 'open' } } })
  await setup.check(true, new Date())
  const [, resolved] = await receiver.waitFor(2)
  t.match(resolved.payload, { type: 'incident.resolved', data: { incident: { status: 'resolved' } } })
  const rows = await until(async () => {
    const all = await deliveryRows(db)
    return all.every((d) => d.status === 'delivered') ? all : undefined
  })
  t.same(rows.map((d) => [d.event_type, d.attempts]), [['incident.opened', 1], ['incident.resolved', 1]])
})

t.test('for a program, a resolution waits for its failed opening\'s retry: never told before it', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: (_r, i) => ({ status: i === 0 ? 500 : 204 }) })
  const channel = await setup.channel(receiver.url, { secret })
  let now = new Date()
  const at = (ms: number) => { now = new Date(now.getTime() + ms); return now }
  const running = worker(t, db, { clock: () => now, random: () => 0 })

  await setup.check(false, now)
  await running.runOnce() // the opening: 500, retried in 15 s
  await setup.check(true, at(1000))
  await running.runOnce()
  t.equal(receiver.received.length, 1, 'the resolution is not sent before its opening')
  const [opening, resolution] = await deliveryRows(db, channel.id)
  t.match(opening, { status: 'failed', attempts: 1 })
  t.match(resolution, { status: 'pending', attempts: 0 })
  t.ok(resolution.next_attempt_at! < opening.next_attempt_at!, 'due, it waits behind its opening\'s retry')

  at(15_000)
  await running.runOnce()
  t.same(receiver.received.map((r) => r.payload.type), ['incident.opened', 'incident.opened', 'incident.resolved'])
  t.same((await deliveryRows(db, channel.id)).map((d) => d.status), ['delivered', 'delivered'])
})

t.test('a receiver that is away gets nothing more this turn; one that refuses one message gets the others', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const away = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => ({ status: 503 }) })
  const picky = await webhookReceiver(t, { verifyWith: () => [secret], answer: (_r, i) => ({ status: i === 0 ? 400 : 204 }) })
  const awayChannel = await setup.channel(away.url, { secret })
  const pickyChannel = await setup.channel(picky.url, { secret })
  const now = new Date()
  for (let i = 0; i < 3; i++) {
    await setup.testEvent(awayChannel.id, new Date(now.getTime() + i))
    await setup.testEvent(pickyChannel.id, new Date(now.getTime() + i))
  }
  await worker(t, db, { clock: () => new Date(now.getTime() + 10), random: () => 0 }).runOnce()
  t.equal(away.received.length, 1, 'one request to the receiver that answered 503')
  const awayRows = await deliveryRows(db, awayChannel.id)
  t.same(awayRows.map((d) => [d.status, d.attempts]), [['failed', 1], ['pending', 0], ['pending', 0]])
  t.ok(awayRows.every((d) => d.next_attempt_at!.getTime() === awayRows[0].next_attempt_at!.getTime()), 'the others wait for its retry')
  t.equal(picky.received.length, 3)
  t.same((await deliveryRows(db, pickyChannel.id)).map((d) => d.status), ['failed', 'delivered', 'delivered'])
})

/** A stand-in for Slack's incoming webhook: the messages it got. */
async function slackStandIn (t: Parameters<typeof targetServer>[0]) {
  const messages: Array<{ text: string, blocks: unknown[] }> = []
  const { url } = await targetServer(t, (req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => {
      messages.push(JSON.parse(body))
      res.end('ok')
    })
  })
  return { url, messages }
}

t.test('for people, an incident that resolved before its opening was told goes as one message, both delivered', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const slack = await slackStandIn(t)
  const channel = await setup.channel('', { type: 'slack', config: { webhook_url: `${slack.url}/services/T0/B0/x` } })
  const down = new Date(Date.now() - 180_000)
  await setup.check(false, down)
  await setup.check(true, new Date(down.getTime() + 180_000))
  await worker(t, db, { clock: () => new Date(down.getTime() + 181_000) }).runOnce()

  t.equal(slack.messages.length, 1, 'one message')
  t.match(JSON.stringify(slack.messages[0]), /3 min/, 'it says how long it was down')
  const [opening, resolution] = await deliveryRows(db, channel.id)
  t.match(opening, { event_type: 'incident.opened', status: 'delivered', attempt_log: [{ status_code: 200, with: [resolution.id] }] })
  t.match(resolution, { event_type: 'incident.resolved', status: 'delivered', attempt_log: [{ status_code: 200, with: [opening.id] }] })
})

t.test('for people, past 10 events in a minute the rest go as one digest when the minute is over', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const slack = await slackStandIn(t)
  const channel = await setup.channel('', { type: 'slack', config: { webhook_url: `${slack.url}/services/T0/B0/x` } })
  const start = new Date(Date.now() - 120_000)
  let now = start
  const running = worker(t, db, { clock: () => now })
  // 25 events within 25 s (the monitor going down and up), the worker running after each.
  for (let i = 0; i < 25; i++) {
    now = new Date(start.getTime() + i * 1000)
    await setup.check(i % 2 === 1, now)
    await running.runOnce()
  }
  t.equal(slack.messages.length, 10, 'the first 10 one by one')
  const held = (await deliveryRows(db, channel.id)).filter((d) => d.status === 'pending')
  t.equal(held.length, 15)
  t.equal(held[0].next_attempt_at!.getTime(), start.getTime() + 10_000 + 60_000, 'the 11th waits for the digest, a minute after it')
  t.ok(held.every((d) => d.next_attempt_at!.getTime() <= start.getTime() + 70_000), 'the later ones (of its monitor) behind it')
  now = new Date(start.getTime() + 70_000)
  await running.runOnce()
  t.equal(slack.messages.length, 11, 'then one digest')
  const rows = await deliveryRows(db, channel.id)
  t.ok(rows.every((d) => d.status === 'delivered'))
  t.equal(rows[24].attempt_log[0].with?.length, 14, 'each digested delivery names the 14 others')
})

t.test('two workers on one database: every delivery sent once, one message at a time per channel', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const inFlight = new Map<string, number>()
  let overlap = 0
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: () => ({ status: 204 }) })
  // Each channel's path; the receiver counts requests in flight per path while it answers a bit later.
  receiver.server.prependListener('request', (req) => {
    const n = (inFlight.get(req.url!) ?? 0) + 1
    inFlight.set(req.url!, n)
    if (n > 1) overlap++
    req.on('close', () => inFlight.set(req.url!, inFlight.get(req.url!)! - 1))
  })
  const channels = []
  for (let c = 0; c < 10; c++) channels.push(await setup.channel(`${receiver.url}/c${c}`, { secret }))
  const workers = [worker(t, db, { pollMs: 10 }), worker(t, db, { pollMs: 10 })]
  for (const w of workers) w.start()
  for (let i = 0; i < 20; i++) {
    for (const channel of channels) await setup.testEvent(channel.id)
  }
  await until(async () => (await deliveryRows(db)).every((d) => d.status === 'delivered'))
  await Promise.all(workers.map((w) => w.stop()))
  const ids = receiver.received.map((r) => r.id)
  t.equal(ids.length, 200)
  t.equal(new Set(ids).size, 200, 'no event twice')
  t.equal(overlap, 0, 'never two requests at once to one channel')
})

t.test('stop() abandons a message in flight after its grace and gives the channel back; the next worker sends it', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: (_r, i) => i === 0 ? 'hang' : { status: 204 } })
  const channel = await setup.channel(receiver.url, { secret })
  const first = worker(t, db, { stopGraceMs: 50 })
  first.start()
  await setup.testEvent(channel.id)
  await receiver.waitFor(1)
  await first.stop()
  const [row] = await deliveryRows(db)
  t.match(row, { status: 'pending', attempts: 0, lease_until: null }, 'not recorded: it is sent again')
  const [held] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, channel.id))
  t.equal(held.deliveryLeaseUntil, null, 'the channel is given back at once')
  await worker(t, db).runOnce()
  t.equal(receiver.received.length, 2)
  t.equal(receiver.received[0].id, receiver.received[1].id, 'the same webhook-id: the receiver can tell it is the same event')
  t.match((await deliveryRows(db))[0], { status: 'delivered', attempts: 1 })
})

t.test('the worker of a process sends email through SMTP_URL (deliveryOptionsFromConfig), the resolved mail after the opened one', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const smtp = await smtpServer(t)
  const channel = await setup.channel('', { type: 'email', config: { to: ['oncall@example.com'] } })
  const options = deliveryOptionsFromConfig(testConfig({ SMTP_URL: smtp.url, SMTP_FROM: 'Pingward <alerts@example.com>', PUBLIC_URL: 'https://pingward.example' }))
  const running = new DeliveryWorker({ ...options, db, log: silent, concurrency: 100 })
  running.start()
  t.teardown(() => running.stop())
  await setup.check(false, new Date())
  await until(() => smtp.received.length === 1)
  await setup.check(true, new Date())
  await until(() => smtp.received.length === 2)
  const [opened, resolved] = smtp.received
  t.same(opened.envelope.to, ['oncall@example.com'])
  t.equal(resolved.mail.inReplyTo, opened.mail.messageId, 'the resolved mail answers the opened one')
  const rows = await until(async () => {
    const all = await deliveryRows(db, channel.id)
    return all.every((d) => d.status === 'delivered') ? all : undefined
  })
  t.equal(rows.length, 2)
})

/** A logger that keeps the messages of its info and error lines. */
function recordingLog () {
  const lines: string[] = []
  const keep = (level: string) => (obj: unknown, msg?: string) => { lines.push(`${level}: ${typeof obj === 'string' ? obj : msg}`) }
  const log = { ...(silent as object), info: keep('info'), error: keep('error'), warn: keep('warn'), child: () => log }
  return { log: log as never, lines }
}

t.test('a process\'s worker tries SMTP_URL at start: the log says at once whether email channels can send', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const smtp = await smtpServer(t)
  const refused = `smtp://user:hunter2@127.0.0.1:${await freePort()}`
  const from = { SMTP_FROM: 'alerts@example.com' }

  const good = recordingLog()
  const answering = startDeliveryWorker({ config: testConfig({ SMTP_URL: smtp.url, ...from }), db, log: good.log })
  t.teardown(() => answering.stop())
  await until(() => good.lines.length > 0)
  t.same(good.lines, ['info: email channels: the SMTP server accepted the connection'])

  const bad = recordingLog()
  const refusing = startDeliveryWorker({ config: testConfig({ SMTP_URL: refused, ...from }), db, log: bad.log })
  t.teardown(() => refusing.stop())
  await until(() => bad.lines.length > 0)
  t.match(bad.lines, [/^error: email channels cannot send: SMTP server smtp:\/\/user:\*\*\*@127\.0\.0\.1:\d+ cannot be used: .*ECONNREFUSED/])
  t.notMatch(bad.lines.join('\n'), /hunter2/, 'the password is not logged')

  const none = recordingLog()
  const withoutSmtp = startDeliveryWorker({ config: testConfig(), db, log: none.log })
  await withoutSmtp.runOnce()
  await withoutSmtp.stop()
  t.same(none.lines, [], 'nothing said without SMTP_URL')
})

t.test('a channel deleted while its message is being sent: the log says so, not that a lease ran out', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  let arrived!: (answer: () => void) => void
  const request = new Promise<() => void>((resolve) => { arrived = resolve })
  const { url } = await targetServer(t, (req, res) => {
    req.resume().on('end', () => arrived(() => res.writeHead(204).end()))
  })
  const channel = await setup.channel(url)
  await setup.testEvent(channel.id)
  const { log, lines } = recordingLog()
  const sending = new DeliveryWorker({ ...testDeliveryOptions(t), db, log, concurrency: 10 }).runOnce()
  const answer = await request
  await db.delete(notificationChannels).where(eq(notificationChannels.id, channel.id))
  answer()
  await sending
  t.same(lines, ['warn: delivery: the channel was deleted during the send; the attempt is not recorded'])
})
