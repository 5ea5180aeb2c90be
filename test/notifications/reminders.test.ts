// Reminders (api-contract section 13): `incident.reminder` every `reminder_minutes` to the channels told of an
// incident's opening, while it is open and nobody has acknowledged it; never twice for one interval.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { sendDueReminders } from '../../src/notifications/reminders.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })
const passed = (checkedAt: Date) => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt })
const minutes = (from: Date, n: number) => new Date(from.getTime() + n * 60_000)

t.test('a reminder every reminder_minutes until someone acknowledges, only where the opening was told', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const channel = async (name: string, values: Record<string, unknown>) => (await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name, type: 'webhook', config: { url: 'https://example.com/hook' }, all_monitors: true, ...values },
  })).json().data
  const reminded = await channel('reminded', { reminder_minutes: 30 })
  await channel('never reminded', {})
  await channel('not told of openings', { events: ['incident.resolved'], reminder_minutes: 5 })
  t.equal(reminded.reminder_minutes, 30)

  const monitor = await makeMonitor(app, owner.auth, { failure_threshold: 1, recovery_threshold: 1 })
  const opened = new Date()
  await recordCheck(app.db, monitor.id, failed(opened), 30_000)
  const [incident] = (await request(app, owner.auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data
  const [{ told }] = rowsOf<{ told: Date }>(await app.db.execute(sql`
    select d.created_at as told from notification_deliveries d join notification_events e on e.id = d.event_id
    where e.incident_id = ${incident.id} and d.channel_id = ${reminded.id}`))
  const start = new Date(told)
  const reminders = async () => rowsOf<{ channel_id: string, payload: { type: string, data: { incident: { id: string } } } }>(await app.db.execute(sql`
    select d.channel_id, e.payload from notification_deliveries d join notification_events e on e.id = d.event_id
    where e.type = 'incident.reminder' order by d.created_at`))

  t.equal(await sendDueReminders(app.db, minutes(start, 29)), 0, 'not before its minutes')
  t.equal(await sendDueReminders(app.db, minutes(start, 30)), 1, 'one, at 30 minutes')
  t.equal(await sendDueReminders(app.db, minutes(start, 31)), 0, 'not again within the interval')
  const [first] = await reminders()
  t.equal(first.channel_id, reminded.id, 'to the channel with reminder_minutes that was told of the opening')
  t.match(first.payload, { type: 'incident.reminder', data: { incident: { id: incident.id, status: 'open', acknowledged_at: null } } })
  t.equal(await sendDueReminders(app.db, minutes(start, 59)), 0)
  t.equal(await sendDueReminders(app.db, minutes(start, 60)), 1, 'the next interval counts from the last reminder')

  const ack = await request(app, owner.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: {} })
  t.equal(ack.statusCode, 200)
  t.equal(await sendDueReminders(app.db, minutes(start, 240)), 0, 'an acknowledgement stops them')
  t.equal((await reminders()).length, 2)

  const other = await makeMonitor(app, owner.auth, { failure_threshold: 1, recovery_threshold: 1 })
  await recordCheck(app.db, other.id, failed(new Date()), 30_000)
  await recordCheck(app.db, other.id, passed(new Date()), 30_000)
  t.equal(await sendDueReminders(app.db, minutes(new Date(), 300)), 0, 'a resolved incident has none')
})

t.test('two sweeps at once queue each reminder once', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'r', type: 'webhook', config: { url: 'https://example.com/hook' }, all_monitors: true, reminder_minutes: 5 },
  })
  for (let i = 0; i < 3; i++) {
    const monitor = await makeMonitor(app, owner.auth, { failure_threshold: 1 })
    await recordCheck(app.db, monitor.id, failed(new Date()), 30_000)
  }
  const later = minutes(new Date(), 10)
  const sent = await Promise.all([sendDueReminders(app.db, later), sendDueReminders(app.db, later)])
  t.equal(sent[0] + sent[1], 3, `${sent.join(' + ')}: three reminders in all`)
  const [{ count }] = rowsOf<{ count: number }>(await app.db.execute(sql`select count(*)::int as count from notification_events where type = 'incident.reminder'`))
  t.equal(count, 3)
})

t.test('reminder_minutes is 5-1440 or null, and no channel chooses reminders in its events', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const post = (payload: Record<string, unknown>) => request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'r', type: 'webhook', config: { url: 'https://example.com/hook' }, ...payload },
  })
  t.same((await post({ reminder_minutes: 4 })).json(), { error: 'body/reminder_minutes must be >= 5' })
  t.same((await post({ reminder_minutes: 1441 })).json(), { error: 'body/reminder_minutes must be <= 1440' })
  t.match((await post({ events: ['incident.reminder'] })).json(), { error: /^body\/events\/0 must be one of/ })
  const made = (await post({})).json().data
  t.equal(made.reminder_minutes, null, 'none by default')
  const patched = await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/notification-channels/${made.id}`, payload: { reminder_minutes: 15 } })
  t.equal(patched.json().data.reminder_minutes, 15)
  const events = (await request(app, owner.auth, { url: `/api/v1/audit-events?entity_id=${made.id}&action=notification_channel.updated` })).json().data
  t.same(events[0].changes, { reminder_minutes: [null, 15] }, 'audited')
})
