// Status pages (api-contract section 16): pages, components and reports over the API, who may change them, and the
// public page with its twins: a component's status by the contract's order, the Statuspage shape read by a real
// client (@aero/statuspage), Atom read by a feed parser, iCalendar by ical.js, snapshots with strong ETags and 304s.
import { createRequire } from 'node:module'
import { gunzipSync, brotliDecompressSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { StatusPageClient } from '@aero/statuspage'
import { parseFeed } from '@rowanmanning/feed-parser'
import ICAL from 'ical.js'
import { recordCheck } from '../../src/checks/record-check.ts'
import { buildTestApp, makeMember, makeMonitor, makeTeam, request, until } from '../helper.ts'

interface ClientUndici { Agent: new () => unknown, getGlobalDispatcher: () => unknown, setGlobalDispatcher: (dispatcher: unknown) => void }

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })

async function setUp (t: Test) {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const team = await makeTeam(app)
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, auth = team.auth) =>
    request(app, auth, { method, url: `/api/v1${url}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  const slug = `acme-${Math.random().toString(36).slice(2, 8)}`
  const made = await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })
  t.equal(made.statusCode, 201, made.body)
  const page = made.json().data
  const component = async (payload: Record<string, unknown>) => {
    const res = await api('POST', `/status-pages/${page.id}/components`, payload)
    if (res.statusCode !== 201) throw new Error(`component: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const publicGet = (path = '', headers: Record<string, string> = {}) => app.inject({ url: `/status/${slug}${path}`, headers })
  return { app, team, api, slug, page, component, publicGet }
}

t.test('a page is made, read, changed and deleted; its slug is the server\'s once', async (t) => {
  const { app, api, page, slug } = await setUp(t)
  t.match(page, {
    slug,
    title: 'Acme status',
    description: null,
    homepage_url: null,
    published: true,
    access: 'public',
    history_days: 90,
    custom_domain: null,
    domain_verified: false,
    domain_txt_record: /^pingward-verification=[\w-]{22}$/,
  })
  t.notOk('password' in page, 'no password field in the record')
  const other = await makeTeam(app)
  const taken = await request(app, other.auth, { method: 'POST', url: '/api/v1/status-pages', payload: { slug, title: 'Mine' } })
  t.same([taken.statusCode, taken.json()], [409, { error: `slug "${slug}" is taken by another status page` }])
  const bad = await api('POST', '/status-pages', { slug: 'A', title: 'x' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().error, /^body\/slug must be 2-63 lowercase letters/)
  const noPassword = await api('POST', '/status-pages', { slug: `${slug}-p`, title: 'x', access: 'password' })
  t.same([noPassword.statusCode, noPassword.json()], [400, { error: 'body/password is required when access is password' }])
  const changed = await api('PATCH', `/status-pages/${page.id}`, { title: 'Acme', history_days: 30, custom_domain: 'status.acme.example' })
  t.match(changed.json().data, { title: 'Acme', history_days: 30, custom_domain: 'status.acme.example', domain_verified: false })
  t.same((await api('GET', '/status-pages')).json().data.map((p: { id: string }) => p.id), [page.id])
  t.equal((await request(app, other.auth, { url: `/api/v1/status-pages/${page.id}` })).statusCode, 404, 'another organization\'s page is a 404')
  t.equal((await api('DELETE', `/status-pages/${page.id}`)).statusCode, 204)
  t.equal((await api('GET', `/status-pages/${page.id}`)).statusCode, 404)
  const actions = (await api('GET', `/audit-events?entity_id=${page.id}`)).json().data.map((e: { action: string }) => e.action)
  t.same(actions, ['status_page.deleted', 'status_page.updated', 'status_page.created'])
})

t.test('a component follows exactly one source, of the organization', async (t) => {
  const { app, api, page, component, team } = await setUp(t)
  const monitor = await makeMonitor(app, team.auth)
  const none = await api('POST', `/status-pages/${page.id}/components`, { name: 'API' })
  t.same([none.statusCode, none.json()], [400, { error: 'body/monitor_id, label_selector and manual_status: exactly one must be set' }])
  const two = await api('POST', `/status-pages/${page.id}/components`, { name: 'API', monitor_id: monitor.id, manual_status: 'operational' })
  t.equal(two.statusCode, 400)
  const other = await makeTeam(app)
  const theirs = await makeMonitor(app, other.auth)
  const foreign = await api('POST', `/status-pages/${page.id}/components`, { name: 'API', monitor_id: theirs.id })
  t.same([foreign.statusCode, foreign.json()], [400, { error: `body/monitor_id: ${theirs.id} is not a monitor of this organization` }])
  const first = await component({ name: 'API', monitor_id: monitor.id })
  const second = await component({ name: 'Web', label_selector: ['tier:web'], group: 'Europe' })
  t.match(first, { position: 0, monitor_id: monitor.id, label_selector: null, manual_status: null, group: null })
  t.match(second, { position: 1, label_selector: ['tier:web'], group: 'Europe' })
  const switched = await api('PATCH', `/status-pages/${page.id}/components/${first.id}`, { manual_status: 'degraded_performance' })
  t.match(switched.json().data, { monitor_id: null, manual_status: 'degraded_performance' }, 'a new source clears the old')
  t.same((await api('GET', `/status-pages/${page.id}/components`)).json().data.map((c: { name: string }) => c.name), ['API', 'Web'])
  t.equal((await api('DELETE', `/status-pages/${page.id}/components/${second.id}`)).statusCode, 204)
  t.equal((await api('GET', `/status-pages/${page.id}/components/${second.id}`)).statusCode, 404)
})

t.test('reports: a first update from status and message, updates by responders, resolved and reopened, audited', async (t) => {
  const { app, api, page, component, team } = await setUp(t)
  const web = await component({ name: 'Web', manual_status: 'operational' })
  const made = await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Slow pages', component_ids: [web.id], message: 'Looking into it.' })
  t.equal(made.statusCode, 201, made.body)
  const report = made.json().data
  t.match(report, { status: 'investigating', impact: 'minor', resolved_at: null, component_ids: [web.id] })
  t.match(report.updates, [{ status: 'investigating', message: 'Looking into it.' }])
  const viewer = await makeMember(app, team.orgId, 'viewer')
  const responder = await makeMember(app, team.orgId, 'responder')
  t.equal((await api('POST', `/status-reports/${report.id}/updates`, { status: 'identified', message: 'x' }, viewer.auth)).statusCode, 403)
  t.equal((await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'x', message: 'y' }, responder.auth)).statusCode, 403, 'a responder may not make one')
  const posted = await api('POST', `/status-reports/${report.id}/updates`, { status: 'resolved', message: 'Fixed.' }, responder.auth)
  t.equal(posted.statusCode, 201)
  t.match(posted.json().data, { status: 'resolved', resolved_at: /Z$/ })
  t.same(posted.json().data.updates.map((u: { status: string }) => u.status), ['investigating', 'resolved'])
  const reopened = await api('POST', `/status-reports/${report.id}/updates`, { status: 'monitoring', message: 'Back again.' })
  t.match(reopened.json().data, { status: 'monitoring', resolved_at: null })
  const elsewhere = await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'x', message: 'y', component_ids: ['3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] })
  t.same([elsewhere.statusCode, elsewhere.json()], [400, { error: 'body/component_ids: 3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d is not a component of the report\'s pages' }])
  const open = (await api('GET', `/status-reports?open=true&status_page_id=${page.id}`)).json().data
  t.same(open.map((r: { id: string }) => r.id), [report.id])
  const audit = (await api('GET', `/audit-events?entity_id=${report.id}`)).json().data
  t.same(audit.map((e: { action: string }) => e.action), ['status_report.update_posted', 'status_report.update_posted', 'status_report.created'])
  t.same(audit[1].changes.status, ['investigating', 'resolved'])
  t.equal(audit[1].actor.id, responder.keyId)
})

t.test('a report drafted from an incident names the components that follow its monitor, and stores nothing', async (t) => {
  const { app, api, page, component, team } = await setUp(t)
  const monitor = await makeMonitor(app, team.auth, { name: 'Checkout', failure_threshold: 1, labels: { tier: 'shop' } })
  const byId = await component({ name: 'Checkout API', monitor_id: monitor.id })
  const bySelector = await component({ name: 'Shop', label_selector: ['tier:shop'] })
  await component({ name: 'Other', label_selector: ['tier:other'] })
  await recordCheck(app.db, monitor.id, failed(new Date()), 30_000)
  const [incident] = (await api('GET', `/monitors/${monitor.id}/incidents`)).json().data
  const draft = await api('GET', `/incidents/${incident.id}/status-report-draft`)
  t.equal(draft.statusCode, 200, draft.body)
  t.match(draft.json().data, {
    status_page_ids: [page.id],
    status: 'investigating',
    impact: 'major',
    component_ids: [byId.id, bySelector.id],
    title: 'Checkout API, Shop unavailable',
    message: /^We are investigating an outage of Checkout API, Shop since \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
  })
  t.same((await api('GET', '/status-reports')).json().data, [], 'nothing is published by itself')
  const made = await api('POST', '/status-reports', { ...draft.json().data })
  t.equal(made.statusCode, 201, 'the draft is a body POST /status-reports takes')
  const other = await makeTeam(app)
  t.equal((await request(app, other.auth, { url: `/api/v1/incidents/${incident.id}/status-report-draft` })).statusCode, 404)
})

t.test('the public page: unpublished is a 404; each component\'s status by the contract\'s order; by icon and text', async (t) => {
  const { app, api, page, component, team, publicGet } = await setUp(t)
  const api1 = await makeMonitor(app, team.auth, { name: 'api-1', failure_threshold: 1, labels: { tier: 'api' } })
  await makeMonitor(app, team.auth, { name: 'api-2', failure_threshold: 1, labels: { tier: 'api' } })
  const db = await makeMonitor(app, team.auth, { name: 'db', failure_threshold: 1 })
  const single = await component({ name: 'Database', monitor_id: db.id })
  await component({ name: 'API fleet', label_selector: ['tier:api'], group: 'Backend' })
  const manual = await component({ name: 'Support desk', manual_status: 'operational' })
  const home = await publicGet()
  t.equal(home.statusCode, 200)
  t.match(home.headers['content-type'], 'text/html')
  t.match(home.body, /✔<\/span>All Systems Operational/)

  await recordCheck(app.db, api1.id, failed(new Date()), 30_000)
  await recordCheck(app.db, db.id, failed(new Date()), 30_000)
  await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Desk slow', impact: 'major', component_ids: [manual.id], message: 'Busy.' })
  // The report is served at once; the checks reach the page through the database's change feed.
  const view = await until(async () => {
    const res = await publicGet()
    return res.body.includes('Major outage') ? res.body : undefined
  })
  const statusOf = (name: string) => new RegExp(`<h3>${name}</h3><p[^>]*><span class="s-(\\w+)"><span class="icon" aria-hidden="true">.</span>([A-Za-z ]+)</span>`).exec(view)?.slice(1)
  t.same(statusOf('Database'), ['major_outage', 'Major outage'], 'its one monitor down: major outage')
  t.same(statusOf('API fleet'), ['partial_outage', 'Partial outage'], 'some of its selector\'s monitors down: partial outage')
  t.same(statusOf('Support desk'), ['partial_outage', 'Partial outage'], 'an open report\'s major impact: partial outage')
  t.match(view, /<p class="banner s-critical" role="status"><span class="icon" aria-hidden="true">✖<\/span>Major System Outage<\/p>/)
  t.match(view, /<h2 id="open-reports">Current incidents<\/h2>/)
  t.match(view, /Desk slow/)

  await api('POST', '/maintenance-windows', { title: 'DB upgrade', ends_at: new Date(Date.now() + 3_600_000).toISOString(), monitor_ids: [db.id] })
  const inMaintenance = await until(async () => {
    const res = await publicGet()
    return res.body.includes('<h3>Database</h3><p style="margin:0"><span class="s-under_maintenance">') ? res.body : undefined
  })
  t.match(inMaintenance, /DB upgrade/, 'the window is listed')
  t.match(inMaintenance, /Under way: /)

  await api('PATCH', `/status-pages/${page.id}`, { published: false })
  t.equal((await publicGet()).statusCode, 404, 'unpublished: a 404 at once')
  t.equal((await publicGet('/summary.json')).statusCode, 404)
  t.equal(single.name, 'Database')
})

t.test('snapshots: a strong ETag per encoding, 304 for If-None-Match, stale-serving Cache-Control, gzip and brotli', async (t) => {
  const { api, page, component, publicGet } = await setUp(t)
  await component({ name: 'Web', manual_status: 'operational' })
  const plain = await publicGet()
  t.match(plain.headers.etag, /^"[\w-]{27}"$/)
  t.equal(plain.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400')
  t.equal(plain.headers.vary, 'accept-encoding')
  const again = await publicGet('', { 'if-none-match': plain.headers.etag as string })
  t.same([again.statusCode, again.body], [304, ''])
  const gzip = await publicGet('', { 'accept-encoding': 'gzip' })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
  t.not(gzip.headers.etag, plain.headers.etag, 'each encoding has its own strong ETag')
  const br = await publicGet('', { 'accept-encoding': 'gzip, br' })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
  t.equal((await publicGet('', { 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string })).statusCode, 304)
  await api('PATCH', `/status-pages/${page.id}`, { title: 'Renamed' })
  const changed = await publicGet('', { 'if-none-match': plain.headers.etag as string })
  t.equal(changed.statusCode, 200, 'a change made here is served at once')
  t.match(changed.body, /Renamed/)
})

t.test('summary.json has Statuspage\'s shape and a Statuspage client reads it; Atom, iCalendar and badges', async (t) => {
  const { app, api, page, component, team, slug, publicGet } = await setUp(t)
  const monitor = await makeMonitor(app, team.auth, { failure_threshold: 1 })
  const api1 = await component({ name: 'API', monitor_id: monitor.id, group: 'Core' })
  await component({ name: 'Docs', manual_status: 'operational' })
  await recordCheck(app.db, monitor.id, failed(new Date()), 30_000)
  const report = (await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'API errors', impact: 'major', component_ids: [api1.id], message: 'Looking.' })).json().data
  await api('POST', `/status-reports/${report.id}/updates`, { status: 'identified', message: 'Found it.' })
  const starts = new Date(Date.now() + 86_400_000)
  await api('POST', '/maintenance-windows', { title: 'Upgrade', starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + 3_600_000).toISOString(), monitor_ids: [monitor.id] })

  const summary = await until(async () => {
    const res = await publicGet('/summary.json')
    const body = res.json()
    return body.components.some((c: { status: string }) => c.status === 'partial_outage') && body.scheduled_maintenances.length === 1 ? res : undefined
  })
  t.equal(summary.headers['access-control-allow-origin'], '*')
  const body = summary.json()
  t.same(Object.keys(body).sort(), ['components', 'incidents', 'page', 'scheduled_maintenances', 'status'])
  t.same(Object.keys(body.page).sort(), ['id', 'name', 'time_zone', 'updated_at', 'url'])
  t.same(body.status, { indicator: 'major', description: 'Partial System Outage' })
  const COMPONENT = ['created_at', 'description', 'group', 'group_id', 'id', 'name', 'only_show_if_degraded', 'page_id', 'position', 'showcase', 'start_date', 'status', 'updated_at']
  for (const c of body.components) t.same(Object.keys(c).sort(), c.group ? [...COMPONENT, 'components'].sort() : COMPONENT, `component ${c.name}`)
  const INCIDENT = ['components', 'created_at', 'id', 'impact', 'incident_updates', 'monitoring_at', 'name', 'page_id', 'resolved_at', 'shortlink', 'started_at', 'status', 'updated_at']
  t.same(Object.keys(body.incidents[0]).sort(), INCIDENT)
  t.same(Object.keys(body.incidents[0].incident_updates[0]).sort(),
    ['affected_components', 'body', 'created_at', 'custom_tweet', 'deliver_notifications', 'display_at', 'id', 'incident_id', 'status', 'tweet_id', 'updated_at'])
  t.same(Object.keys(body.scheduled_maintenances[0]).sort(), [...INCIDENT, 'scheduled_for', 'scheduled_until'].sort())
  t.match(body.scheduled_maintenances[0], { status: 'scheduled', impact: 'maintenance', name: 'Upgrade' })

  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address() as { port: number }
  const client = new StatusPageClient(`http://127.0.0.1:${address.port}/status/${slug}`)
  // The client's undici 5 sends through the process's global dispatcher, which Node 24's own fetch makes an undici 7
  // one that refuses its options: it gets one of its own version meanwhile.
  const clientUndici = createRequire(createRequire(import.meta.url).resolve('@aero/http'))('undici') as ClientUndici
  const globalDispatcher = clientUndici.getGlobalDispatcher()
  clientUndici.setGlobalDispatcher(new clientUndici.Agent())
  const read = await client.summary().finally(() => clientUndici.setGlobalDispatcher(globalDispatcher))
  t.equal(read.status.indicator, 'major')
  const core = read.components.find((c: { name: string }) => c.name === 'Core')!
  t.same(core.children.map((c: { name: string, status: string }) => [c.name, c.status]), [['API', 'partial_outage']], 'the client builds the group from group and group_id')
  t.same(read.incidents[0].updates.map((u: { status: string }) => u.status), ['identified', 'investigating'], 'newest update first, as Statuspage sends them')
  t.equal(read.maintenances[0].name, 'Upgrade')

  const atom = await publicGet('/history.atom')
  t.match(atom.headers['content-type'], 'application/atom+xml')
  const feed = parseFeed(atom.body)
  t.equal(feed.meta.type, 'atom')
  t.equal(feed.items[0].title, 'API errors (Identified)')
  t.match(feed.items[0].content, /Found it\./)

  const ics = await publicGet('/maintenance.ics')
  const calendar = new ICAL.Component(ICAL.parse(ics.body))
  const [event] = calendar.getAllSubcomponents('vevent').map((e) => new ICAL.Event(e))
  t.equal(event.summary, 'Upgrade')
  t.equal(event.startDate.toJSDate().getTime(), starts.getTime() - (starts.getTime() % 1000))

  const badge = await publicGet('/badge.svg')
  t.match(badge.headers['content-type'], 'image/svg+xml')
  t.match(badge.body, /<svg[^>]*>.*partial outage/s)
  const shields = await publicGet(`/components/${api1.id}/badge.json`)
  t.same(shields.json(), { schemaVersion: 1, label: 'API', message: 'partial outage', color: 'orange' })
  t.equal((await publicGet('/components/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/badge.svg')).statusCode, 404)
})

