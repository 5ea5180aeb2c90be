// Dashboard monitor pages through app.inject: the API's validation messages next to the field, create, edit,
// pause, resume, delete, the assertions (keyword, degraded, request headers and body; secret headers masked
// and kept), the monitor page's numbers, the degraded status, other users' monitors as 404, and 1,000 monitors.
import { testAudit } from '../../helper.ts'
import type { FastifyInstance } from 'fastify'
import { eq } from 'drizzle-orm'
import { withMonitorDefaults } from '../../../src/monitors/schema.ts'
import t from 'tap'
import { insertChecks } from '../../../src/repositories/checks.ts'
import { openIncident, resolveOpenIncident } from '../../../src/repositories/incidents.ts'
import { listMonitors } from '../../../src/monitors/repository.ts'
import { createMonitor, findMonitor } from '../../../src/monitors/service.ts'
import { monitors } from '../../../src/db/schema.ts'
import { buildTestApp, makeKey, request } from '../../helper.ts'
import { signedIn, storedRow, textareaValue } from '../dashboard-helper.ts'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

t.test('the monitor forms use the API\'s rules and messages', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const valid = { name: 'Homepage', url: 'https://example.com/', is_active: 'on' }

  const cases: Array<[Record<string, string>, string, string]> = [
    [{ name: '   ' }, 'name', 'Name must be 1-255 characters and not blank'],
    [{ url: 'ftp://example.com' }, 'url', 'URL must be an absolute http or https URL of at most 2048 characters'],
    [{ url: 'https://user:pw@example.com' }, 'url', 'URL must not contain credentials'],
    [{ url: 'http://127.0.0.1:8080/' }, 'url', 'URL: 127.0.0.1 is not a public address'],
    [{ interval_minutes: 'abc' }, 'interval_minutes', 'Check every (minutes) must be integer'],
    [{ interval_minutes: '1.5' }, 'interval_minutes', 'Check every (minutes) must be integer'],
    [{ interval_minutes: '1441' }, 'interval_minutes', 'Check every (minutes) must be &lt;= 1440'],
    [{ expected_status: '99' }, 'expected_status', 'Expected status must be &gt;= 100'],
    [{ timeout_seconds: '61' }, 'timeout_seconds', 'Timeout (seconds) must be &lt;= 60'],
    [{ failure_threshold: '0' }, 'failure_threshold', 'Failures before down must be &gt;= 1'],
    [{ recovery_threshold: '11' }, 'recovery_threshold', 'Successes before up must be &lt;= 10'],
    [{ method: 'TRACE' }, 'method', 'Method must be one of: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
  ]
  for (const [fields, field, message] of cases) {
    const res = await browser.post('/monitors', { ...valid, ...fields })
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    const id = `new-monitor-${field}`
    // The message sits right after the field it names, which points to it and is marked invalid.
    t.match(res.body, new RegExp(`<(input|select) id="${id}"[^>]*aria-describedby="[^"]*${id}-error"[^>]* aria-invalid="true" autofocus>` +
      `(<option.*</select>)?(<p class="hint"[^<]*</p>)?<p class="error" id="${id}-error">${message.replace(/[()]/g, '\\$&')}`), message)
    t.match(res.body, `<a href="#${id}">${message}`, 'and in the summary at the top, linking to it')
    const typed = Object.values(fields)[0]
    if (field !== 'method' && field !== 'name') t.match(res.body, `value="${typed.replace(/&/g, '&amp;')}"`, 'what was typed is kept')
  }
  t.match((await browser.post('/monitors', { ...valid, url: 'http://127.0.0.1/' })).body, 'ALLOW_PRIVATE_TARGETS',
    'the same private-target rule and hint as the API')
  t.same(await listMonitors(app.db, { orgId: browser.user.id }), [], 'nothing was created')

  const res = await browser.post('/monitors', {
    name: '  Shop  ',
    url: ' https://shop.example.com/health ',
    method: 'HEAD',
    expected_status: '204',
    interval_minutes: '1',
    timeout_seconds: '5',
    failure_threshold: '3',
    recovery_threshold: '2',
    is_active: 'on',
  })
  t.equal(res.statusCode, 303)
  const id = UUID.exec(res.headers.location as string)![0]
  t.equal(res.headers.location, `/monitors/${id}?notice=monitor-created`)
  const { auth } = await makeKey(app, browser.user.id, 'read')
  t.match((await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data, {
    name: 'Shop',
    url: 'https://shop.example.com/health',
    method: 'HEAD',
    expected_status: 204,
    interval_minutes: 1,
    timeout_seconds: 5,
    failure_threshold: 3,
    recovery_threshold: 2,
    is_active: true,
    status: 'pending',
  }, 'the API sees what the form made, typed')

  const defaults = await browser.post('/monitors', { name: 'Defaults', url: 'https://example.org' })
  const paused = await findMonitor(app.db, { orgId: browser.user.id }, UUID.exec(defaults.headers.location as string)![0])
  t.match(paused, { method: 'GET', expected_status: 200, interval_minutes: 5, is_active: false, status: 'paused' },
    'empty fields take the API defaults; an unticked box is false')
})

t.test('the assertions through the form: stored as the API\'s fields, refused with the API\'s messages next to the field', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const valid = { name: 'Login', url: 'https://example.com/login', is_active: 'on' }

  const form = (await browser.get('/')).body
  t.match(form, /<details><summary>Assertions<\/summary>/, 'a closed section on the add form')
  t.match(form, '<select id="new-monitor-keyword_mode" name="keyword_mode"><option value="contains" selected>contains</option><option value="not_contains">does not contain</option></select>')
  t.match(form, /<textarea id="new-monitor-request_headers" name="request_headers"[^>]*>\n<\/textarea>/)

  const cases: Array<[Record<string, string>, string, string]> = [
    [{ request_headers: 'Accept: text/html\r\nX-Trace abc' }, 'request_headers', 'Request headers: line 2 (&quot;X-Trace abc&quot;) is not &quot;Name: value&quot;'],
    [{ request_headers: 'X-A: 1\nX-A: 2' }, 'request_headers', 'Request headers: the header &quot;X-A&quot; is given twice'],
    // The repository's rules (InvalidInputError with its field), after the schema's.
    [{ request_headers: 'Host: example.org' }, 'request_headers', 'Request headers: the header &quot;Host&quot; cannot be set'],
    [{ request_body: '{"a":1}' }, 'request_body', 'Request body must be null for a GET request'],
    [{ method: 'HEAD', request_body: 'x' }, 'request_body', 'Request body must be null for a HEAD request'],
    [{ degraded_after_ms: '60001' }, 'degraded_after_ms', 'Degraded after (ms) must be &lt;= 60000'],
    [{ degraded_after_ms: 'soon' }, 'degraded_after_ms', 'Degraded after (ms) must be integer or null'],
    [{ keyword_mode: 'sometimes' }, 'keyword_mode', 'Keyword mode must be one of: contains, not_contains'],
  ]
  for (const [fields, field, message] of cases) {
    const res = await browser.post('/monitors', { ...valid, ...fields })
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    const id = `new-monitor-${field}`
    const escaped = message.replace(/[()]/g, '\\$&')
    t.match(res.body, new RegExp(`<(input|select|textarea) id="${id}"[^>]*aria-describedby="[^"]*${id}-error"[^>]* aria-invalid="true" autofocus>` +
      `[^]*?(<p class="hint" id="${id}-hint">[^<]*</p>)?<p class="error" id="${id}-error">${escaped}</p>`), message)
    t.match(res.body, `<a href="#${id}">${message}`, 'and in the summary at the top')
    t.match(res.body, /<details open><summary>Assertions<\/summary>/, 'the section is open')
    if (field === 'request_headers') t.equal(textareaValue(res.body, id), fields.request_headers, 'what was typed is kept')
  }
  t.same(await listMonitors(app.db, { orgId: browser.user.id }), [], 'nothing was created')

  const secret = 'Bearer 5f0c1d2e3a4b6c7d'
  const res = await browser.post('/monitors', {
    ...valid,
    method: 'POST',
    keyword: 'Welcome back',
    keyword_mode: 'not_contains',
    degraded_after_ms: ' 2000 ',
    // As a browser sends a textarea: CRLF line ends; blank lines and spaces around names and values do not count.
    request_headers: '\r\nAuthorization:  ' + secret + '\r\n\r\n  Accept : application/json\r\nX-Empty:',
    request_body: '{"ping":true}\r\n',
  })
  t.equal(res.statusCode, 303)
  const id = UUID.exec(res.headers.location as string)![0]
  const { auth } = await makeKey(app, browser.user.id, 'read')
  t.match((await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data, {
    method: 'POST',
    keyword: 'Welcome back',
    keyword_mode: 'not_contains',
    degraded_after_ms: 2000,
    request_headers: { Authorization: '…6c7d', Accept: 'application/json', 'X-Empty': '' },
    request_body: '{"ping":true}\r\n',
  }, 'the API sees what the form made, the secret masked')
  t.same((await storedRow(app, id)).requestHeaders, { Authorization: secret, Accept: 'application/json', 'X-Empty': '' }, 'and the secret is stored whole')

  const plain = await browser.post('/monitors', { ...valid, keyword: '', degraded_after_ms: '', request_headers: '\r\n', request_body: '' })
  t.match(await findMonitor(app.db, { orgId: browser.user.id }, UUID.exec(plain.headers.location as string)![0]), {
    keyword: null, keyword_mode: 'contains', degraded_after_ms: null, request_headers: {}, request_body: null,
  }, 'empty assertion fields are null, no headers {}')
})

t.test('editing keeps a masked secret header unless it is changed', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const headers = { Authorization: 'Bearer 0123456789abcdef', 'X-Api-Key': 'tiny-k3y', Accept: 'text/html' }
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({
    name: 'Private', url: 'https://example.com/private', method: 'POST', keyword: 'OK', degraded_after_ms: 1500, request_headers: headers, request_body: 'a=1',
  }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })

  const edit = (await browser.get(`/monitors/${monitor.id}/edit`)).body
  t.match(edit, '<fieldset><legend>Assertions</legend>', 'an open section on the edit page')
  const shown = textareaValue(edit, 'edit-monitor-request_headers')
  // (jsonb keeps its own order of keys.)
  t.same(shown.split('\n').sort(), ['Accept: text/html', 'Authorization: …cdef', 'X-Api-Key: …'], 'secret values masked exactly as the API shows them')
  t.notMatch(edit, '0123456789abcdef')
  t.notMatch(edit, 'tiny-k3y')
  t.match(edit, 'id="edit-monitor-keyword" name="keyword" type="text" value="OK"')
  t.match(edit, 'id="edit-monitor-degraded_after_ms" name="degraded_after_ms" type="number" value="1500"')
  t.equal(textareaValue(edit, 'edit-monitor-request_body'), 'a=1')

  // The form as the browser sends it back (CRLF in a textarea), unchanged but for what a step changes.
  const fields = {
    name: 'Private',
    url: 'https://example.com/private',
    method: 'POST',
    is_active: 'on',
    keyword: 'OK',
    keyword_mode: 'contains',
    degraded_after_ms: '1500',
    request_headers: shown.replace(/\n/g, '\r\n'),
    request_body: 'a=1',
  }
  const unchanged = await browser.post(`/monitors/${monitor.id}/edit`, { ...fields, keyword: 'Signed in' })
  t.equal(unchanged.statusCode, 303)
  t.match(await storedRow(app, monitor.id), { keyword: 'Signed in', requestHeaders: headers }, 'the masked values sent back keep the stored secrets')

  const bad = await browser.post(`/monitors/${monitor.id}/edit`, { ...fields, method: 'GET' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, '<p class="error" id="edit-monitor-request_body-error">Request body must be null for a GET request</p>')
  t.equal(textareaValue(bad.body, 'edit-monitor-request_headers'), fields.request_headers, 'the masked values are shown again, never the secrets')
  t.equal((await storedRow(app, monitor.id)).method, 'POST', 'nothing saved')

  const changed = await browser.post(`/monitors/${monitor.id}/edit`, {
    ...fields, method: 'GET', keyword: '', degraded_after_ms: '', request_headers: 'Authorization: Bearer fedcba9876543210\nAccept: text/html', request_body: '',
  })
  t.equal(changed.statusCode, 303)
  t.match(await storedRow(app, monitor.id), {
    method: 'GET', keyword: null, degradedAfterMs: null, requestBody: null, requestHeaders: { Authorization: 'Bearer fedcba9876543210', Accept: 'text/html' },
  }, 'a new secret replaces the old one, a removed header is gone, emptied fields are null')
})

