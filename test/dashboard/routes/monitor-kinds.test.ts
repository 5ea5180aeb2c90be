// The monitor form and pages per kind of monitor, through app.inject: tcp, dns and heartbeat monitors made
// through the form and seen through the API, another kind's fields dropped, a wrong target refused next to its
// field, a change of kind on the edit form, a heartbeat's absolute ping URL and curl lines, a site's certificate
// expiry and failing assertion, and the list's targets as text.
import { testAudit } from '../../helper.ts'
import { eq } from 'drizzle-orm'
import t from 'tap'
import { monitors } from '../../../src/db/schema.ts'
import { insertChecks } from '../../../src/repositories/checks.ts'
import { createMonitor } from '../../../src/monitors/service.ts'
import { withMonitorDefaults } from '../../../src/monitors/schema.ts'
import { buildTestApp, makeKey, request } from '../../helper.ts'
import { signedIn, type Browser } from '../dashboard-helper.ts'
import type { FastifyInstance } from 'fastify'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
const PUBLIC_URL = 'https://pingward.example.com'

/** Posts the new-monitor form and answers the monitor the API then shows. */
async function created (app: FastifyInstance, browser: Browser, fields: Record<string, string>) {
  const res = await browser.post('/monitors', fields)
  if (res.statusCode !== 303) throw new Error(`create: ${res.statusCode} ${res.body.slice(0, 3000)}`)
  const id = UUID.exec(res.headers.location as string)![0]
  const { auth } = await makeKey(app, browser.user.id, 'read')
  return (await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data
}

t.test('each kind through the form, as the API sees it; another kind\'s fields are dropped', async (t) => {
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL } })
  const browser = await signedIn(app)

  // A site's fields sent along with a tcp monitor (a form without JavaScript sends them all) are not an error.
  t.match(await created(app, browser, {
    name: 'Database',
    monitor_type: 'tcp',
    url: ' tcp://db.example.com:5432 ',
    timeout_seconds: '3',
    interval_minutes: '2',
    method: 'POST',
    expected_status: '204',
    keyword: 'Welcome',
    request_body: 'x',
    dns_expected: 'ignored',
    grace_minutes: '9',
    is_active: 'on',
  }), {
    monitor_type: 'tcp',
    url: 'tcp://db.example.com:5432',
    timeout_seconds: 3,
    interval_minutes: 2,
    method: 'GET',
    expected_status: 200,
    keyword: null,
    request_body: null,
    dns_expected: null,
    grace_minutes: null,
    ping_url: null,
  }, 'a tcp monitor; the site\'s, dns\'s and heartbeat\'s fields were dropped')

  t.match(await created(app, browser, {
    name: 'Mail', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ' mx1.example.com \r\n\r\nmx2.example.com\r\n', keyword: 'x',
  }), { monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx1.example.com', 'mx2.example.com'], keyword: null },
  'a dns monitor: one expected value per line, blank lines ignored')
  t.match(await created(app, browser, { name: 'Any answer', monitor_type: 'dns', url: 'dns://example.org', dns_record_type: 'A', dns_expected: '' }),
    { dns_record_type: 'A', dns_expected: null }, 'no lines: any answer')

  const beat = await created(app, browser, { name: 'Backup', monitor_type: 'heartbeat', url: 'https://ignored.example.com', grace_minutes: '15', interval_minutes: '60' })
  t.match(beat, { monitor_type: 'heartbeat', url: null, grace_minutes: 15, interval_minutes: 60, dns_record_type: null })
  t.match(beat.ping_url, new RegExp(`^${PUBLIC_URL}/ping/\\S+$`), 'with its ping URL')

  const made = await browser.post('/monitors', { name: 'Cron', monitor_type: 'heartbeat', grace_minutes: '1', interval_minutes: '5' })
  t.match(made.headers.location, /\?notice=heartbeat-created$/, 'a heartbeat is told what to do next, not that a check comes')
  t.match((await browser.get(made.headers.location as string)).body, /Heartbeat created\. Point your job at its ping URL below/)

  const list = (await browser.get('/')).body
  t.match(list, /<a href="\/monitors\/[^"]+">Database<\/a><span class="url">tcp:\/\/db.example.com:5432<\/span>/, 'a tcp target as text, not a link')
  t.match(list, /<a href="\/monitors\/[^"]+">Backup<\/a><span class="url">Heartbeat: pinged by your job<\/span>/, 'a heartbeat\'s kind instead of a url')
  t.notMatch(list, /href="(tcp|dns):/, 'no link to a tcp:// or dns:// URL')
})

