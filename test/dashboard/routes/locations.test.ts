// The locations page: each location's status in an icon and a word, last seen and version; an admin adds an agent
// location (its token shown once, then gone), rotates its token and deletes it, refused with the API's words; an editor
// reads the page without its controls.
import t from 'tap'
import { upsertBuiltin } from '../../../src/locations/repository.ts'
import { upsertMember } from '../../../src/organizations/repository.ts'
import { buildTestApp, makeKey, makeUser, request } from '../../helper.ts'
import { cookieOf, signedIn } from '../dashboard-helper.ts'

const hello = (app: Parameters<typeof request>[0], token: string) =>
  app.inject({ method: 'POST', url: '/api/v1/agent/hello', headers: { authorization: `Bearer ${token}` }, payload: { version: '9.8.7' } })

t.test('an admin adds an agent location, sees its token once, rotates it and deletes the location', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await upsertBuiltin(app.db, 'default', { at: new Date(), version: '0.1.0' })
  const browser = await signedIn(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'admin', new Date())
  await browser.post('/organization', { org_id: owner.orgId })

  const first = await browser.get('/locations')
  t.equal(first.statusCode, 200)
  t.match(first.body, '<a href="/locations" aria-current="page">Locations</a>', 'in the navigation, as the current page')
  t.match(first.body, /<td class="name">default<span class="url"><code>default<\/code><\/span><\/td>\s*<td>Built-in checker<\/td><td><span class="st st-up"><span aria-hidden="true">●<\/span> Online<\/span>/)
  t.match(first.body, '<td>0.1.0</td>')
  t.notMatch(first.body, 'Rotate the token of default', 'a built-in location has no controls')

  const refused = await browser.post('/locations', { code: 'Office Berlin', name: 'Berlin office' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, 'Code must be 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit')
  t.match(refused.body, 'value="Berlin office"', 'what was typed is kept')
  const builtin = await browser.post('/locations', { code: 'default', name: 'Mine' })
  t.equal(builtin.statusCode, 409)
  t.match(builtin.body, 'Code: default is the code of a built-in location: choose another')

  const made = await browser.post('/locations', { code: 'office-berlin', name: 'Berlin office' })
  t.equal(made.statusCode, 303)
  t.equal(made.headers.location, '/locations')
  const cookie = cookieOf(made, 'pw_new_agent_token')!
  const shown = await app.inject({ url: '/locations', headers: { cookie: `${browser.cookie}; pw_new_agent_token=${cookie}` } })
  const token = /id="new-token-value" class="key" type="text" value="(pwa_[0-9A-Za-z]{38})"/.exec(shown.body)?.[1]
  t.ok(token, 'the token is shown')
  t.match(shown.body, 'Copy it now: it will not be shown again.')
  t.match(shown.body, /<span class="st st-pending"><span aria-hidden="true">○<\/span> Never seen<\/span>/, 'never seen yet')
  t.equal(cookieOf(shown, 'pw_new_agent_token'), '', 'the cookie is cleared')
  t.notMatch((await browser.get('/locations')).body, token!, 'and the token gone on the next visit')

  t.equal((await hello(app, token!)).statusCode, 200)
  const seen = (await browser.get('/locations')).body
  t.match(seen, /<td class="name">Berlin office<span class="url"><code>office-berlin<\/code><\/span><\/td>\s*<td>Agent<\/td><td><span class="st st-up"><span aria-hidden="true">●<\/span> Online<\/span><\/td><td><time [^>]*data-ago>just now<\/time><\/td>\s*<td><span class="muted">No checks<\/span>.*?<\/td>\s*<td>9.8.7<\/td>/)

  const rotated = await browser.post('/locations/office-berlin/rotate-token', {})
  t.equal(rotated.statusCode, 303)
  const again = await app.inject({ url: '/locations', headers: { cookie: `${browser.cookie}; pw_new_agent_token=${cookieOf(rotated, 'pw_new_agent_token')}` } })
  const second = /id="new-token-value" class="key" type="text" value="(pwa_[0-9A-Za-z]{38})"/.exec(again.body)?.[1]
  t.ok(second && second !== token, 'a new token, shown once')
  t.equal((await hello(app, token!)).statusCode, 401, 'the old one is refused')
  t.equal((await hello(app, second!)).statusCode, 200)
  // An old cookie shows nothing once its token is no longer the location's.
  t.notMatch((await app.inject({ url: '/locations', headers: { cookie: `${browser.cookie}; pw_new_agent_token=${cookie}` } })).body, token!)

  const events = (await request(app, owner.auth, { url: '/api/v1/audit-events?entity_type=location' })).json().data
  t.match(events, [{ action: 'location.token_rotated', actor: { type: 'user', label: browser.user.email } }, { action: 'location.created' }])

  const deleted = await browser.post('/locations/office-berlin/delete', {})
  t.equal(deleted.statusCode, 303)
  t.match((await browser.get(deleted.headers.location as string)).body, 'Location deleted: its agent&#39;s token is refused from now on.')
  t.equal((await hello(app, second!)).statusCode, 401)
  t.equal((await browser.post('/locations/office-berlin/delete', {})).statusCode, 404)
  const kept = await browser.post('/locations/default/delete', {})
  t.equal(kept.statusCode, 409)
  t.match(kept.body, 'That location is built in')
})

