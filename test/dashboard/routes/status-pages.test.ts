// The status pages of the dashboard: pages, components and reports through the feature's service, refused with the API's words by their field.
import t, { type Test } from 'tap'
import { recordCheck } from '../../../src/checks/record-check.ts'
import { upsertMember } from '../../../src/organizations/repository.ts'
import type { Role } from '../../../src/domain/vocabulary.ts'
import { insertSubscriber } from '../../../src/status-pages/subscriber-repository.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../../helper.ts'
import { dnsServer, type ZoneEntry } from '../../support/dns-server.ts'
import { failedCheck, signedIn } from '../dashboard-helper.ts'

async function setUp (t: Test, role: Role, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env })
  const owner = await makeUser(app)
  const api = async (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    request(app, owner.auth, { method, url: `/api/v1${url}`, ...(payload && { payload }) })
  const browser = await signedIn(app)
  const as = async (next: Role) => upsertMember(app.db, owner.orgId, browser.user.id, next, new Date())
  await as(role)
  await browser.post('/organization', { org_id: owner.orgId })
  const slug = `acme-${Math.random().toString(36).slice(2, 8)}`
  return { app, owner, api, browser, as, slug }
}

t.test('an editor makes a page, adds components, changes its settings and deletes it; a bad or taken slug is refused by its field', async (t) => {
  const { app, owner, api, browser, slug } = await setUp(t, 'editor')
  const monitor = await makeMonitor(app, owner.auth, { name: 'Shop' })
  const empty = await browser.get('/status-pages')
  t.equal(empty.statusCode, 200)
  t.match(empty.body, 'No status pages yet')
  t.match(empty.body, '<a href="/status-pages" aria-current="page">Status pages</a>', 'the nav entry, current')

  const bad = await browser.post('/status-pages', { slug: 'Not A Slug', title: 'Acme status' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /<input id="new-page-slug" name="slug" type="text" value="Not A Slug"[^>]* aria-invalid="true"/, 'the field is marked, its value kept')
  t.match(bad.body, '<p class="error" id="new-page-slug-error">Slug must be 2-63 lowercase letters, digits and hyphens')

  const made = await browser.post('/status-pages', { slug, title: 'Acme status', published: 'on' })
  t.equal(made.statusCode, 303)
  const [page] = (await api('GET', '/status-pages')).json().data
  t.match(page, { slug, title: 'Acme status', published: true, access: 'public' })
  t.equal(made.headers.location, `/status-pages/${page.id}?notice=status-page-created`)
  const taken = await browser.post('/status-pages', { slug, title: 'Again' })
  t.equal(taken.statusCode, 409)
  t.match(taken.body, `<p class="error" id="new-page-slug-error">Slug &quot;${slug}&quot; is taken by another status page</p>`)
  const list = await browser.get('/status-pages')
  t.match(list.body, `<a href="/status/${slug}">/status/${slug}</a>`)
  t.match(list.body, 'Published')

  const unlabelled = await browser.post(`/status-pages/${page.id}/components`, { name: 'API', source: 'labels', label_selector: ' ' })
  t.equal(unlabelled.statusCode, 400)
  t.match(unlabelled.body, 'id="component-label_selector-error">Monitors with labels must NOT have fewer than 1 items')
  const added = await browser.post(`/status-pages/${page.id}/components`, {
    name: 'Shop', group: 'Europe', source: 'monitor', monitor_id: monitor.id, label_selector: 'ignored', manual_status: 'major_outage',
  })
  t.equal(added.statusCode, 303)
  t.equal((await browser.post(`/status-pages/${page.id}/components`, { name: 'Support', source: 'manual', manual_status: 'operational' })).statusCode, 303)
  const components = (await api('GET', `/status-pages/${page.id}/components`)).json().data
  t.match(components, [
    { name: 'Shop', group: 'Europe', monitor_id: monitor.id, label_selector: null, manual_status: null },
    { name: 'Support', group: null, monitor_id: null, manual_status: 'operational' },
  ], 'only the chosen source is saved')
  const view = await browser.get(`/status-pages/${page.id}`)
  t.match(view.body, `<a href="/monitors/${monitor.id}">Shop</a>`)
  t.equal((await browser.post(`/status-pages/${page.id}/components/${components[1].id}`, { manual_status: 'partial_outage' })).statusCode, 303)
  t.match((await api('GET', `/status-pages/${page.id}/components/${components[1].id}`)).json().data, { manual_status: 'partial_outage' })
  t.match((await app.inject({ url: `/status/${slug}` })).body, 'Support', 'the public page shows it')

  const noPassword = await browser.post(`/status-pages/${page.id}`, { title: 'Acme', access: 'password', history_days: '30' })
  t.equal(noPassword.statusCode, 400)
  t.match(noPassword.body, 'id="settings-password-error">Password is required when access is password')
  const saved = await browser.post(`/status-pages/${page.id}`, {
    title: 'Acme', description: 'Our services', homepage_url: 'https://acme.example', history_days: '30', access: 'password', password: 'a long enough secret',
  })
  t.equal(saved.statusCode, 303)
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, {
    title: 'Acme', description: 'Our services', homepage_url: 'https://acme.example', history_days: 30, access: 'password', published: false,
  })
  t.equal((await app.inject({ url: `/status/${slug}` })).statusCode, 404, 'the public page follows the change at once: unpublished, a 404')
  const events = (await api('GET', '/audit-events?limit=100')).json().data as Array<{ action: string, actor: { label: string } }>
  t.match(events.find((e) => e.action === 'status_page.updated'), { actor: { type: 'user', id: browser.user.id, label: browser.user.email } }, 'audited as the member')

  t.equal((await browser.post(`/status-pages/${page.id}/components/${components[0].id}/delete`)).statusCode, 303)
  t.equal((await api('GET', `/status-pages/${page.id}/components`)).json().data.length, 1)
  const deleted = await browser.post(`/status-pages/${page.id}/delete`)
  t.equal(deleted.headers.location, '/status-pages?notice=status-page-deleted')
  t.equal((await api('GET', `/status-pages/${page.id}`)).statusCode, 404)
  t.equal((await browser.get(`/status-pages/${page.id}`)).statusCode, 404)
})

