// Columns the database makes (src/db/schema.ts). Check ids as version 7 UUIDs: the insert's time in milliseconds
// first, so that new rows fill the end of the primary key; both record paths (many quiet checks in one insert,
// an eventful check with its notification) use them, and a notification quotes the id the row has. A monitor's
// list item, current after every write and the same whatever the session's time zone.
import t from 'tap'
import { asc, eq, sql } from 'drizzle-orm'
import { checks, monitors, notificationEvents } from '../../src/db/schema.ts'
import { recordChecks } from '../../src/checks/record-check.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import type { Database } from '../../src/db/client.ts'
import { listMonitorPage } from '../../src/monitors/repository.ts'

/** The UUID's first 48 bits (its time in ms), its version nibble and its variant bits. */
function fieldsOf (id: string) {
  const hex = id.replaceAll('-', '')
  return { ms: Number.parseInt(hex.slice(0, 12), 16), version: hex[12], variant: Number.parseInt(hex[16], 16) >> 2 }
}

t.test('check ids are version 7 UUIDs in the order of their inserts', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const quiet = await makeMonitor(app, auth, { name: 'Quiet' })
  const failing = await makeMonitor(app, auth, { name: 'Failing', failure_threshold: 1 })
  const up = { isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null }
  const down = { isUp: false, statusCode: 503, responseTimeMs: 15, errorMessage: 'expected status 200, got 503' }

  const started = Date.now()
  const batches = 3
  for (let i = 0; i < batches; i++) {
    // Inserts in different milliseconds: the order of ids across inserts is then the order of the clock.
    const before = Date.now()
    while (Date.now() === before) await new Promise((resolve) => setImmediate(resolve))
    await recordChecks(app.db, [
      { monitorId: quiet.id, result: { ...up, checkedAt: new Date() }, confirmDelayMs: 0 },
      { monitorId: quiet.id, result: { ...up, checkedAt: new Date() }, confirmDelayMs: 0 },
    ])
  }
  // The failing check opens an incident: the eventful path, one insert whose id the notification quotes.
  await recordChecks(app.db, [{ monitorId: failing.id, result: { ...down, checkedAt: new Date() }, confirmDelayMs: 0 }])
  const finished = Date.now()

  const quietRows = await app.db.select({ id: checks.id }).from(checks).where(eq(checks.monitorId, quiet.id)).orderBy(asc(checks.checkedAt))
  const [failed] = await app.db.select({ id: checks.id }).from(checks).where(eq(checks.monitorId, failing.id))
  t.equal(quietRows.length, batches * 2)
  for (const { id } of [...quietRows, failed]) {
    const { ms, version, variant } = fieldsOf(id)
    t.equal(version, '7', `${id}: version 7`)
    t.equal(variant, 0b10, `${id}: the RFC variant`)
    t.ok(ms >= started && ms <= finished, `${id}: made at the insert (${ms} in ${started}..${finished})`)
  }
  // Rows of one insert share its millisecond, in any order; each insert's ids are above the one before.
  for (let i = 2; i < quietRows.length; i += 2) {
    const previous = quietRows.slice(i - 2, i).map(({ id }) => id).sort()
    const current = quietRows.slice(i, i + 2).map(({ id }) => id).sort()
    t.ok(current[0] > previous[1], `insert ${i / 2}'s ids are above insert ${i / 2 - 1}'s`)
  }
  t.ok(failed.id > quietRows.map(({ id }) => id).sort().at(-1)!, 'the eventful insert\'s id is the newest')

  const [opened] = await app.db.select({ payload: notificationEvents.payload }).from(notificationEvents)
    .where(eq(notificationEvents.monitorId, failing.id))
  t.equal((opened.payload as { type: string }).type, 'incident.opened')
  t.equal((opened.payload as { data: { check: { id: string } } }).data.check.id, failed.id, 'the notification quotes the row\'s id')
})

t.test('a monitor\'s list item follows its writes, whatever the session\'s time zone', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth, user } = await makeUser(app)
  const monitor = await makeMonitor(app, auth, { name: 'Zoned "shop"' })
  /** The list's item, and the same fields of the monitor as the API's object path answers them. */
  const listed = async (db: Database) => (await listMonitorPage(db, { orgId: user.id })).monitors[0]
  const compare = async (label: string) => {
    const { data } = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })).json()
    const item = await listed(app.db)
    t.same(item, Object.fromEntries(Object.keys(item).map((key) => [key, data[key]])), `${label}: the API's values`)
    t.same(Object.keys(item), ['id', 'name', 'url', 'monitor_type', 'status', 'is_active', 'interval_minutes', 'last_checked_at'], `${label}: its fields`)
    return item
  }
  t.equal((await compare('created')).last_checked_at, null)
  await recordChecks(app.db, [{ monitorId: monitor.id, result: { isUp: true, statusCode: 200, responseTimeMs: 9, errorMessage: null, checkedAt: new Date() }, confirmDelayMs: 0 }])
  t.equal((await compare('checked')).status, 'up')
  t.equal((await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { is_active: false, name: 'Renamed' } })).statusCode, 200)
  t.match(await compare('paused and renamed'), { status: 'paused', is_active: false, name: 'Renamed' })
  // Written and read in a session far from UTC, at a time whose local day is another: the text is still UTC's.
  await app.db.transaction(async (tx) => {
    await tx.execute(sql`set local timezone = 'Pacific/Kiritimati'`)
    await tx.update(monitors).set({ lastCheckedAt: new Date('2026-11-21T23:30:00.123Z') }).where(eq(monitors.id, monitor.id))
    t.equal((await listed(tx)).last_checked_at, '2026-11-21T23:30:00.123Z', 'listed at UTC+14')
  })
  t.equal((await compare('written at UTC+14')).last_checked_at, '2026-11-21T23:30:00.123Z')
})
