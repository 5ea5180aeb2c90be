// The maintenance page: a calendar of occurrences in each window's zone, a new window from wall-clock times in its
// zone, refused with the API's words next to the field, start and end now for responders, cancel for editors.
import t from 'tap'
import { upsertMember } from '../../../src/organizations/repository.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

t.test('an editor makes a recurring window from wall-clock times; the calendar shows its occurrences in its zone', async (t) => {
  const start = new Date('2026-12-01T09:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => start })
  const owner = await makeUser(app)
  const monitor = await makeMonitor(app, owner.auth, { name: 'Shop' })
  const browser = await signedIn(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'editor', new Date())
  await browser.post('/organization', { org_id: owner.orgId })

  const empty = await browser.get('/maintenance')
  t.equal(empty.statusCode, 200)
  t.match(empty.body, 'Nothing is scheduled in the next 30 days.')

  const refused = await browser.post('/maintenance', { title: 'Upgrade', ends_at: '2026-12-06T04:00', timezone: 'Europe/Berlin', rrule: 'FREQ=HOURLY' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, 'Repeats (RRULE): FREQ must be DAILY, WEEKLY or MONTHLY', 'the API\'s message, under the field\'s label')
  const uncovered = await browser.post('/maintenance', { title: 'Upgrade', starts_at: '2026-12-06T02:00', ends_at: '2026-12-06T04:00', timezone: 'Europe/Berlin' })
  t.match(uncovered.body, 'Monitors must name a monitor, unless all_monitors is true or label_selector is given')

  const made = await browser.post('/maintenance', {
    title: 'Upgrade', starts_at: '2026-12-06T02:00', ends_at: '2026-12-06T04:00', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;BYDAY=SU', mode: 'pause', [`monitor:${monitor.id}`]: 'on',
  })
  t.equal(made.statusCode, 303)
  const [window] = (await request(app, owner.auth, { url: '/api/v1/maintenance-windows' })).json().data
  t.match(window, { title: 'Upgrade', starts_at: '2026-12-06T01:00:00.000Z', ends_at: '2026-12-06T03:00:00.000Z', monitor_ids: [monitor.id], mode: 'pause', state: 'scheduled' },
    '02:00 in Berlin is 01:00 UTC')
  const page = await browser.get(made.headers.location as string)
  t.match(page.body, 'Maintenance window saved.')
  for (const day of ['Sun, 6 Dec 2026', 'Sun, 13 Dec 2026', 'Sun, 20 Dec 2026', 'Sun, 27 Dec 2026']) t.match(page.body, `<h3>${day}</h3>`, `${day} in the calendar`)
  t.match(page.body, '02:00–04:00 <span class="muted">Europe/Berlin</span>')
  t.match(page.body, '(checks paused)')

  const started = await browser.post(`/maintenance/${window.id}/start`, {})
  t.equal(started.statusCode, 303)
  t.match((await browser.get('/maintenance')).body, 'End ' + 'Upgrade now')
  t.equal((await request(app, owner.auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data.in_maintenance, true)
  t.equal((await browser.post(`/maintenance/${window.id}/end`, {})).statusCode, 303)
  const again = await browser.post(`/maintenance/${window.id}/end`, {})
  t.equal(again.statusCode, 409)
  t.match(again.body, 'That window is not under way')
  t.equal((await browser.post(`/maintenance/${window.id}/cancel`, {})).statusCode, 303)
  t.match((await request(app, owner.auth, { url: `/api/v1/maintenance-windows/${window.id}` })).json().data, { state: 'cancelled' })
  t.equal((await browser.post(`/maintenance/${window.id}/delete`, {})).statusCode, 303)
  t.equal((await browser.post(`/maintenance/${window.id}/delete`, {})).statusCode, 404)
})

t.test('a viewer reads the page without its buttons; a responder starts and ends, and does not make or cancel', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await makeMonitor(app, owner.auth)
  const window = (await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/maintenance-windows', payload: { title: 'Deploy', all_monitors: true, starts_at: new Date(Date.now() + 3_600_000).toISOString(), ends_at: new Date(Date.now() + 7_200_000).toISOString() },
  })).json().data
  const browser = await signedIn(app)
  await upsertMember(app.db, owner.orgId, browser.user.id, 'viewer', new Date())
  await browser.post('/organization', { org_id: owner.orgId })
  const read = await browser.get('/maintenance')
  t.match(read.body, 'Deploy')
  t.notMatch(read.body, 'Start Deploy now')
  t.notMatch(read.body, 'New maintenance window')
  t.equal((await browser.post(`/maintenance/${window.id}/start`, {})).statusCode, 403)

  await upsertMember(app.db, owner.orgId, browser.user.id, 'responder', new Date())
  t.match((await browser.get('/maintenance')).body, 'Start Deploy now')
  t.equal((await browser.post(`/maintenance/${window.id}/start`, {})).statusCode, 303)
  t.equal((await browser.post(`/maintenance/${window.id}/cancel`, {})).statusCode, 403)
  t.equal((await browser.post('/maintenance', { title: 'x' })).statusCode, 403)
  t.equal((await browser.post(`/maintenance/${window.id}/end`, {})).statusCode, 303)
})
