// The record path's locks read monitors by plain SQL (src/monitors/repository.ts): the rows they give are
// drizzle's own select's, field for field, for monitors of every kind with every column set, and they leave out
// what they must (deleted, paused, another kind, unknown ids and tokens, however odd the text).
import t from 'tap'
import { eq, inArray } from 'drizzle-orm'
import { monitors } from '../../src/db/schema.ts'
import { lockHeartbeatsByTokens } from '../../src/monitors/heartbeats.ts'
import { lockActiveMonitors } from '../../src/monitors/scheduling.ts'
import { monitorRowColumns } from '../../src/monitors/repository.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

t.test('the locks give drizzle\'s rows, and only the live ones', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const site = await makeMonitor(app, auth, {
    name: 'Shop "A" é 😀',
    keyword: 'Welcome',
    keyword_mode: 'not_contains',
    degraded_after_ms: 1500,
    request_body: '{"ping":true}',
    method: 'POST',
    request_headers: { Authorization: 'Bearer 0123456789abcdef', Accept: 'application/json' },
  })
  const dns = await makeMonitor(app, auth, { name: 'Name', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx.example.com', 'b, "c"'] })
  const tcp = await makeMonitor(app, auth, { name: 'Database', monitor_type: 'tcp', url: 'tcp://db.example.com:5432' })
  const heartbeat = await makeMonitor(app, auth, { name: 'Nightly', monitor_type: 'heartbeat', url: undefined, interval_minutes: 1440, grace_minutes: 30 })
  const paused = await makeMonitor(app, auth, { name: 'Paused', is_active: false })
  const deleted = await makeMonitor(app, auth, { name: 'Deleted' })
  await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${deleted.id}` })
  // The columns only checks set: a certificate seen, counters, times with their milliseconds.
  await app.db.update(monitors).set({
    status: 'degraded',
    consecutiveFailures: 2,
    consecutiveSlow: 3,
    lastCheckedAt: new Date('2026-11-21T09:00:00.123Z'),
    tlsExpiresAt: new Date('2027-01-31T23:59:59.999Z'),
    tlsIssuer: 'CN=Example CA, O="Example, Inc."',
    tlsExpiryToldDays: 14,
  }).where(eq(monitors.id, site.id))

  const ids = [site.id, dns.id, tcp.id, heartbeat.id, paused.id, deleted.id, '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d']
  const expected = await app.db.select(monitorRowColumns).from(monitors).where(inArray(monitors.id, [site.id, dns.id, tcp.id, heartbeat.id]))
  t.equal(expected.length, 4)
  const locked = await app.db.transaction((tx) => lockActiveMonitors(tx, ids))
  t.same([...locked.keys()], [site.id, dns.id, tcp.id, heartbeat.id].sort(), 'the live, active ones, in the order of their ids')
  for (const row of expected) t.strictSame(locked.get(row.id), row, `${row.name}: drizzle's row`)
  t.ok(locked.get(site.id)!.lastCheckedAt instanceof Date)
  t.same(locked.get(dns.id)!.dnsExpected, ['mx.example.com', 'b, "c"'])
  t.same(locked.get(site.id)!.requestHeaders, { Authorization: 'Bearer 0123456789abcdef', Accept: 'application/json' })
  t.same((await app.db.transaction((tx) => lockActiveMonitors(tx, []))).size, 0)

  // A heartbeat's token; a paused heartbeat is given too (the caller tells it apart); any other text finds nothing.
  const [beatRow] = await app.db.select(monitorRowColumns).from(monitors).where(eq(monitors.id, heartbeat.id))
  const token = beatRow.pingToken!
  const pausedBeat = await makeMonitor(app, auth, { name: 'Paused beat', monitor_type: 'heartbeat', url: undefined, is_active: false })
  const [pausedRow] = await app.db.select(monitorRowColumns).from(monitors).where(eq(monitors.id, pausedBeat.id))
  const byToken = await app.db.transaction((tx) => lockHeartbeatsByTokens(tx, [token, pausedRow.pingToken!, 'x"}{,\\\'', site.id]))
  t.same([...byToken.keys()].sort(), [token, pausedRow.pingToken].sort())
  t.strictSame(byToken.get(token), beatRow)
  t.strictSame(byToken.get(pausedRow.pingToken!), pausedRow)
})
