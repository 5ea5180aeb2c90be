// recordCheck's invariants on a real database: one transaction per recorded check, at most one open
// incident per monitor, and a monitor paused meanwhile left alone.
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { openIncident } from '../../src/repositories/incidents.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })

async function setup (t: Test) {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { failure_threshold: 1 })
  const count = async (table: 'checks' | 'incidents') =>
    Number(rowsOf<{ n: string }>(await app.db.execute(sql`select count(*) as n from ${sql.identifier(table)} where monitor_id = ${monitor.id}`))[0].n)
  const state = async () => (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data
  return { app, auth, monitor, count, state }
}

t.test('a check whose consequences fail to write leaves nothing behind (one transaction)', async (t) => {
  const { app, monitor, count, state } = await setup(t)
  // A real failure inside the transaction, after the check row and the monitor's state were written.
  await app.db.execute(sql.raw(`create function refuse_incident() returns trigger language plpgsql as $$
    begin raise exception 'incident refused by the test'; end $$`))
  await app.db.execute(sql.raw('create trigger refuse_incident before insert on incidents for each row execute function refuse_incident()'))
  const before = await state()
  await t.rejects(recordCheck(app.db, monitor.id, failed(new Date()), 30_000), { cause: { message: /incident refused by the test/ } })
  t.equal(await count('checks'), 0, 'no check row')
  t.equal(await count('incidents'), 0, 'no incident')
  t.same(await state(), before, 'the monitor\'s status, counters and last check are unchanged')

  await app.db.execute(sql.raw('drop trigger refuse_incident on incidents'))
  t.equal(await recordCheck(app.db, monitor.id, failed(new Date()), 30_000), true)
  t.equal(await count('checks'), 1)
  t.equal(await count('incidents'), 1, 'the same check records whole once nothing refuses it')
  t.equal((await state()).status, 'down')
})

t.test('at most one open incident per monitor, whatever asks for a second', async (t) => {
  const { app, monitor, count } = await setup(t)
  const at = new Date()
  await openIncident(app.db, monitor.id, { cause: 'first', statusCode: 500, startedAt: at })
  await openIncident(app.db, monitor.id, { cause: 'second', statusCode: 502, startedAt: at })
  t.equal(await count('incidents'), 1)
  await t.rejects(
    app.db.execute(sql`insert into incidents (monitor_id, cause, started_at) values (${monitor.id}, 'direct', now())`),
    'the unique index refuses a second open incident even outside the repository'
  )
})

t.test('a monitor paused before its result is recorded is left alone', async (t) => {
  const { app, auth, monitor, count, state } = await setup(t)
  await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false } })
  const paused = await state()
  t.equal(await recordCheck(app.db, monitor.id, failed(new Date()), 30_000), false)
  t.equal(await count('checks'), 0)
  t.same(await state(), paused)
})

t.test('a degraded check is recorded as up with its message; at the threshold (1) it opens a degraded incident; down and back again', async (t) => {
  const { app, auth, monitor, count, state } = await setup(t)
  const base = Date.parse('2026-11-23T04:00:00.000Z')
  const at = (seconds: number) => new Date(base + seconds * 1000)
  const passed = (checkedAt: Date, responseTimeMs: number, degraded: boolean) => ({
    isUp: true, degraded, statusCode: 200, responseTimeMs, errorMessage: degraded ? `response took ${responseTimeMs} ms, degraded after 2000 ms` : null, checkedAt,
  })
  const checks = async () => (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks` })).json().data
  const incidents = async () => (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data

  t.equal(await recordCheck(app.db, monitor.id, passed(at(0), 9120, true), 30_000), true)
  t.equal((await state()).status, 'degraded')
  t.match((await checks())[0], { is_up: true, status_code: 200, response_time_ms: 9120, error_message: 'response took 9120 ms, degraded after 2000 ms' })
  t.match(await incidents(), [{ kind: 'degraded', status: 'open', cause: 'response took 9120 ms, degraded after 2000 ms', status_code: 200, started_at: at(0).toISOString() }])

  t.equal(await recordCheck(app.db, monitor.id, passed(at(60), 40, false), 30_000), true)
  t.equal((await state()).status, 'up', 'a fast check makes it up again (recovery_threshold 1)')
  t.match((await checks())[0], { is_up: true, error_message: null })
  t.match(await incidents(), [{ kind: 'degraded', status: 'resolved', resolved_at: at(60).toISOString(), duration_seconds: 60 }])

  t.equal(await recordCheck(app.db, monitor.id, failed(at(120)), 30_000), true)
  t.equal((await state()).status, 'down')
  t.equal(await recordCheck(app.db, monitor.id, passed(at(180), 2500, true), 30_000), true)
  t.match(await state(), { status: 'degraded', last_checked_at: at(180).toISOString() }, 'recovered by a slow check: degraded')
  t.match(await incidents(), [
    { kind: 'degraded', status: 'open', started_at: at(180).toISOString(), cause: 'response took 2500 ms, degraded after 2000 ms' },
    { kind: 'down', status: 'resolved', started_at: at(120).toISOString(), resolved_at: at(180).toISOString() },
    { kind: 'degraded', status: 'resolved', started_at: at(0).toISOString() },
  ], 'the down incident resolved and the degraded one opened at the same check')
  t.equal(await count('incidents'), 3)
  t.same((await checks()).map((c: { is_up: boolean, error_message: string | null }) => [c.is_up, c.error_message]), [
    [true, 'response took 2500 ms, degraded after 2000 ms'], [false, 'expected status 200, got 503'], [true, null],
    [true, 'response took 9120 ms, degraded after 2000 ms'],
  ])
})