t.test('the monitor page shows the assertions, the degraded status and the latest check\'s error', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const slow = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({
    name: 'Slow',
    url: 'https://slow.example.com',
    method: 'POST',
    keyword: 'Welcome',
    degraded_after_ms: 2000,
    request_headers: { authorization: 'Bearer 0123456789abcdef', 'x-client': 'pingward' },
    request_body: '{"ping":true}',
  }), { now, audit: testAudit, allowPrivateTargets: true })
  const plain = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Plain', url: 'https://plain.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const down = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Broken', url: 'https://broken.example.com', keyword: 'Welcome' }), { now, audit: testAudit, allowPrivateTargets: true })
  await app.db.update(monitors).set({
    status: 'degraded', lastCheckedAt: now, tlsExpiresAt: new Date('2026-12-21T08:00:00.000Z'), tlsIssuer: 'Example CA, R1',
  }).where(eq(monitors.id, slow.id))
  await app.db.update(monitors).set({ status: 'up' }).where(eq(monitors.id, plain.id))
  await app.db.update(monitors).set({ status: 'down' }).where(eq(monitors.id, down.id))
  await insertChecks(app.db, [
    { monitorId: slow.id, isUp: true, statusCode: 200, responseTimeMs: 300, checkedAt: new Date(now.getTime() - 60_000) },
    { monitorId: slow.id, isUp: true, statusCode: 200, responseTimeMs: 9120, checkedAt: now, errorMessage: 'response took 9120 ms, degraded after 2000 ms' },
    { monitorId: down.id, isUp: false, statusCode: 200, responseTimeMs: 80, checkedAt: now, errorMessage: 'keyword "Welcome" not found in the first 1 MiB' },
  ])

  const page = (await browser.get(`/monitors/${slow.id}`)).body
  t.match(page, /<h1>Slow<\/h1> <span class="st st-degraded">Degraded<\/span>/, 'the degraded badge')
  t.match(page, '<p class="latest-error latest-degraded"><strong>Latest check was slow:</strong> response took 9120 ms, degraded after 2000 ms</p>')
  const section = /<section aria-labelledby="assertions-title">[^]*?<\/section>/.exec(page)?.[0] ?? ''
  t.match(section, '<dt>Keyword</dt><dd class="value">contains &quot;Welcome&quot;</dd>')
  t.match(section, '<dt>Degraded after</dt><dd>2,000 ms</dd>')
  t.match(section, '<li>authorization: …cdef</li>', 'a secret header\'s value masked')
  t.match(section, '<li>x-client: pingward</li>')
  t.match(section, '<dt>Request body</dt><dd>Sent, 13 characters</dd>')
  t.notMatch(page, '0123456789abcdef', 'the secret is not on the page')
  t.match(page, /<dt>Certificate expires<\/dt><dd><time datetime="2026-12-21T08:00:00.000Z">[^<]+<\/time> <span class="expiry">expires in 29 days<\/span> <span class="muted">\(Example CA, R1\)<\/span><\/dd>/,
    'the certificate the latest HTTPS check saw')

  const broken = (await browser.get(`/monitors/${down.id}`)).body
  t.match(broken, '<p class="latest-error latest-down"><strong>Latest check failed:</strong> keyword &quot;Welcome&quot; not found in the first 1 MiB</p>')
  t.notMatch(broken, '<dt>Degraded after</dt>', 'only the assertions that are set')
  const quiet = (await browser.get(`/monitors/${plain.id}`)).body
  t.notMatch(quiet, 'assertions-title', 'no assertions section without assertions')
  t.notMatch(quiet, 'latest-error')
  t.notMatch(quiet, 'Certificate expires', 'no certificate seen yet')

  const list = (await browser.get('/')).body
  t.same([...list.matchAll(/<td class="name"><a href="\/monitors\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]), ['Broken', 'Slow', 'Plain'], 'down, then degraded, then up')
  t.match(list, '<span class="st st-degraded">Degraded</span>')
  t.match(list, '<a href="/?status=degraded">Degraded <span class="n">1</span></a>')
  const filtered = (await browser.get('/?status=degraded')).body
  t.same([...filtered.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]), ['Slow'])
  t.match(filtered, '<caption class="vh">Degraded monitors, problems first</caption>')
})