t.test('an editor publishes a report, a responder posts updates, a viewer only reads', async (t) => {
  const { api, browser, as, slug } = await setUp(t, 'editor')
  const page = (await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })).json().data
  const component = (await api('POST', `/status-pages/${page.id}/components`, { name: 'API', manual_status: 'operational' })).json().data

  const noPage = await browser.post('/status-reports', { title: 'Errors', message: 'Looking' })
  t.equal(noPage.statusCode, 400)
  t.match(noPage.body, 'id="report-status_page_ids-error">Pages must NOT have fewer than 1 items')
  const made = await browser.post('/status-reports', {
    [`page:${page.id}`]: 'on', [`component:${component.id}`]: 'on', title: 'Elevated API errors', status: 'investigating', impact: 'major', message: 'We are looking into it.',
  })
  t.equal(made.statusCode, 303)
  const [report] = (await api('GET', '/status-reports')).json().data
  t.match(report, { title: 'Elevated API errors', status: 'investigating', impact: 'major', status_page_ids: [page.id], component_ids: [component.id] })

  await as('responder')
  const read = await browser.get('/status-reports')
  t.match(read.body, 'Post update')
  t.notMatch(read.body, 'New report', 'a responder makes no report')
  t.equal((await browser.post('/status-reports', { [`page:${page.id}`]: 'on', title: 'x', message: 'y' })).statusCode, 403)
  t.equal((await browser.post(`/status-reports/${report.id}`, { title: 'x', impact: 'minor' })).statusCode, 403)
  const blank = await browser.post(`/status-reports/${report.id}/updates`, { status: 'identified', message: ' ' })
  t.equal(blank.statusCode, 400)
  t.match(blank.body, `id="update-${report.id}-message-error">Message must be 1-10000 characters and not blank`)
  const posted = await browser.post(`/status-reports/${report.id}/updates`, { status: 'identified', message: 'A bad deploy; rolling back.' })
  t.equal(posted.statusCode, 303)
  t.match((await api('GET', `/status-reports/${report.id}`)).json().data, { status: 'identified', updates: [{ status: 'investigating' }, { status: 'identified', message: 'A bad deploy; rolling back.' }] })
  t.match((await browser.get('/status-reports')).body, 'A bad deploy; rolling back.')

  await as('viewer')
  const viewed = await browser.get('/status-reports')
  t.match(viewed.body, 'Elevated API errors')
  t.notMatch(viewed.body, 'Post update')
  for (const [url, fields] of [
    [`/status-reports/${report.id}/updates`, { status: 'resolved', message: 'Fixed' }],
    ['/status-pages', { slug: `${slug}-2`, title: 'Other' }],
    [`/status-pages/${page.id}`, { title: 'Mine' }],
    [`/status-pages/${page.id}/components`, { name: 'DB', source: 'manual', manual_status: 'operational' }],
    [`/status-pages/${page.id}/delete`, {}],
    [`/status-reports/${report.id}/delete`, {}],
  ] as const) t.equal((await browser.post(url, fields)).statusCode, 403, `a viewer may not POST ${url}`)
  t.equal((await api('GET', `/status-pages/${page.id}/components`)).json().data.length, 1, 'nothing changed')

  await as('responder')
  t.equal((await browser.post(`/status-reports/${report.id}/updates`, { status: 'resolved', message: 'Fixed.' })).statusCode, 303)
  const resolved = (await browser.get('/status-reports')).body
  t.match(resolved, 'No open reports')
  t.match(resolved, 'Elevated API errors')
})

