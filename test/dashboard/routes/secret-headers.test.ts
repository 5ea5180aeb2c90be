// Secrets in the dashboard's forms: a header marked secret is masked on the monitor page and in the edit form,
// and a masked secret sent back with a url (or an ntfy server) of another origin is refused next to its field.
import { testAudit } from '../../helper.ts'
import t from 'tap'
import { notificationChannels } from '../../../src/db/schema.ts'
import { createMonitor } from '../../../src/monitors/service.ts'
import { withMonitorDefaults } from '../../../src/monitors/schema.ts'
import { buildTestApp } from '../../helper.ts'
import { signedIn, storedRow, textareaValue } from '../dashboard-helper.ts'

t.test('a header marked secret in the form is masked on the page and in the form; a new origin needs the secrets again', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const created = await browser.post('/monitors', {
    name: 'Tenant',
    url: 'https://api.example.com/health',
    is_active: 'on',
    request_headers: 'X-Tenant: acme-private-1234\r\nAuthorization: Bearer 0123456789abcdef\r\nAccept: text/html',
    secret_headers: ' X-Tenant, ',
  })
  t.equal(created.statusCode, 303, created.body)
  const id = /\/monitors\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1]
  t.same((await storedRow(app, id)).secretHeaders, ['x-tenant'])

  const page = (await browser.get(`/monitors/${id}`)).body
  t.match(page, '<li>X-Tenant: …1234</li>', 'masked on the monitor page')
  t.notMatch(page, 'acme-private')
  const edit = (await browser.get(`/monitors/${id}/edit`)).body
  const shown = textareaValue(edit, 'edit-monitor-request_headers')
  t.same(shown.split('\n').sort(), ['Accept: text/html', 'Authorization: …cdef', 'X-Tenant: …1234'], 'masked in the form')
  t.match(edit, /<input id="edit-monitor-secret_headers" name="secret_headers" type="text" value="x-tenant"/)
  t.notMatch(edit, 'acme-private')

  const fields = { name: 'Tenant', url: 'https://api.example.com/health', is_active: 'on', request_headers: shown.replace(/\n/g, '\r\n'), secret_headers: 'x-tenant' }
  t.equal((await browser.post(`/monitors/${id}/edit`, { ...fields, url: 'https://api.example.com/v2' })).statusCode, 303, 'the same origin')
  const moved = await browser.post(`/monitors/${id}/edit`, { ...fields, url: 'https://evil.example.net/' })
  t.equal(moved.statusCode, 400)
  t.match(moved.body, /<p class="error" id="edit-monitor-request_headers-error">Request headers: the secret header &quot;(X-Tenant|Authorization)&quot; must be given again for the url&#39;s new origin<\/p>/)
  t.match((await storedRow(app, id)).url, 'https://api.example.com/v2', 'nothing saved')
  const given = await browser.post(`/monitors/${id}/edit`, {
    ...fields, url: 'https://new.example.net/', request_headers: 'X-Tenant: new-tenant-9999\r\nAuthorization: Bearer fresh\r\nAccept: text/html',
  })
  t.equal(given.statusCode, 303)
  t.match(await storedRow(app, id), { url: 'https://new.example.net/', requestHeaders: { 'X-Tenant': 'new-tenant-9999', Authorization: 'Bearer fresh' } })
})

t.test('a monitor made with marks is shown with them; an ntfy token left blank does not follow a new server', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({
    name: 'Marked', url: 'https://example.com/', request_headers: { 'X-Plain': 'visible-1', 'X-Hidden': 'hidden-value-5678' }, secret_headers: ['x-hidden'],
  }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  t.same(monitor.request_headers, { 'X-Plain': 'visible-1', 'X-Hidden': '…5678' })
  t.match((await browser.get(`/monitors/${monitor.id}`)).body, '<li>X-Hidden: …5678</li>')

  const made = await browser.post('/settings/notifications', {
    type: 'ntfy',
    name: 'Phone',
    'event:incident.opened': 'on',
    is_active: 'on',
    'config/topic': 'alerts',
    'config/server_url': 'https://ntfy.example.com',
    'config/token': 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2',
  })
  t.equal(made.statusCode, 303, made.body)
  const [channel] = await app.db.select().from(notificationChannels)
  const edit = (fields: Record<string, string>) => browser.post(`/settings/notifications/${channel.id}/edit`, {
    name: 'Phone', 'event:incident.opened': 'on', is_active: 'on', 'config/topic': 'alerts', 'config/token': '', ...fields,
  })
  const moved = await edit({ 'config/server_url': 'https://ntfy.evil.example' })
  t.equal(moved.statusCode, 400)
  t.match(moved.body, '<p class="error" id="edit-channel-config/token-error">Token must be given again for the server_url&#39;s new origin</p>')
  t.equal((await edit({ 'config/server_url': 'https://ntfy.evil.example', 'config/token': 'tk_given_again' })).statusCode, 303)
})