t.test('edit, pause, resume and delete, only for the owner', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const other = await signedIn(app)
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Mine <b>', url: 'https://example.com' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })

  const edit = await browser.get(`/monitors/${monitor.id}/edit`)
  t.equal(edit.statusCode, 200)
  t.match(edit.body, '<h1>Edit Mine &lt;b&gt;</h1>', 'names are escaped')
  t.match(edit.body, 'id="edit-monitor-interval_minutes" name="interval_minutes" type="number" value="5"')

  const bad = await browser.post(`/monitors/${monitor.id}/edit`, { name: 'Mine', url: 'https://example.com', interval_minutes: '0', is_active: 'on' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, '<p class="error" id="edit-monitor-interval_minutes-error">Check every (minutes) must be &gt;= 1</p>')
  const saved = await browser.post(`/monitors/${monitor.id}/edit`, { name: 'Renamed', url: 'https://example.com/x', interval_minutes: '10', is_active: 'on' })
  t.equal(saved.statusCode, 303)
  t.equal(saved.headers.location, `/monitors/${monitor.id}?notice=monitor-saved`)
  t.match(await findMonitor(app.db, { orgId: browser.user.id }, monitor.id), { name: 'Renamed', url: 'https://example.com/x', interval_minutes: 10 })

  const pause = await browser.post(`/monitors/${monitor.id}/pause`, { back: '/?status=up' })
  t.equal(pause.headers.location, '/?status=up&notice=monitor-paused')
  t.equal((await findMonitor(app.db, { orgId: browser.user.id }, monitor.id))!.status, 'paused')
  const resume = await browser.post(`/monitors/${monitor.id}/resume`, { back: 'https://evil.example/' })
  t.equal(resume.headers.location, '/?notice=monitor-resumed', 'back is a local path or home')
  t.equal((await findMonitor(app.db, { orgId: browser.user.id }, monitor.id))!.status, 'pending')

  // Another user: every page and form of this monitor is a 404 page, exactly like a missing monitor.
  for (const res of [
    await other.get(`/monitors/${monitor.id}`),
    await other.get(`/monitors/${monitor.id}/edit`),
    await other.post(`/monitors/${monitor.id}/edit`, { name: 'Stolen', url: 'https://example.com' }),
    await other.post(`/monitors/${monitor.id}/pause`),
    await other.post(`/monitors/${monitor.id}/delete`),
    await browser.get('/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'),
  ]) {
    t.equal(res.statusCode, 404)
    t.match(res.body, '<h1>Not found</h1>')
    t.match(res.body, 'There is no such monitor, or it is not yours.')
  }
  t.match(await findMonitor(app.db, { orgId: browser.user.id }, monitor.id), { name: 'Renamed', status: 'pending' }, 'untouched')
  t.notMatch((await other.get('/')).body, 'Renamed', 'not in the other user\'s list')
  const badId = await browser.get('/monitors/not-a-uuid')
  t.equal(badId.statusCode, 400)
  t.match(badId.body, 'params/id must be a valid uuid')

  const deleted = await browser.post(`/monitors/${monitor.id}/delete`)
  t.equal(deleted.headers.location, '/?notice=monitor-deleted')
  t.equal(await findMonitor(app.db, { orgId: browser.user.id }, monitor.id), undefined)
  t.equal((await browser.get(`/monitors/${monitor.id}`)).statusCode, 404)
})