t.test('an editor drafts a report from an incident: the form is filled in with the components that follow its monitor', async (t) => {
  const { app, owner, api, browser, as, slug } = await setUp(t, 'editor')
  const monitor = await makeMonitor(app, owner.auth, { name: 'Shop', failure_threshold: 1 })
  const page = (await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })).json().data
  const component = (await api('POST', `/status-pages/${page.id}/components`, { name: 'Checkout', monitor_id: monitor.id })).json().data
  await recordCheck(app.db, monitor.id, failedCheck(new Date()), 30_000)
  const [incident] = (await api('GET', `/monitors/${monitor.id}/incidents`)).json().data

  const incidentPage = await browser.get(`/incidents/${incident.id}`)
  t.match(incidentPage.body, `<a href="/status-reports?incident=${incident.id}#new-report">Draft a status report</a>`)
  const draft = await browser.get(`/status-reports?incident=${incident.id}`)
  t.equal(draft.statusCode, 200)
  t.match(draft.body, '<input id="report-title" name="title" type="text" value="Checkout unavailable"')
  t.match(draft.body, `name="page:${page.id}" type="checkbox" checked`)
  t.match(draft.body, `name="component:${component.id}" type="checkbox" checked`)
  t.match(draft.body, /<select id="report-impact" name="impact"[^>]*>.*<option value="major" selected>/s)
  t.match(draft.body, /<textarea id="report-message"[^>]*>\nWe are investigating an outage of Checkout since /)
  t.equal((await api('GET', '/status-reports')).json().data.length, 0, 'nothing is published by the draft')
  t.equal((await browser.get('/status-reports?incident=0b9e8d7c-6a5b-4c3d-9e2f-000000000000')).statusCode, 404)

  await as('responder')
  t.notMatch((await browser.get(`/incidents/${incident.id}`)).body, 'Draft a status report', 'only editors draft')
  t.notMatch((await browser.get(`/status-reports?incident=${incident.id}`)).body, 'Checkout unavailable')
})