t.test('the form: a group of fields per kind, and errors shown again with the chosen kind', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)

  const form = (await browser.get('/')).body
  t.match(form, /<select id="new-monitor-monitor_type" name="monitor_type"[^>]*><option value="site" selected>Site \(HTTP\/HTTPS\)<\/option><option value="tcp">TCP port<\/option><option value="dns">DNS record<\/option><option value="heartbeat">Heartbeat<\/option><\/select>/)
  t.match(form, '<div class="kind-fields" data-kinds="site tcp dns"><div class="field"><label for="new-monitor-url" data-text-site="URL" data-text-tcp="Host and port" data-text-dns="Host to look up">URL</label>')
  t.match(form, 'placeholder="https://example.com/health" data-placeholder-site="https://example.com/health" data-placeholder-tcp="tcp://host:port" data-placeholder-dns="dns://example.com"')
  t.match(form, /<fieldset class="kind-fields" data-kinds="dns"><legend>DNS record<\/legend>[^]*name="dns_record_type"[^]*name="dns_expected"[^]*<\/fieldset>/)
  t.match(form, /<fieldset class="kind-fields" data-kinds="heartbeat"><legend>Heartbeat<\/legend>[^]*name="grace_minutes"[^]*<\/fieldset>/)
  t.match(form, /<div class="kind-fields" data-kinds="site"><details><summary>Assertions/, 'the assertions are a site\'s')
  t.match(form, /<div class="kind-fields" data-kinds="site tcp dns">[^<]*<div class="field"><label for="new-monitor-timeout_seconds">/, 'a heartbeat has no timeout')

  const bad = await browser.post('/monitors', { name: 'Database', monitor_type: 'tcp', url: 'https://db.example.com', timeout_seconds: '4' })
  t.equal(bad.statusCode, 400)
  const message = 'Host and port must be a tcp://host:port URL (port 1-65535)'
  t.match(bad.body, '<label for="new-monitor-url" data-text-site="URL" data-text-tcp="Host and port" data-text-dns="Host to look up">Host and port</label>', 'the tcp label')
  t.match(bad.body, /<input id="new-monitor-url" name="url" type="url" value="https:\/\/db.example.com"[^>]* placeholder="tcp:\/\/host:port"[^>]* aria-invalid="true" autofocus>/)
  t.match(bad.body, `<p class="error" id="new-monitor-url-error">${message}</p>`, 'the message names the field by its label')
  t.match(bad.body, `<a href="#new-monitor-url">${message}</a>`, 'and in the summary')
  t.match(bad.body, '<option value="tcp" selected>TCP port</option>', 'the chosen kind is kept')
  t.match(bad.body, 'name="timeout_seconds" type="number" value="4"', 'and its values')
  // The script disabled the other kinds' fields, so they were not sent: shown again as they were, for a change of kind.
  t.match(bad.body, 'name="expected_status" type="number" value="200"')
  t.match(bad.body, 'name="grace_minutes" type="number" value="1"')

  const dns = await browser.post('/monitors', { name: 'Mail', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'SRV', dns_expected: 'a\nb' })
  t.equal(dns.statusCode, 400)
  t.match(dns.body, '<p class="error" id="new-monitor-dns_record_type-error">Record type must be one of: A, AAAA, CNAME, MX, TXT, NS</p>')
  t.match(dns.body, /<textarea id="new-monitor-dns_expected"[^>]*>\na\nb<\/textarea>/, 'the expected values typed are kept')
  const beat = await browser.post('/monitors', { name: 'Backup', monitor_type: 'heartbeat', grace_minutes: '0', interval_minutes: '0' })
  t.match(beat.body, /<label for="new-monitor-interval_minutes"[^>]*>Expect a ping every \(minutes\)<\/label>/, 'a heartbeat\'s interval says what it is')
  t.match(beat.body, '<p class="error" id="new-monitor-interval_minutes-error">Expect a ping every (minutes) must be &gt;= 1</p>')
})

t.test('the edit form changes the kind; the old kind\'s fields reset', async (t) => {
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL } })
  const browser = await signedIn(app)
  const site = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Homepage', url: 'https://example.com', keyword: 'Welcome' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })

  const edit = (await browser.get(`/monitors/${site.id}/edit`)).body
  t.match(edit, '<option value="site" selected>')
  t.match(edit, /name="grace_minutes" type="number" value="1"/, 'another kind\'s fields at their defaults')

  const wrong = await browser.post(`/monitors/${site.id}/edit`, { name: 'Homepage', monitor_type: 'dns', url: 'https://example.com', dns_record_type: 'A' })
  t.equal(wrong.statusCode, 400, 'a dns monitor needs a dns:// url')
  t.match(wrong.body, /<p class="error" id="edit-monitor-url-error">Host to look up must be a dns:\/\/name URL/)
  t.match(wrong.body, '<option value="dns" selected>')
  t.match(wrong.body, /<input id="edit-monitor-keyword" name="keyword" type="text" value="Welcome"/, 'the site\'s fields, not sent, as they were')

  const saved = await browser.post(`/monitors/${site.id}/edit`, {
    name: 'Homepage DNS', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'AAAA', dns_expected: '2001:db8::1', keyword: 'Welcome', is_active: 'on',
  })
  t.equal(saved.statusCode, 303, saved.body.slice(0, 2000))
  const { auth } = await makeKey(app, browser.user.id, 'read')
  const api = async () => (await request(app, auth, { url: `/api/v1/monitors/${site.id}` })).json().data
  t.match(await api(), { monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'AAAA', dns_expected: ['2001:db8::1'], keyword: null })

  const dnsEdit = (await browser.get(`/monitors/${site.id}/edit`)).body
  t.match(dnsEdit, '<option value="dns" selected>DNS record</option>')
  t.match(dnsEdit, '<option value="AAAA" selected>AAAA</option>')
  t.match(dnsEdit, /<textarea id="edit-monitor-dns_expected"[^>]*>\n2001:db8::1<\/textarea>/)
  t.match(dnsEdit, /<label for="edit-monitor-url"[^>]*>Host to look up<\/label>/)

  t.equal((await browser.post(`/monitors/${site.id}/edit`, { name: 'Homepage beat', monitor_type: 'heartbeat', url: 'dns://example.com', grace_minutes: '5' })).statusCode, 303)
  const beat = await api()
  t.match(beat, { monitor_type: 'heartbeat', url: null, grace_minutes: 5, dns_record_type: null, dns_expected: null })
  t.match(beat.ping_url, new RegExp(`^${PUBLIC_URL}/ping/`))
})