t.test('the monitor page: time-weighted uptime over five windows and 90 days, the chart, incidents with durations, checks', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000)
  // Created 8 days and 1 hour ago: down 95 min 3.5 days ago, and for the last 40 min; degraded (which is up) for 40 min.
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'API', url: 'https://api.example.com' }), { now: ago(8 * 1440 + 60), audit: testAudit, allowPrivateTargets: true })
  await insertChecks(app.db, [
    ...[10, 20, 30].map((m) => ({ monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 100 + m, checkedAt: ago(m) })),
    { monitorId: monitor.id, isUp: false, statusCode: 503, responseTimeMs: 40, checkedAt: ago(40), errorMessage: 'expected status 200, got 503' },
    ...[2000, 3000, 4000, 5000].map((m) => ({ monitorId: monitor.id, isUp: false, statusCode: null, responseTimeMs: 10_000, checkedAt: ago(m), errorMessage: 'timeout after 10000 ms' })),
    { monitorId: monitor.id, isUp: true, statusCode: 200, responseTimeMs: 5, checkedAt: ago(8 * 1440) },
  ])
  await openIncident(app.db, monitor.id, { cause: 'timeout after 10000 ms', statusCode: null, startedAt: ago(5000) })
  await resolveOpenIncident(app.db, monitor.id, ago(5000 - 95))
  await openIncident(app.db, monitor.id, { kind: 'degraded', cause: 'response took 2600 ms, degraded after 2000 ms', statusCode: 200, startedAt: ago(100) })
  await resolveOpenIncident(app.db, monitor.id, ago(60))
  await openIncident(app.db, monitor.id, { cause: 'expected status 200, got 503', statusCode: 503, startedAt: ago(40) })

  const res = await browser.get(`/monitors/${monitor.id}`)
  t.equal(res.statusCode, 200)
  const body = res.body
  // Time, not checks: 40 of 1440 minutes, 135 of 7 days, 135 of the 8 days and 1 hour since the monitor was created.
  t.match(body, /Last 24 hours<\/p><p class="stat-value">97\.22%<\/p>\s*<p class="muted">40 min down, 4 checks<\/p>/)
  t.match(body, /Last 7 days<\/p><p class="stat-value">98\.66%<\/p>\s*<p class="muted">2 h 15 min down, 8 checks<\/p>/)
  for (const days of [30, 90, 365]) {
    t.match(body, new RegExp(`Last ${days} days</p><p class="stat-value">98\\.83%</p>\\s*<p class="muted">2 h 15 min down, 9 checks</p>`))
  }
  t.match(body, 'aria-label="Uptime per day over the last 90 days: 2 days with downtime"')
  t.equal(body.match(/<span class="day /g)?.length, 90)
  t.equal(body.match(/class="day day-none"/g)?.length, 81, 'the days before the monitor existed')
  t.match(body, '<span class="day day-down" title="2026-11-21: 94.44%, 40 min down"></span>')
  t.match(body, /<svg viewBox="0 0 640 220" role="img" aria-labelledby="rt-title rt-desc">/)
  t.match(body, '9 checks from 2026-11-13 12:00:00 UTC to 2026-11-21 11:50:00 UTC: response time 5 to 10000 ms, 5 down (drawn as squares).')
  t.equal(body.match(/<rect class="down"/g)?.length, 5)
  t.match(body, /<span class="st st-down">Ongoing<\/span><\/td>\s*<td>40 min so far<\/td><td>expected status 200, got 503 <span class="muted">\(HTTP 503\)<\/span>/)
  t.match(body, /<time datetime="2026-11-18T02:15:00.000Z">2026-11-18 02:15:00 UTC<\/time><\/td>\s*<td>1 h 35 min<\/td><td>timeout after 10000 ms<\/td>/)
  t.match(body, '<td>503</td><td>40 ms</td><td>expected status 200, got 503</td>')
  t.match(body, /<tr><td><span class="st st-down">Down<\/span><\/td><td><a href="\/incidents\/[0-9a-f-]{36}"><time datetime="2026-11-21T11:20:00.000Z">/, 'each incident says its kind')
  t.match(body, /<tr><td><span class="st st-degraded">Degraded<\/span><\/td><td><a href="\/incidents\/[0-9a-f-]{36}"><time datetime="2026-11-21T10:20:00.000Z">[^]*?<td>40 min<\/td><td>response took 2600 ms/)
  t.notMatch(body, 'Older checks', 'fewer checks than a page')

  const quiet = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Quiet', url: 'https://quiet.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const empty = (await browser.get(`/monitors/${quiet.id}`)).body
  t.match(empty, 'No checks yet: the chart appears after the first check.')
  t.match(empty, 'No incidents: this monitor has not been down.')
  t.match(empty, /<p class="stat-value">No data<\/p>\s*<p class="muted">Not monitored in this period<\/p>/, 'created this very moment')
})