t.test('an editor sets the slug and custom domain and verifies it: its Host serves the page at once; the server\'s host is refused; a viewer changes none of it', async (t) => {
  const zone: Record<string, ZoneEntry> = {}
  const dns = await dnsServer(t, zone)
  const { app, api, browser, as, slug } = await setUp(t, 'editor', { DNS_SERVERS: dns.server, PUBLIC_URL: 'https://pingward.example.com' })
  const domain = `${slug}.acme.test`
  const onHost = (host: string) => app.inject({ url: '/', headers: { host } })

  const own = await browser.post('/status-pages', { slug, title: 'Acme status', custom_domain: 'pingward.example.com', published: 'on' })
  t.equal(own.statusCode, 400)
  t.match(own.body, /<input id="new-page-custom_domain" name="custom_domain" type="text" value="pingward.example.com"[^>]* aria-invalid="true"/)
  t.match(own.body, 'id="new-page-custom_domain-error">Custom domain must not be this server&#39;s own host name (pingward.example.com)</p>')
  const made = await browser.post('/status-pages', { slug, title: 'Acme status', custom_domain: ` ${domain} `, published: 'on' })
  t.equal(made.statusCode, 303, made.body)
  const [page] = (await api('GET', '/status-pages')).json().data
  t.match(page, { slug, custom_domain: domain, domain_verified: false })
  const unverified = await onHost(domain)
  t.same([unverified.statusCode, unverified.json()], [404, { error: 'Status page not found' }], 'routed to the page at once, which serves nothing unverified')

  const taken = await browser.post('/status-pages', { slug: `${slug}-2`, title: 'Again', custom_domain: domain })
  t.equal(taken.statusCode, 409)
  t.match(taken.body, `id="new-page-custom_domain-error">Custom domain &quot;${domain}&quot; is another status page&#39;s</p>`)

  const view = await browser.get(`/status-pages/${page.id}`)
  t.match(view.body, `<input id="settings-slug" name="slug" type="text" value="${slug}"`)
  t.match(view.body, `<input id="settings-custom_domain" name="custom_domain" type="text" value="${domain}"`)
  t.match(view.body, `<code>_pingward.${domain}</code>`)
  t.match(view.body, `<code>${page.domain_txt_record}</code>`)
  t.match(view.body, 'Not verified')
  const settings = { title: 'Acme status', published: 'on', history_days: '90', access: 'public' }
  const ownHost = await browser.post(`/status-pages/${page.id}`, { ...settings, slug, custom_domain: 'pingward.example.com' })
  t.equal(ownHost.statusCode, 400)
  t.match(ownHost.body, 'id="settings-custom_domain-error">Custom domain must not be this server&#39;s own host name (pingward.example.com)</p>')
  const badSlug = await browser.post(`/status-pages/${page.id}`, { ...settings, slug: 'Not A Slug', custom_domain: domain })
  t.equal(badSlug.statusCode, 400)
  t.match(badSlug.body, 'id="settings-slug-error">Slug must be 2-63 lowercase letters, digits and hyphens')

  // A new domain and slug: the old domain stops routing and the new one routes, without the periodic read.
  const next = `www.${domain}`
  const saved = await browser.post(`/status-pages/${page.id}`, { ...settings, slug: `${slug}-new`, custom_domain: next })
  t.equal(saved.statusCode, 303, saved.body)
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, { slug: `${slug}-new`, custom_domain: next, domain_verified: false })
  t.equal((await onHost(domain)).statusCode, 303, 'the old domain is the dashboard\'s again (to sign in)')
  const updated = (await api('GET', `/audit-events?entity_id=${page.id}&action=status_page.updated`)).json().data
  t.match(updated[0], { actor: { type: 'user', id: browser.user.id }, changes: { slug: [slug, `${slug}-new`], custom_domain: [domain, next] } }, 'audited as the API\'s PATCH')

  const none = await browser.post(`/status-pages/${page.id}/verify-domain`)
  t.equal(none.statusCode, 409)
  t.match(none.body, `_pingward.${next} has no TXT record: publish one that says &quot;${page.domain_txt_record}&quot;`)
  zone[`_pingward.${next}`] = { TXT: [[page.domain_txt_record]] }
  const verified = await browser.post(`/status-pages/${page.id}/verify-domain`)
  t.equal(verified.statusCode, 303, verified.body)
  t.equal(verified.headers.location, `/status-pages/${page.id}?notice=domain-verified`)
  const home = await onHost(next)
  t.equal(home.statusCode, 200, 'its Host serves the page at once')
  t.match(home.body, '<title>Acme status')
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, { domain_verified: true })
  const events = (await api('GET', `/audit-events?entity_id=${page.id}&action=status_page.domain_verified`)).json().data
  t.equal(events.length, 1)
  t.match(events[0], { actor: { type: 'user', id: browser.user.id }, changes: { domain_verified: [false, true] } }, 'audited as the API\'s verify-domain')
  t.match((await browser.get(`/status-pages/${page.id}`)).body, /<dd>www\.[^<]+ <span class="st st-up">Verified<\/span><\/dd>/)

  const at = new Date()
  for (const [i, confirmed] of [true, true, false].entries()) {
    await insertSubscriber(app.db, { pageId: page.id, email: `reader${i}@example.com`, token: `token-${slug}-${i}`, confirmedAt: confirmed ? at : null, createdAt: at })
  }
  t.match((await browser.get(`/status-pages/${page.id}`)).body, '<dt>Subscribers</dt><dd>2 confirmed, 1 not yet confirmed')

  await as('viewer')
  const read = (await browser.get(`/status-pages/${page.id}`)).body
  t.match(read, '<dt>Subscribers</dt><dd>2 confirmed, 1 not yet confirmed')
  t.match(read, `<code>_pingward.${next}</code>`)
  t.notMatch(read, 'Verify domain</button>')
  t.notMatch(read, 'name="custom_domain"')
  for (const [url, fields] of [
    [`/status-pages/${page.id}`, { ...settings, slug: `${slug}-viewer`, custom_domain: `viewer.${domain}` }],
    [`/status-pages/${page.id}/verify-domain`, {}],
    ['/status-pages', { slug: `${slug}-3`, title: 'Other', custom_domain: `other.${domain}` }],
  ] as const) t.equal((await browser.post(url, fields)).statusCode, 403, `a viewer may not POST ${url}`)
  t.match((await api('GET', `/status-pages/${page.id}`)).json().data, { slug: `${slug}-new`, custom_domain: next, domain_verified: true }, 'nothing changed')
  t.equal((await api('GET', '/status-pages')).json().data.length, 1)
})
