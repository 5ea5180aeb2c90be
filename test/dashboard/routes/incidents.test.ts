// The incident page: its timeline, Acknowledge and notes for responders, read-only for viewers; a note the API
// refuses is refused here with the API's words, next to its field.
import t from 'tap'
import { recordCheck } from '../../../src/checks/record-check.ts'
import { upsertMember } from '../../../src/organizations/repository.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../../helper.ts'
import { failedCheck, signedIn } from '../dashboard-helper.ts'

t.test('a responder acknowledges and notes an incident from its page; a viewer only reads it', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const monitor = await makeMonitor(app, owner.auth, { name: 'Shop', failure_threshold: 1 })
  await recordCheck(app.db, monitor.id, failedCheck(new Date()), 30_000)
  const [incident] = (await request(app, owner.auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data

  const browser = await signedIn(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'viewer', new Date())
  await browser.post('/organization', { org_id: owner.orgId })
  const monitorPage = await browser.get(`/monitors/${monitor.id}`)
  t.match(monitorPage.body, `href="/incidents/${incident.id}"`, 'the monitor page links its incidents')
  const read = await browser.get(`/incidents/${incident.id}`)
  t.equal(read.statusCode, 200)
  t.match(read.body, 'Opened: expected status 200, got 503')
  t.notMatch(read.body, 'Acknowledge</button>', 'a viewer has no Acknowledge button')
  t.notMatch(read.body, 'Add note', 'nor a note form')
  t.equal((await browser.post(`/incidents/${incident.id}/acknowledge`, {})).statusCode, 403)

  await upsertMember(app.db, owner.orgId, browser.user.id, 'responder', new Date())
  t.match((await browser.get(`/incidents/${incident.id}`)).body, 'Acknowledge</button>')
  const acknowledged = await browser.post(`/incidents/${incident.id}/acknowledge`, {})
  t.equal(acknowledged.statusCode, 303)
  const after = await browser.get(acknowledged.headers.location as string)
  t.match(after.body, `Acknowledged by ${browser.user.email}`)
  t.notMatch(after.body, 'Acknowledge</button>', 'acknowledged once: the button is gone')

  const blank = await browser.post(`/incidents/${incident.id}/notes`, { body: '  ' })
  t.equal(blank.statusCode, 400)
  t.match(blank.body, 'Note must be 1-10000 characters and not blank')
  const noted = await browser.post(`/incidents/${incident.id}/notes`, { body: 'Restarted <the> pool' })
  t.equal(noted.statusCode, 303)
  const page = await browser.get(`/incidents/${incident.id}`)
  t.match(page.body, `${browser.user.email} wrote: <span class="note">Restarted &lt;the&gt; pool</span>`, 'escaped')
  const api = (await request(app, owner.auth, { url: `/api/v1/incidents/${incident.id}` })).json().data
  t.match(api.acknowledged_by, { type: 'user', id: browser.user.id, label: browser.user.email })
  t.equal((await browser.get('/incidents/0b9e8d7c-6a5b-4c3d-9e2f-000000000000')).statusCode, 404)
})