t.test('the monitor page per kind: a heartbeat\'s ping URL, a site\'s certificate and failing assertion', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL }, clock: () => now })
  const browser = await signedIn(app)
  const userId = browser.user.id

  const beat = await createMonitor(app.db, { orgId: userId }, withMonitorDefaults({ name: 'Backup', monitor_type: 'heartbeat', interval_minutes: 60, grace_minutes: 10 }), { now, audit: testAudit, allowPrivateTargets: true })
  const ping = `${PUBLIC_URL}${beat.ping_url}`
  const beatPage = (await browser.get(`/monitors/${beat.id}`)).body
  t.match(beatPage, '<p class="url">Heartbeat: not checked, your job pings Pingward</p>')
  t.match(beatPage, `<input id="ping-url" class="key" type="text" value="${ping}" readonly`, 'the absolute ping URL, read-only')
  t.match(beatPage, '<button type="button" class="primary" data-copy="ping-url">Copy</button>')
  t.match(beatPage, `curl -fsS -m 10 --retry 3 ${ping}\n`, 'the curl line')
  t.match(beatPage, `curl -fsS -m 10 --retry 3 ${ping}/fail</code>`, 'and its /fail variant')
  t.match(beatPage, '<dt>Kind</dt><dd>Heartbeat</dd>')
  t.match(beatPage, '<dt>Expects a ping every</dt><dd>60 min</dd>')
  t.match(beatPage, '<dt>Grace</dt><dd>10 min</dd>')
  t.notMatch(beatPage, 'Timeout', 'nothing of a checked monitor')
  t.notMatch(beatPage, 'chart-title', 'no response-time chart')

  const dns = await createMonitor(app.db, { orgId: userId }, withMonitorDefaults({ name: 'Mail', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx1.example.com'] }), { now, audit: testAudit, allowPrivateTargets: true })
  const dnsPage = (await browser.get(`/monitors/${dns.id}`)).body
  t.match(dnsPage, '<p class="url">dns://example.com</p>', 'the target as text')
  t.match(dnsPage, '<dt>Record type</dt><dd>MX</dd>')
  t.match(dnsPage, '<dt>Expected values</dt><dd class="value"><ul class="headers"><li>mx1.example.com</li></ul></dd>')
  t.notMatch(dnsPage, 'ping-url')
  t.notMatch(dnsPage, 'Expected status')

  const site = await createMonitor(app.db, { orgId: userId }, withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com', keyword: 'Welcome' }), { now, audit: testAudit, allowPrivateTargets: true })
  await app.db.update(monitors).set({ status: 'down', tlsExpiresAt: new Date('2026-11-30T18:00:00.000Z'), tlsIssuer: 'Example CA, R1' })
    .where(eq(monitors.id, site.id))
  await insertChecks(app.db, [
    { monitorId: site.id, isUp: false, statusCode: 200, responseTimeMs: 80, checkedAt: now, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' },
  ])
  const sitePage = (await browser.get(`/monitors/${site.id}`)).body
  t.match(sitePage, '<p class="latest-error latest-down"><strong>Latest check failed:</strong> keyword &quot;Welcome&quot; not found in the first 1 MiB</p>',
    'the assertion that failed, at the top')
  t.match(sitePage, /<dt>Certificate expires<\/dt><dd><time datetime="2026-11-30T18:00:00.000Z">[^<]+<\/time> <span class="expiry expiry-soon">expires in 9 days<\/span> <span class="muted">\(Example CA, R1\)<\/span>/,
    'under 14 days: a warning')
  t.match(sitePage, '<p class="url">GET https://shop.example.com</p>')
  t.match(sitePage, '<dt>Kind</dt><dd>Site (HTTP/HTTPS)</dd>')

  await app.db.update(monitors).set({ tlsExpiresAt: new Date('2026-11-21T09:00:00.000Z') }).where(eq(monitors.id, site.id))
  t.match((await browser.get(`/monitors/${site.id}`)).body, /<span class="expiry expiry-expired">expired <time[^>]*>3 h ago<\/time><\/span>/)
})
