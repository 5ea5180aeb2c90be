// The dashboard in an organization of several members: the switcher, pages that show only what the role may do,
// changes refused by role (a forced POST too), and Settings, then Members.
import t from 'tap'
import { insertOrganization, upsertMember } from '../../../src/organizations/repository.ts'
import { buildTestApp, makeKey, makeMember, makeMonitor, makeUser, request } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

t.test('a viewer sees no edit controls and is refused a change; the switcher shows the other organization', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const founder = await makeUser(app)
  const acme = await insertOrganization(app.db, { name: 'Acme', slug: 'acme', ownerId: founder.user.id, now: new Date() })
  const owner = await makeKey(app, founder.user.id, 'write', undefined, acme.id)
  await upsertMember(app.db, acme.id, browser.user.id, 'viewer', new Date())
  const monitor = await makeMonitor(app, owner.auth, { name: 'Acme shop' })

  const home = await browser.get('/')
  t.match(home.body, '<select id="org-switch" name="org_id">', 'a member of two organizations gets the switcher')
  t.notMatch(home.body, 'Acme shop', 'the personal organization first')
  const switched = await browser.post('/organization', { org_id: acme.id })
  t.equal(switched.statusCode, 303)
  t.equal(switched.headers.location, '/')

  const list = await browser.get('/')
  t.match(list.body, 'Acme shop')
  t.match(list.body, '(viewer)')
  t.notMatch(list.body, 'Add a monitor', 'no create form for a viewer')
  t.notMatch(list.body, `/monitors/${monitor.id}/edit`, 'no edit link')
  const page = await browser.get(`/monitors/${monitor.id}`)
  t.equal(page.statusCode, 200)
  t.notMatch(page.body, '>Edit</a>')
  t.notMatch((await browser.get('/settings/notifications')).body, 'Add a channel')
  for (const [url, fields] of [['/monitors', { name: 'forced', url: 'https://example.com' }], [`/monitors/${monitor.id}/delete`, {}], [`/monitors/${monitor.id}/pause`, {}]] as const) {
    const forced = await browser.post(url, fields)
    t.equal(forced.statusCode, 403, `POST ${url} is refused`)
    t.match(forced.body, 'Your role in this organization (viewer) does not allow this: it takes editor or higher.')
  }
  t.equal((await browser.get(`/monitors/${monitor.id}/edit`)).statusCode, 403, 'nor the edit form')

  await upsertMember(app.db, acme.id, browser.user.id, 'editor', new Date())
  const created = await browser.post('/monitors', { name: 'made by the editor', url: 'https://example.com', monitor_type: 'site' })
  t.equal(created.statusCode, 303, 'promoted: the same change goes through')
  t.match((await browser.get('/')).body, 'Add a monitor')
  t.equal((await browser.post('/organization', { org_id: founder.orgId })).statusCode, 404, 'an organization the user is not in')
})

t.test('Settings, then Members: an admin changes a role and removes a member', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const viewer = await makeMember(app, browser.user.id, 'viewer')
  const page = await browser.get('/settings/members')
  t.equal(page.statusCode, 200)
  t.match(page.body, `${browser.user.email} <span class="muted">(you)</span>`)
  t.match(page.body, `<label for="role-${viewer.user.id}" class="vh">Role of ${viewer.user.email}</label>`)

  const saved = await browser.post(`/settings/members/${viewer.user.id}/role`, { role: 'responder' })
  t.equal(saved.headers.location, '/settings/members?notice=member-saved')
  t.match((await browser.get('/settings/members?notice=member-saved')).body, 'Role saved')
  t.match((await browser.get('/api/v1/organization/members')).statusCode, 401, 'the API wants a key, not the session')
  const last = await browser.post(`/settings/members/${browser.user.id}/role`, { role: 'admin' })
  t.equal(last.statusCode, 409)
  t.match(last.body, 'An organization keeps at least one owner')
  t.equal((await browser.post(`/settings/members/${viewer.user.id}/remove`)).headers.location, '/settings/members?notice=member-removed')
  t.notMatch((await browser.get('/settings/members')).body, viewer.user.email)

  // A viewer reads the list without the controls.
  const other = await signedIn(app)
  await upsertMember(app.db, browser.user.id, other.user.id, 'viewer', new Date())
  await other.post('/organization', { org_id: browser.user.id })
  const asViewer = await other.get('/settings/members')
  t.match(asViewer.body, browser.user.email)
  t.notMatch(asViewer.body, 'Remove')
  t.equal((await other.post(`/settings/members/${browser.user.id}/remove`)).statusCode, 403)
})

