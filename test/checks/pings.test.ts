// Recording pings: a ping's body as stored, a /fail's message, and the thresholds of any check (a /fail counts
// towards failure_threshold, a ping towards recovery_threshold) with their incidents and notifications, each
// ping's deadline counted from it, all in one transaction (both databases).
import t from 'tap'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { failMessage, pingBodyText, pingRecorder, recordPing, recordPings } from '../../src/checks/pings.ts'
import { rowsOf } from '../../src/db/client.ts'
import { buildTestApp, makeMonitor, makeUser, request, type Teardown } from '../helper.ts'

const T0 = new Date('2026-05-01T12:00:00.000Z')
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)

t.test('the stored body: the first 10 KiB as UTF-8, U+FFFD for what is not text; the /fail message', async (t) => {
  t.equal(pingBodyText(undefined), null)
  t.equal(pingBodyText(Buffer.alloc(0)), null, 'empty: none')
  t.equal(pingBodyText(Buffer.from('done\n')), 'done\n')
  t.equal(pingBodyText(Buffer.from([0xc3, 0x28, 0x00])), '\uFFFD(\uFFFD', 'an invalid sequence and NUL')
  t.equal(pingBodyText(Buffer.alloc(20_000, 'z'))!.length, 10_240)
  t.equal(failMessage(null), 'ping /fail')
  t.equal(failMessage('\n \r\n'), 'ping /fail', 'only blank lines: no line to quote')
  t.equal(failMessage('\r\n  disk full  \r\nmore'), 'ping /fail: disk full')
  t.equal(failMessage('y'.repeat(500)), `ping /fail: ${'y'.repeat(200)}`)
})

async function setup (t: Teardown) {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  return { app, auth }
}

const tokenOf = (monitor: Record<string, any>) => new URL(monitor.ping_url).pathname.split('/').at(-1)!

async function state (app: FastifyInstance, id: string) {
  const [row] = rowsOf<Record<string, any>>(await app.db.execute(sql`
    select status, consecutive_failures, consecutive_successes, next_check_at, last_checked_at from monitors where id = ${id}`))
  return { ...row, consecutive_failures: Number(row.consecutive_failures), consecutive_successes: Number(row.consecutive_successes), next_check_at: new Date(row.next_check_at).toISOString() }
}

async function eventTypes (app: FastifyInstance, id: string) {
  return rowsOf<{ type: string }>(await app.db.execute(sql`select type from notification_events where monitor_id = ${id} order by created_at, type = 'incident.resolved'`))
    .map((row) => row.type)
}

t.test('thresholds: /fail pings open the incident at failure_threshold (incident.opened), pings resolve it at recovery_threshold', async (t) => {
  const { app, auth } = await setup(t)
  const m = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Backup', failure_threshold: 2, recovery_threshold: 2, interval_minutes: 10, grace_minutes: 2 })
  const token = tokenOf(m)
  const ping = (minutes: number, fail = false) => recordPing(app.db, token, { fail, at: at(minutes) })

  t.equal(await ping(1), 'recorded')
  t.match(await state(app, m.id), { status: 'up', next_check_at: at(13).toISOString() }, 'up; the deadline: the ping + interval + grace')
  await ping(2, true)
  t.match(await state(app, m.id), { status: 'up', consecutive_failures: 1, next_check_at: at(14).toISOString() }, 'one /fail: below the threshold')
  await ping(3, true)
  t.match(await state(app, m.id), { status: 'down', consecutive_failures: 2, next_check_at: at(15).toISOString() }, 'two: down')
  const [incident] = (await request(app, auth, { url: `/api/v1/monitors/${m.id}/incidents` })).json().data
  t.match(incident, { status: 'open', cause: 'ping /fail', started_at: at(2).toISOString() }, 'the incident starts at the first /fail')
  t.same(await eventTypes(app, m.id), ['incident.opened'], 'a /fail that opens an incident: incident.opened, not heartbeat.missed')
  await ping(4)
  t.match(await state(app, m.id), { status: 'down', consecutive_successes: 1 }, 'one ping: below recovery_threshold')
  await ping(5)
  t.match(await state(app, m.id), { status: 'up', consecutive_failures: 0, next_check_at: at(17).toISOString() }, 'two: up')
  t.same(await eventTypes(app, m.id), ['incident.opened', 'incident.resolved'])
  const checks = (await request(app, auth, { url: `/api/v1/monitors/${m.id}/checks` })).json().data
  t.equal(checks.length, 5)
  t.match(checks[0], { is_up: true, status_code: null, response_time_ms: 0, error_message: null, checked_at: at(5).toISOString() })
})

