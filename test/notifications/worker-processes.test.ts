// Delivery across real worker processes on one PostgreSQL: a worker killed (SIGKILL) after its check
// committed an incident and before the receiver answered loses nothing; two workers send each delivery once.
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { monitors } from '../../src/db/schema.ts'
import { createTestDatabase, outputWaiter, spawnPingward, until, usingPostgres } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'
import { deliveryRows, deliverySetup, newSecret } from './delivery-helper.ts'

const needsPostgres = { skip: usingPostgres ? false : 'needs DATABASE_URL (PostgreSQL): two processes cannot share an embedded database' }

function startWorker (t: Test, DATABASE_URL: string) {
  const worker = spawnPingward('src/worker.ts', [], { DATABASE_URL, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' })
  let out = ''
  const { wake, waitFor } = outputWaiter(worker, () => out, () => out)
  worker.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  worker.stderr.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  worker.on('close', wake)
  const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)))
  t.teardown(() => { worker.kill('SIGKILL') })
  return Object.assign(worker, { started: waitFor(/"msg":"checker started"/), exited })
}

t.test('a worker killed before its delivery was answered loses nothing: the next one sends it', needsPostgres, async (t) => {
  const { handle: { db }, DATABASE_URL } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const target = await targetServer(t, (_req, res) => { res.writeHead(500).end() })
  const secret = newSecret()
  // The first request is never answered: the worker is killed while it waits.
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret], answer: (_r, i) => i === 0 ? 'hang' : { status: 200 } })
  await setup.channel(receiver.url, { secret })
  await db.update(monitors).set({ url: `${target.url}/health`, nextCheckAt: new Date() })

  const first = startWorker(t, DATABASE_URL!)
  await first.started
  // The worker's check fails, commits the incident and its delivery, and the delivery goes out.
  const [sent] = await receiver.waitFor(1)
  first.kill('SIGKILL')
  await first.exited
  t.match(sent.payload, { type: 'incident.opened', data: { monitor: { id: setup.monitor.id } } })
  const [orphan] = await deliveryRows(db)
  t.match(orphan, { event_type: 'incident.opened', status: 'pending', attempts: 0 }, 'the killed worker recorded nothing')
  t.ok(orphan.lease_until, 'the dead worker\'s lease is still on it')

  const second = startWorker(t, DATABASE_URL!)
  await second.started
  // Its lease (60 s) running out is the event the next worker waits for; the test moves it to now.
  await db.execute(sql`update notification_channels set delivery_lease_until = now()`)
  const [, again] = await receiver.waitFor(2)
  t.equal(again.id, sent.id, 'the same event, the same webhook-id')
  t.same(again.verifiedWith, [secret])
  const delivered = await until(async () => {
    const [row] = await deliveryRows(db)
    return row.status === 'delivered' ? row : undefined
  })
  t.match(delivered, { attempts: 1, last_status_code: 200, lease_until: null })
  second.kill('SIGTERM')
  t.equal(await second.exited, 0)
})

t.test('two worker processes send each delivery once', needsPostgres, async (t) => {
  const { handle: { db }, DATABASE_URL } = await createTestDatabase(t)
  const setup = await deliverySetup(db)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  await db.update(monitors).set({ isActive: false }) // only deliveries here, no checks
  const channels = []
  for (let c = 0; c < 30; c++) channels.push(await setup.channel(`${receiver.url}/c${c}`, { secret }))
  // Not due before both workers are up; then all at once, and the two compete for every channel.
  const later = new Date(Date.now() + 3600_000)
  for (let i = 0; i < 10; i++) {
    for (const channel of channels) await setup.testEvent(channel.id, later)
  }
  const workers = [startWorker(t, DATABASE_URL!), startWorker(t, DATABASE_URL!)]
  await Promise.all(workers.map((w) => w.started))
  await db.execute(sql`update notification_deliveries set next_attempt_at = now()`)

  await until(async () => (await deliveryRows(db)).every((d) => d.status === 'delivered'), 100)
  for (const w of workers) w.kill('SIGTERM')
  t.same(await Promise.all(workers.map((w) => w.exited)), [0, 0], 'both stop cleanly')
  const perEvent = new Map<string, number>()
  for (const r of receiver.received) perEvent.set(r.id, (perEvent.get(r.id) ?? 0) + 1)
  t.equal(perEvent.size, 300, 'every event arrived')
  t.ok([...perEvent.values()].every((n) => n === 1), 'each once')
  t.ok(receiver.received.every((r) => r.verifiedWith.length === 1), 'every one signed')
  const rows = await deliveryRows(db)
  t.ok(rows.every((d) => d.attempts === 1), 'one attempt each')
})