t.test('an invitation made on Settings, then Members, accepted in the dashboard by the invited user', async (t) => {
  const { app } = await buildTestApp(t)
  const admin = await signedIn(app)
  const invited = await signedIn(app)
  const made = await admin.post('/settings/members/invitations', { email: invited.user.email, role: 'editor' })
  t.equal(made.statusCode, 200)
  const url = /id="invitation-url" class="key" type="text" value="([^"]+)"/.exec(made.body)?.[1]
  t.match(url, /^http:\/\/localhost:3000\/invitations\/[\w-]{43}$/, 'the link, shown once')
  t.match((await admin.post('/settings/members/invitations', { email: 'nope', role: 'viewer' })).body, 'The invitation was not made: email must be an email address.')
  t.match((await admin.get('/settings/members')).body, `${invited.user.email} as editor`)

  const path = new URL(url!).pathname
  t.equal((await admin.get(path)).statusCode, 404, 'another signed-in user cannot use it')
  const page = await invited.get(path)
  t.equal(page.statusCode, 200)
  t.match(page.body, `You are invited to join <strong>${admin.user.email}</strong> as <strong>editor</strong>`)
  const accepted = await invited.post(path)
  t.equal(accepted.headers.location, '/?notice=invitation-accepted')
  const home = await invited.get('/')
  t.match(home.body, '(editor)', 'the session shows the organization joined')
  t.match(home.body, 'Add a monitor')
  t.equal((await invited.post(path)).statusCode, 404, 'single use')
  t.notMatch((await admin.get('/settings/members')).body, `${invited.user.email} as editor`, 'no longer waiting')

  const again = /value="(http[^"]+invitations[^"]+)"/.exec((await admin.post('/settings/members/invitations', { email: 'later@example.com', role: 'viewer' })).body)![1]
  const id = /formaction="\/settings\/members\/invitations\/([0-9a-f-]{36})\/revoke"/.exec((await admin.get('/settings/members')).body)![1]
  t.equal((await admin.post(`/settings/members/invitations/${id}/revoke`)).headers.location, '/settings/members?notice=invitation-revoked')
  t.ok(again)
})

t.test('an owner deletes a team after typing its slug; an admin is not offered it, nor is a personal organization', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const acme = await insertOrganization(app.db, { name: 'Acme', slug: 'acme', ownerId: browser.user.id, now: new Date() })
  const colleague = await makeMember(app, acme.id, 'admin')
  await makeMonitor(app, colleague.auth, { name: 'Acme shop' })
  t.notMatch((await browser.get('/settings/members')).body, 'Delete this organization', 'not the personal one')
  await browser.post('/organization', { org_id: acme.id })
  const page = await browser.get('/settings/members')
  t.match(page.body, 'Type <code>acme</code> to confirm')

  const mistyped = await browser.post('/settings/members/delete-organization', { confirm: 'acme-typo' })
  t.equal(mistyped.statusCode, 400)
  t.match(mistyped.body, 'Type the organization&#39;s slug to delete it.')
  const deleted = await browser.post('/settings/members/delete-organization', { confirm: 'acme' })
  t.equal(deleted.statusCode, 303)
  t.equal(deleted.headers.location, '/?notice=organization-deleted')
  const home = await browser.get('/?notice=organization-deleted')
  t.match(home.body, 'The organization is deleted')
  t.notMatch(home.body, 'Acme shop', 'back in the personal organization')
  t.equal((await request(app, colleague.auth, { url: '/api/v1/monitors' })).statusCode, 401, 'its keys went with it')

  const other = await signedIn(app)
  const beta = await insertOrganization(app.db, { name: 'Beta', slug: 'beta', ownerId: colleague.user.id, now: new Date() })
  await upsertMember(app.db, beta.id, other.user.id, 'admin', new Date())
  await other.post('/organization', { org_id: beta.id })
  t.notMatch((await other.get('/settings/members')).body, 'Delete this organization', 'not for an admin')
  t.equal((await other.post('/settings/members/delete-organization', { confirm: 'beta' })).statusCode, 403)
})