t.test('the monitors page: statuses as text, sparklines, filters, problems first', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const up = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'b up', url: 'https://up.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  const down = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'z down', url: 'https://down.example.com' }), { now, audit: testAudit, allowPrivateTargets: true })
  await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'a paused', url: 'https://p.example.com', is_active: false }), { now, audit: testAudit, allowPrivateTargets: true })
  await app.db.update(monitors).set({ status: 'down' }).where((await import('drizzle-orm')).eq(monitors.id, down.id))
  await insertChecks(app.db, Array.from({ length: 25 }, (_, i) => ({
    monitorId: up.id, isUp: i !== 20, statusCode: 200, responseTimeMs: 100 + i, checkedAt: new Date(now.getTime() - (25 - i) * 60_000),
  })))

  const body = (await browser.get('/')).body
  const order = [...body.matchAll(/<td class="name"><a href="\/monitors\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1])
  t.same(order, ['z down', 'b up', 'a paused'], 'down first, then up, then paused')
  t.match(body, '<span class="st st-down">Down</span>')
  t.match(body, '<span class="st st-paused">Paused</span>')
  t.match(body, /aria-label="Last 20 checks: 1 down, 105 to 124 ms"/, 'the newest 20 checks')
  t.match(body, '<span class="ms">124 ms</span>')
  t.match(body, '<a href="/?status=down">Down <span class="n">1</span></a>')
  t.match(body, 'aria-label="Resume a paused">Resume</button>')
  const filtered = (await browser.get('/?status=down')).body
  t.same([...filtered.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]), ['z down'])
  t.match(filtered, '<a href="/?status=down" aria-current="page">')
  t.equal((await browser.get('/?status=sideways')).statusCode, 400)

  // The search box: the API's search (name or URL, any case), the status filter kept, counts of what it found.
  t.match(body, '<form class="search" method="get" action="/" role="search">')
  const searched = (await browser.get('/?search=EXAMPLE.com&status=down')).body
  t.same([...searched.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]), ['z down'])
  t.match(searched, '<input type="search" id="monitor-search" name="search" value="EXAMPLE.com"')
  t.match(searched, '<input type="hidden" name="status" value="down">')
  t.match(searched, '<a href="/?status=pending&amp;search=EXAMPLE.com">Pending <span class="n">1</span></a>', 'the status links keep the search')
  const byName = (await browser.get('/?search=PAUSED')).body
  t.same([...byName.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]), ['a paused'])
  t.match(byName, '<a href="/?search=PAUSED" aria-current="page">All <span class="n">1</span></a>')
  const none = (await browser.get('/?search=%25nothing%25')).body
  t.match(none, 'No monitor matches “%nothing%”.')
  t.notMatch(none, 'No monitors yet')
  t.same([...(await browser.get('/?search=')).body.matchAll(/<td class="name"><a[^>]*>([^<]+)</g)].map((m) => m[1]).length, 3, 'an empty search is none')
  t.equal((await browser.get('/?search=a%00b')).statusCode, 400, 'a NUL character, which no name or URL holds, is refused')
})

