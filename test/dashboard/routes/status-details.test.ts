// Dashboard details through app.inject on real checks and pings: a monitor failing below its threshold says so
// ("Up, failing 1 of 3") on the list and its page, a heartbeat's row shows its pings (it has no response time), an
// incident's duration keeps its seconds, and the icon: /favicon.ico and the SVG every page links.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { recordCheck } from '../../../src/checks/record-check.ts'
import { withMonitorDefaults } from '../../../src/monitors/schema.ts'
import { createMonitor, updateMonitor } from '../../../src/monitors/service.ts'
import { openIncident, resolveOpenIncident } from '../../../src/repositories/incidents.ts'
import { buildTestApp, testAudit } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

const T0 = new Date('2026-11-21T12:00:00.000Z')
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000)

/** The list's row of a monitor, by its name. */
function rowOf (list: string, name: string): string {
  const row = list.split('<tr>').find((r) => r.includes(`>${name}</a>`))
  if (!row) throw new Error(`no row of ${name}`)
  return row
}

t.test('a monitor whose latest checks failed, fewer than its threshold, is "Up, failing n of m" on the list and its page', async (t) => {
  const clock = { now: T0 }
  const { app } = await buildTestApp(t, { clock: () => clock.now })
  const browser = await signedIn(app)
  const owner = { orgId: browser.user.id }
  const shop = await createMonitor(app.db, owner, withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com', failure_threshold: 3 }), { now: T0, audit: testAudit, allowPrivateTargets: true })
  const calm = await createMonitor(app.db, owner, withMonitorDefaults({ name: 'Calm', url: 'https://calm.example.com', failure_threshold: 3 }), { now: T0, audit: testAudit, allowPrivateTargets: true })
  const check = async (id: string, isUp: boolean, second: number) => {
    t.ok(await recordCheck(app.db, id, {
      isUp, statusCode: isUp ? 200 : 503, responseTimeMs: 40, errorMessage: isUp ? null : 'expected status 200, got 503', checkedAt: at(second),
    }, 30_000))
  }
  const badges = async () => {
    const list = (await browser.get('/')).body
    const page = (await browser.get(`/monitors/${shop.id}`)).body
    return { list: /<span class="st[^"]*"[^>]*>[^<]*<\/span>/.exec(rowOf(list, 'Shop'))![0], calm: rowOf(list, 'Calm'), page }
  }

  await check(shop.id, true, 0)
  await check(calm.id, true, 0)
  t.equal((await badges()).list, '<span class="st st-up">Up</span>', 'up and passing: plain Up')

  await check(shop.id, false, 60)
  let seen = await badges()
  t.equal(seen.list, '<span class="st st-up st-failing" title="The latest check failed; 3 in a row mark it down">Up, failing 1 of 3</span>')
  t.match(seen.page, /<h1>Shop<\/h1> <span class="st st-up st-failing"[^>]*>Up, failing 1 of 3<\/span>/, 'its page says the same')
  t.match(seen.calm, '<span class="st st-up">Up</span>', 'another monitor is not touched')

  await check(shop.id, false, 90)
  seen = await badges()
  t.match(seen.list, '>Up, failing 2 of 3</span>')
  t.match(seen.page, '>Up, failing 2 of 3</span>')

  await check(shop.id, false, 120)
  seen = await badges()
  t.equal(seen.list, '<span class="st st-down">Down</span>', 'at the threshold it is down, nothing more to say')
  t.notMatch(seen.page, 'failing')

  await check(shop.id, true, 180)
  t.equal((await badges()).list, '<span class="st st-up">Up</span>', 'recovered: plain Up again')

  await check(shop.id, false, 240)
  t.match((await badges()).list, '>Up, failing 1 of 3</span>')
  await updateMonitor(app.db, owner.orgId, shop.id, { is_active: false }, { now: at(250), audit: testAudit, allowPrivateTargets: true })
  t.equal((await badges()).list, '<span class="st st-paused">Paused</span>', 'a paused monitor is only paused')
})

t.test('a heartbeat\'s row shows whether its pings came, not a "0 ms" sparkline', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const owner = { orgId: browser.user.id }
  const beat = await createMonitor(app.db, owner, withMonitorDefaults({ name: 'Backup', monitor_type: 'heartbeat', interval_minutes: 60, grace_minutes: 10 }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  const site = await createMonitor(app.db, owner, withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  t.match(rowOf((await browser.get('/')).body, 'Backup'), '<span class="muted">No pings yet</span>')

  const pingPath = new URL(beat.ping_url!, 'http://pingward.invalid').pathname
  for (const path of [pingPath, `${pingPath}/fail`, pingPath]) t.equal((await app.inject({ method: 'POST', url: path })).statusCode, 200, path)
  t.ok(await recordCheck(app.db, site.id, { isUp: true, statusCode: 200, responseTimeMs: 42, errorMessage: null, checkedAt: new Date() }, 30_000))

  const list = (await browser.get('/')).body
  const row = rowOf(list, 'Backup')
  t.match(row, /<td class="rt"><svg class="spark pings" [^>]*aria-label="Last 3 heartbeats: 1 failed or missed">/, 'a timeline of its pings')
  t.equal(row.match(/<circle /g)?.length, 2, 'the two pings')
  t.equal(row.match(/<rect /g)?.length, 1, 'the failure')
  t.notMatch(row, /\d ms/, 'no response time')
  t.notMatch(row, '<polyline', 'no response time line')
  t.match(rowOf(list, 'Shop'), /<svg class="spark" [^>]*aria-label="Last 1 checks: 42 to 42 ms">[^]*<span class="ms">42 ms<\/span>/, 'a site keeps its response times')
})

t.test('an incident of 90 s lasts "1 min 30 s" on the monitor\'s page', async (t) => {
  const { app } = await buildTestApp(t, { clock: () => at(600) })
  const browser = await signedIn(app)
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'API', url: 'https://api.example.com' }), { now: T0, audit: testAudit, allowPrivateTargets: true })
  await openIncident(app.db, monitor.id, { cause: 'expected status 200, got 503', statusCode: 503, startedAt: at(60) })
  await resolveOpenIncident(app.db, monitor.id, at(150))
  await openIncident(app.db, monitor.id, { cause: 'timeout after 10000 ms', statusCode: null, startedAt: at(401) })
  const body = (await browser.get(`/monitors/${monitor.id}`)).body
  t.match(body, /<td>1 min 30 s<\/td><td>expected status 200, got 503/)
  t.match(body, /<td>3 min 19 s so far<\/td><td>timeout after 10000 ms/)
})

t.test('the icon: /favicon.ico answers 200 without a session, and every page links the SVG', async (t) => {
  const { app } = await buildTestApp(t)
  const ico = await app.inject({ url: '/favicon.ico' })
  t.equal(ico.statusCode, 200)
  t.equal(ico.headers['content-type'], 'image/x-icon')
  t.match(ico.headers['cache-control'], /^public, max-age=\d+$/)
  const bytes = ico.rawPayload
  t.same(bytes, readFileSync(new URL('../../../src/dashboard/assets/favicon.ico', import.meta.url)), 'the committed icon')
  t.same([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)], [0, 1, 2], 'an ICO file of two images')
  t.same([bytes[6], bytes[6 + 16]], [16, 32], '16 and 32 pixels')

  for (const page of [(await app.inject({ url: '/sign-in' })).body, (await (await signedIn(app)).get('/')).body]) {
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(page)?.[1]
    t.match(href, /^\/assets\/favicon\.svg\?v=[0-9a-f]{12}$/, 'linked, versioned')
    const svg = await app.inject({ url: href! })
    t.equal(svg.statusCode, 200)
    t.equal(svg.headers['content-type'], 'image/svg+xml')
    t.match(svg.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  }
})