t.test('unknown, paused, deleted, another kind: nothing recorded; a failure inside the transaction leaves nothing', async (t) => {
  const { app, auth } = await setup(t)
  t.equal(await recordPing(app.db, 'nope', { fail: false, at: T0 }), 'unknown')
  const m = await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: 'Backup' })
  const token = tokenOf(m)
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: false } })
  t.equal(await recordPing(app.db, token, { fail: false, at: T0 }), 'paused')
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { is_active: true } })
  const before = await state(app, m.id)

  // The last write of a ping (the monitor's state and deadline, after its check) refused: the whole ping rolls back.
  await app.db.execute(sql.raw(`create function refuse_deadline() returns trigger language plpgsql as $$
    begin if new.next_check_at > new.last_checked_at then raise exception 'deadline refused'; end if; return new; end $$`))
  await app.db.execute(sql.raw('create trigger refuse_deadline before update on monitors for each row execute function refuse_deadline()'))
  await t.rejects(recordPing(app.db, token, { fail: true, at: T0 }), { cause: { message: /deadline refused/ } })
  await app.db.execute(sql.raw('drop trigger refuse_deadline on monitors'))
  t.strictSame(await state(app, m.id), before, 'the monitor as it was')
  t.equal((await request(app, auth, { url: `/api/v1/monitors/${m.id}/checks` })).json().data.length, 0, 'no check')

  const changed = await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${m.id}`, payload: { monitor_type: 'site', url: 'https://example.com/' } })
  t.equal(changed.statusCode, 200)
  t.equal(await recordPing(app.db, token, { fail: false, at: T0 }), 'unknown', 'no longer a heartbeat: its token is gone')
})

t.test('a batch: pings of several heartbeats in one transaction, each token\'s in order, incidents as one by one', async (t) => {
  const { app, auth } = await setup(t)
  const heartbeat = (name: string) => makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name, failure_threshold: 1, recovery_threshold: 1, interval_minutes: 10, grace_minutes: 2 })
  const [a, b, c] = [await heartbeat('A'), await heartbeat('B'), await heartbeat('C')]
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${c.id}`, payload: { is_active: false } })
  const ping = (monitor: Record<string, any> | string, minutes: number, fail = false) =>
    ({ token: typeof monitor === 'string' ? monitor : tokenOf(monitor), fail, at: at(minutes) })

  const outcomes = await recordPings(app.db, [ping(a, 1), ping(b, 1), ping('nope', 1), ping(c, 1), ping(a, 2, true), ping(b, 3), ping(a, 4)])
  t.same(outcomes, ['recorded', 'recorded', 'unknown', 'paused', 'recorded', 'recorded', 'recorded'])
  t.match(await state(app, a.id), { status: 'up', consecutive_failures: 0, next_check_at: at(16).toISOString() }, 'A: down at 2, up at 4')
  t.same(await eventTypes(app, a.id), ['incident.opened', 'incident.resolved'])
  const [incident] = (await request(app, auth, { url: `/api/v1/monitors/${a.id}/incidents` })).json().data
  t.match(incident, { status: 'resolved', started_at: at(2).toISOString(), resolved_at: at(4).toISOString() })
  t.match(await state(app, b.id), { status: 'up', next_check_at: at(15).toISOString() }, 'B: its deadline from its last ping')
  t.same((await request(app, auth, { url: `/api/v1/monitors/${b.id}/checks` })).json().data.map((check: { checked_at: string }) => check.checked_at),
    [at(3).toISOString(), at(1).toISOString()])
  t.equal((await request(app, auth, { url: `/api/v1/monitors/${a.id}/checks` })).json().data.length, 3)
  t.equal((await request(app, auth, { url: `/api/v1/monitors/${c.id}/checks` })).json().data.length, 0, 'paused: nothing')
})

t.test('group commits: pings that arrive together are recorded; one that fails fails alone', async (t) => {
  const { app, auth } = await setup(t)
  const monitors = []
  for (let i = 0; i < 6; i++) monitors.push(await makeMonitor(app, auth, { monitor_type: 'heartbeat', url: undefined, name: `Job ${i}` }))
  // Checks of the last heartbeat refused: the batch it is in fails, and the others in it are recorded again alone.
  await app.db.execute(sql.raw(`create function refuse_check() returns trigger language plpgsql as $$
    begin if new.monitor_id = '${monitors[5].id}' then raise exception 'check refused'; end if; return new; end $$`))
  await app.db.execute(sql.raw('create trigger refuse_check before insert on checks for each row execute function refuse_check()'))
  const record = pingRecorder(app.db)
  const results = await Promise.allSettled(monitors.flatMap((m, i) => [0, 1].map((n) => record({ token: tokenOf(m), fail: false, at: at(i + n) }))))
  t.same(results.slice(0, 10).map((r) => r.status === 'fulfilled' && r.value), Array(10).fill('recorded'))
  t.match(results.slice(10), [{ status: 'rejected', reason: { cause: { message: /check refused/ } } }, { status: 'rejected' }])
  for (const [i, m] of monitors.slice(0, 5).entries()) {
    const checks = (await request(app, auth, { url: `/api/v1/monitors/${m.id}/checks` })).json().data
    t.same(checks.map((check: { checked_at: string }) => check.checked_at), [at(i + 1).toISOString(), at(i).toISOString()], `job ${i}: both pings`)
  }
})