/**
 * Counts the statements the app sends to its database while `fn` runs, at the driver (PGlite's query,
 * postgres.js's unsafe), through which drizzle and the prepared hot reads both go.
 */
async function countStatements (app: FastifyInstance, fn: () => Promise<unknown>): Promise<number> {
  const client = (app.db as unknown as { $client: object }).$client as Record<string, unknown>
  const method = typeof client.unsafe === 'function' ? 'unsafe' : 'query'
  // The client's own function: on PostgreSQL drizzle's client is a wrapper (src/db/driver-workarounds/postgres-client.ts)
  // whose `unsafe` wraps the driver's, which is what the counter must call and what must be put back.
  const own = Object.getOwnPropertyDescriptor(client, method)
  const raw = (own ? own.value : client[method]) as (...args: unknown[]) => unknown
  let count = 0
  client[method] = function (this: unknown, ...args: unknown[]) { count++; return raw.apply(this, args) }
  try {
    await fn()
  } finally {
    if (own) Object.defineProperty(client, method, own)
    else delete client[method]
  }
  return count
}

t.test('1,000 monitors: one page, as many queries as for one monitor', async (t) => {
  const now = new Date()
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    orgId: browser.user.id,
    name: `Monitor ${String(i).padStart(4, '0')}`,
    url: `https://m${i}.example.com/health`,
    status: 'up' as const,
    lastCheckedAt: now,
    createdAt: new Date(now.getTime() - i * 1000),
  }))
  const addChecks = (monitorIds: string[]) => insertChecks(app.db, monitorIds.flatMap((monitorId) => Array.from({ length: 25 }, (_, k) => ({
    monitorId, isUp: true, statusCode: 200, responseTimeMs: 50 + k, checkedAt: new Date(now.getTime() - k * 60_000),
  }))))
  const page = () => app.inject({ url: '/', headers: { cookie: browser.cookie, 'accept-encoding': 'gzip' } })
  const ids = (await app.db.insert(monitors).values(rows.slice(0, 1)).returning({ id: monitors.id })).map((r) => r.id)
  await addChecks(ids)
  await page() // the session's last visit is recorded now, not during the counted requests
  await app.backgroundWrites.settled()
  const forOne = await countStatements(app, page)
  for (let i = 1; i < rows.length; i += 333) {
    const added = (await app.db.insert(monitors).values(rows.slice(i, i + 333)).returning({ id: monitors.id })).map((r) => r.id)
    ids.push(...added)
    await addChecks(added)
  }

  let res = await page()
  const forAll = await countStatements(app, async () => { res = await page() })
  t.equal(forAll, forOne, `the page's statements do not grow with its monitors (${forAll} for 1 and for 1,000)`)
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  const { gunzipSync } = await import('node:zlib')
  const html = gunzipSync(res.rawPayload).toString()
  t.equal(html.match(/<svg class="spark"/g)?.length, 1000, 'every monitor has its sparkline')
  t.match(html, '<a href="/" aria-current="page">All <span class="n">1,000</span></a>')
  t.comment(`1,000 monitors: ${(html.length / 1024).toFixed(0)} KiB of HTML, ${(res.rawPayload.length / 1024).toFixed(0)} KiB sent`)
  t.ok(res.rawPayload.length < 200 * 1024, 'compressed to under 200 KiB')
})