t.test('a member below admin (an editor) reads the locations without the controls, and may not change them', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'lab', name: 'Lab' } })
  const browser = await signedIn(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'editor', new Date())
  await browser.post('/organization', { org_id: owner.orgId })
  const page = await browser.get('/locations')
  t.equal(page.statusCode, 200)
  t.match(page.body, 'Lab')
  t.notMatch(page.body, 'Add an agent location')
  t.notMatch(page.body, 'Rotate the token of Lab')
  for (const url of ['/locations', '/locations/lab/rotate-token', '/locations/lab/delete']) {
    t.equal((await browser.post(url, { code: 'x1', name: 'x' })).statusCode, 403, url)
  }
  t.match((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data, [{ code: 'lab' }], 'nothing changed')
})

t.test('each location\'s lag: the median of how late its checks of the organization\'s monitors started after their slots', async (t) => {
  const created = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  const clock = { now: created }
  const { app } = await buildTestApp(t, { clock: () => clock.now })
  await upsertBuiltin(app.db, 'default', { at: created, version: '0.1.0' })
  const browser = await signedIn(app)
  const made = await browser.post('/locations', { code: 'office', name: 'Office' })
  const token = /pwa_[0-9A-Za-z]{38}/.exec(decodeURIComponent(cookieOf(made, 'pw_new_agent_token')!))![0]
  const { auth } = await makeKey(app, browser.user.id)
  const monitor = (await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'Shop', url: 'https://shop.example.com/', locations: ['office'], interval_minutes: 1 } })).json().data
  clock.now = new Date(created.getTime() + 4 * 60_000)
  const at = (ms: number) => new Date(created.getTime() + ms).toISOString()
  const results = [[60_000, 250], [120_000, 300], [180_000, 4000]].map(([slot, late]) =>
    ({ monitor_id: monitor.id, slot_at: at(slot), checked_at: at(slot + late), is_up: true, status_code: 200, response_time_ms: 40, error_message: null }))
  const posted = await app.inject({ method: 'POST', url: '/api/v1/agent/results', headers: { authorization: `Bearer ${token}` }, payload: { results } })
  t.equal(posted.json().data.recorded, 3, posted.body)

  const page = (await browser.get('/locations')).body
  t.match(page, '<th scope="col">Lag</th>')
  t.match(page, /<code>office<\/code>.*?<td>300 ms<span class="muted"> \(3 checks\)<\/span><\/td>/s, 'the median of 250, 300 and 4,000 ms')
  t.match(page, /<code>default<\/code>.*?<td><span class="muted">No checks<\/span><span class="vh"> in the last 10 minutes<\/span><\/td>/s)
})
