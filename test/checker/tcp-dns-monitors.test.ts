// tcp and dns monitors through the checker (claim, probe, record) on the test's database, with an injected
// clock: a tcp monitor goes up, a dns one with a wrong expected value goes down saying why; a heartbeat is
// never claimed.
import { testAudit } from '../helper.ts'
import t from 'tap'
import { asc, eq } from 'drizzle-orm'
import { createServer } from 'node:net'
import { startChecker } from '../../src/checker/index.ts'
import { createProber } from '../../src/checker/probe.ts'
import { Checker } from '../../src/checker/scheduler.ts'
import { checks, monitors } from '../../src/db/schema.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { nextDueAt } from '../../src/monitors/scheduling.ts'
import { createUser } from '../../src/repositories/users.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { buildTestApp, testConfig, until } from '../helper.ts'
import { dnsServer } from '../support/dns-server.ts'
import { listen } from '../support/target-server.ts'
import { DEFAULT_LOCATION } from '../../src/domain/locations.ts'

t.test('tcp and dns monitors are checked by type and recorded; a heartbeat monitor is never claimed', async (t) => {
  const start = new Date('2026-11-23T09:00:00.000Z')
  let now = start
  const { app } = await buildTestApp(t, { clock: () => now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const tcpTarget = await listen(t, createServer((socket) => socket.on('error', () => {})), { scheme: 'tcp' })
  const dns = await dnsServer(t, { 'shop.test': { A: ['93.184.215.14'] } })
  const checker = new Checker({
    db: app.db,
    clock: () => now,
    log: app.log,
    prober: createProber({ allowPrivateTargets: true, dnsServers: [dns.server] }),
    concurrency: 10,
    confirmDelayMs: 30_000,
  })
  t.teardown(() => checker.stop())

  // Made as site monitors, then given their type in SQL: the API's create of these types is not this test's subject.
  const user = await createUser(app.db, 'types@example.com')
  const make = async (name: string, type: Partial<typeof monitors.$inferInsert>) => {
    const monitor = await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name, url: 'https://placeholder.example.com', failure_threshold: 1 }), { now, audit: testAudit, allowPrivateTargets: true })
    await app.db.update(monitors).set(type).where(eq(monitors.id, monitor.id))
    return monitor.id
  }
  const tcpId = await make('db port', { monitorType: 'tcp', url: tcpTarget.url })
  const dnsId = await make('shop A', { monitorType: 'dns', url: 'dns://shop.test', dnsRecordType: 'A', dnsExpected: ['93.184.215.99'] })
  const heartbeatId = await make('nightly backup', { monitorType: 'heartbeat', url: null })

  t.equal(await checker.runOnce(), 2, 'the tcp and dns monitors, not the heartbeat')
  const state = async (id: string) => (await app.db.select().from(monitors).where(eq(monitors.id, id)))[0]
  const checksOf = async (id: string) => app.db.select().from(checks).where(eq(checks.monitorId, id)).orderBy(asc(checks.checkedAt))

  t.match(await state(tcpId), { status: 'up', lastCheckedAt: start })
  t.match(await checksOf(tcpId), [{ isUp: true, statusCode: null, errorMessage: null, checkedAt: start }])

  t.match(await state(dnsId), { status: 'down', lastCheckedAt: start })
  const [dnsCheck] = await checksOf(dnsId)
  t.match(dnsCheck, { isUp: false, statusCode: null, errorMessage: 'dns A shop.test: expected 93.184.215.99 not in answer 93.184.215.14' })
  t.same(dns.questions, ['A shop.test'])

  t.match(await state(heartbeatId), { status: 'pending', lastCheckedAt: null })
  t.same(await checksOf(heartbeatId), [])
  t.same(await nextDueAt(app.db, DEFAULT_LOCATION), new Date(start.getTime() + 5 * 60_000), 'an idle checker does not wake for the heartbeat (due since its creation)')

  // The expected value fixed: the next check, an interval later, is up.
  await app.db.update(monitors).set({ dnsExpected: ['93.184.215.14'] }).where(eq(monitors.id, dnsId))
  now = new Date(start.getTime() + 5 * 60_000)
  t.equal(await checker.runOnce(), 2)
  t.match(await state(dnsId), { status: 'up' })
  t.match((await checksOf(dnsId))[1], { isUp: true, errorMessage: null })
  t.same(await checksOf(heartbeatId), [])
})

t.test('DNS_SERVERS reaches the running checker: its dns checks ask that resolver', async (t) => {
  const dns = await dnsServer(t, { 'status.test': { TXT: [['ok']] } })
  const env = { DNS_SERVERS: dns.server }
  const { app } = await buildTestApp(t, { env })
  const user = await createUser(app.db, 'resolver@example.com')
  const monitor = await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name: 'status TXT', url: 'https://placeholder.example.com' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  await app.db.update(monitors).set({ monitorType: 'dns', url: 'dns://status.test', dnsRecordType: 'TXT', dnsExpected: ['ok'] })
    .where(eq(monitors.id, monitor.id))
  const checker = startChecker({ config: testConfig(env), db: app.db, log: app.log })
  t.teardown(() => checker.stop())
  const check = await until(async () => (await app.db.select().from(checks).where(eq(checks.monitorId, monitor.id)))[0])
  t.match(check, { isUp: true, errorMessage: null })
  t.same(dns.questions, ['TXT status.test'])
})
