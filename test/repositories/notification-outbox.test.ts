// The outbox's write side: an incident change writes its event and one delivery per channel that wants it,
// in the transaction of the change; a change that rolls back writes nothing.
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { monitorNotificationChannels, notificationChannels } from '../../src/db/schema.ts'
import type { ChannelEventType } from '../../src/domain/vocabulary.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const check = (isUp: boolean, checkedAt: Date) => ({
  isUp, statusCode: isUp ? 200 : 503, responseTimeMs: 12, errorMessage: isUp ? null : 'expected status 200, got 503', checkedAt,
})

async function setup (t: Test) {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const stranger = await makeUser(app)
  const monitor = await makeMonitor(app, owner.auth, { failure_threshold: 1, name: 'Shop' })
  const channel = async (userId: string, name: string, values: { allMonitors?: boolean, isActive?: boolean, events?: ChannelEventType[] } = {}) => {
    const [row] = await app.db.insert(notificationChannels).values({
      orgId: userId,
      name,
      type: 'webhook',
      config: { url: 'https://example.com/hook' },
      events: values.events ?? ['incident.opened', 'incident.resolved'],
      allMonitors: values.allMonitors ?? false,
      isActive: values.isActive ?? true,
    }).returning()
    return row
  }
  const channels = {
    all: await channel(owner.user.id, 'all', { allMonitors: true }),
    optedIn: await channel(owner.user.id, 'opted in'),
    notOptedIn: await channel(owner.user.id, 'not opted in'),
    inactive: await channel(owner.user.id, 'inactive', { allMonitors: true, isActive: false }),
    openedOnly: await channel(owner.user.id, 'opened only', { allMonitors: true, events: ['incident.opened'] }),
    strangers: await channel(stranger.user.id, 'stranger\'s', { allMonitors: true }),
  }
  await app.db.insert(monitorNotificationChannels).values({ monitorId: monitor.id, channelId: channels.optedIn.id })
  const names = Object.fromEntries(Object.values(channels).map((c) => [c.id, c.name]))
  /** Each event of the monitor, oldest first (an opening before a resolving of the same millisecond), with the names of the channels it has a delivery for. */
  const outbox = async () => rowsOf<{ id: string, type: string, payload: any, channel_ids: string[] | null }>(await app.db.execute(sql`
    select e.id, e.type, e.payload, array_remove(array_agg(d.channel_id order by d.channel_id), null) as channel_ids
    from notification_events e left join notification_deliveries d on d.event_id = e.id
    where e.monitor_id = ${monitor.id} group by e.id order by e.created_at, e.type`))
    .map((e) => ({ ...e, channels: (e.channel_ids ?? []).map((id) => names[id]).sort() }))
  return { app, owner, monitor, outbox, channels }
}

t.test('an incident opened and resolved by checks: one event each, a delivery per channel that wants it', async (t) => {
  const { app, monitor, outbox, channels } = await setup(t)
  const down = new Date(Date.now() - 60_000)
  t.equal(await recordCheck(app.db, monitor.id, check(false, down), 30_000), true)
  t.equal(await recordCheck(app.db, monitor.id, check(false, new Date(down.getTime() + 30_000)), 30_000), true, 'still down: no new event')
  // A minute after the first failure, whatever the two recordings above took (61 s under a loaded CI).
  const up = new Date(down.getTime() + 60_000)
  t.equal(await recordCheck(app.db, monitor.id, check(true, up), 30_000), true)
  const [opened, resolved, ...rest] = await outbox()
  t.same(rest, [], 'two events in all')
  t.equal(opened.type, 'incident.opened')
  t.same(opened.channels, ['all', 'opened only', 'opted in'])
  t.match(opened.payload, {
    type: 'incident.opened',
    timestamp: down.toISOString(),
    data: {
      monitor: { id: monitor.id, name: 'Shop', status: 'down', notification_channel_ids: [channels.optedIn.id] },
      incident: { monitor_id: monitor.id, status: 'open', cause: 'expected status 200, got 503', started_at: down.toISOString(), resolved_at: null },
      check: { monitor_id: monitor.id, is_up: false, status_code: 503, checked_at: down.toISOString() },
    },
  })
  const checks = rowsOf<{ id: string }>(
    await app.db.execute(sql`select id from checks where monitor_id = ${monitor.id} order by checked_at`))
  t.equal(opened.payload.data.check.id, checks[0].id, 'the check in the event is the recorded one')
  t.equal(resolved.type, 'incident.resolved')
  t.same(resolved.channels, ['all', 'opted in'])
  t.match(resolved.payload.data, {
    monitor: { status: 'up' },
    incident: { id: opened.payload.data.incident.id, status: 'resolved', resolved_at: up.toISOString(), duration_seconds: 60 },
    check: { id: checks[2].id, is_up: true },
  })
  const due = rowsOf<{ status: string, next_attempt_at: string }>(await app.db.execute(sql`select status, next_attempt_at from notification_deliveries`))
  t.ok(due.length === 5 && due.every((d) => d.status === 'pending' && d.next_attempt_at !== null), 'every delivery is pending and due')
})

t.test('a pause and a delete resolve the open incident and tell it, without a check', async (t) => {
  for (const how of ['pause', 'delete'] as const) {
    const { app, owner, monitor, outbox } = await setup(t)
    await recordCheck(app.db, monitor.id, check(false, new Date()), 30_000)
    const res = how === 'pause'
      ? await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })
      : await request(app, owner.auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}` })
    t.equal(res.statusCode, how === 'pause' ? 200 : 204)
    const resolved = (await outbox())[1]
    t.equal(resolved?.type, 'incident.resolved', how)
    t.same(resolved.channels, ['all', 'opted in'])
    t.match(resolved.payload.data, { monitor: { status: how === 'pause' ? 'paused' : 'down' }, incident: { status: 'resolved' }, check: null })
    const again = await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })
    t.ok(again.statusCode === 200 || again.statusCode === 404)
    t.equal((await outbox()).length, 2, `${how}: nothing more to tell once resolved`)
  }
})

t.test('a check whose notification fails to write records nothing (one transaction)', async (t) => {
  const { app, monitor, outbox } = await setup(t)
  await app.db.execute(sql.raw(`create function refuse_delivery() returns trigger language plpgsql as $$
    begin raise exception 'delivery refused by the test'; end $$`))
  await app.db.execute(sql.raw('create trigger refuse_delivery before insert on notification_deliveries for each row execute function refuse_delivery()'))
  await t.rejects(recordCheck(app.db, monitor.id, check(false, new Date()), 30_000), { cause: { message: /delivery refused by the test/ } })
  t.same(await outbox(), [], 'no event')
  const counts = rowsOf<{ checks: number, incidents: number }>(await app.db.execute(sql`select
    (select count(*) from checks where monitor_id = ${monitor.id})::int as checks,
    (select count(*) from incidents where monitor_id = ${monitor.id})::int as incidents`))[0]
  t.same({ checks: Number(counts.checks), incidents: Number(counts.incidents) }, { checks: 0, incidents: 0 }, 'no check, no incident')
})
