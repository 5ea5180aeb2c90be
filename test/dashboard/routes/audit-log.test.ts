// Settings, then Audit log: a change made in the dashboard is recorded with the member as its actor, and the page
// and its link are for admins and up.
import t from 'tap'
import { upsertMember } from '../../../src/organizations/repository.ts'
import { buildTestApp, makeKey, makeUser, request } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

t.test('a change in the dashboard is in the audit log, by the member who made it', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const created = await browser.post('/monitors', { name: 'Shop <b>', url: 'https://shop.example.com' })
  t.equal(created.statusCode, 303)

  const page = await browser.get('/settings/audit-log')
  t.equal(page.statusCode, 200)
  t.match(page.body, 'href="/settings/audit-log" aria-current="page"')
  t.match(page.body, '<code>monitor.created</code>')
  t.match(page.body, `${browser.user.email} <span class="muted">(user)</span>`)
  t.match(page.body, 'Shop &lt;b&gt;', 'values are escaped')

  const owner = await makeUser(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'admin', new Date())
  const api = await request(app, owner.auth, { url: '/api/v1/audit-events' })
  t.same(api.json().data, [], 'the other organization has none of it')
  const mine = (await request(app, (await makeKey(app, browser.user.id)).auth, { url: '/api/v1/audit-events' })).json().data
  t.match(mine[0], { action: 'monitor.created', actor: { type: 'user', id: browser.user.id, label: browser.user.email } })
  t.match(mine[0].request_id, /^[0-9a-f-]{36}$/)
})

t.test('an editor has no audit log', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const owner = await makeUser(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'editor', new Date())
  await browser.post('/organization', { org_id: owner.orgId })
  t.notMatch((await browser.get('/settings/members')).body, '/settings/audit-log', 'no link')
  t.equal((await browser.get('/settings/audit-log')).statusCode, 403)
})