t.test('a password page asks for its password, refuses a wrong one with 401, and opens with the right one', async (t) => {
  const { api, page, publicGet, app, slug } = await setUp(t)
  await api('PATCH', `/status-pages/${page.id}`, { access: 'password', password: 'correct horse battery' })
  const form = await publicGet()
  t.equal(form.statusCode, 200)
  t.match(form.body, /<input id="password" name="password" type="password"/)
  t.equal(form.headers['cache-control'], 'no-store')
  t.equal((await publicGet('/summary.json')).statusCode, 401, 'the twins need the password too')
  const post = (password: string) => app.inject({ method: 'POST', url: `/status/${slug}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ password }).toString() })
  const wrong = await post('not it at all')
  t.equal(wrong.statusCode, 401)
  t.match(wrong.body, /That password is not right/)
  const right = await post('correct horse battery')
  t.equal(right.statusCode, 303)
  t.equal(right.headers.location, `/status/${slug}`)
  const cookie = String(right.headers['set-cookie']).split(';')[0]
  const opened = await publicGet('', { cookie })
  t.equal(opened.statusCode, 200)
  t.match(opened.body, /Acme status/)
  t.equal(opened.headers['cache-control'], 'private, no-cache')
  t.equal((await publicGet('/summary.json', { cookie })).statusCode, 200)
  await api('PATCH', `/status-pages/${page.id}`, { password: 'another long password' })
  t.match((await publicGet('', { cookie })).body, /name="password"/, 'a new password closes the old cookie')
})
