// The monitor form's locations: a checkbox per location, the checkers' and the agents' (none offered while there is one), the quorum,
// both as the API takes them; a refused quorum shown at its field; each location's latest check on the monitor's page.
import t from 'tap'
import { upsertBuiltin } from '../../../src/locations/repository.ts'
import { buildTestApp } from '../../helper.ts'
import { signedIn, storedRow } from '../dashboard-helper.ts'

t.test('locations and quorum chosen, refused, shown and cleared through the form', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  await upsertBuiltin(app.db, 'default', { at: app.clock(), version: '1.0.0' })
  t.notMatch((await browser.get('/')).body, 'name="location:default"', 'one location: nothing to choose')
  await upsertBuiltin(app.db, 'eu-west', { at: app.clock(), version: '1.0.0' })
  const form = await browser.get('/')
  t.match(form.body, 'name="location:default"')
  t.match(form.body, 'name="location:eu-west"', 'every built-in location is offered')
  await browser.post('/locations', { code: 'office', name: 'Office' })
  t.match((await browser.get('/')).body, /name="location:office"[^]*?office, agent, offline/, 'and the organization\'s agent locations, marked')

  const fields = { name: 'Shop', url: 'https://shop.example.com', monitor_type: 'site', is_active: 'on', locations_shown: 'on' }
  const refused = await browser.post('/monitors', { ...fields, 'location:eu-west': 'on', location_quorum: '2' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, 'Locations that must fail must be at most the number of locations (1)')
  const made = await browser.post('/monitors', { ...fields, 'location:default': 'on', 'location:eu-west': 'on', location_quorum: '2' })
  t.equal(made.statusCode, 303)
  const id = (made.headers.location as string).split('/')[2].split('?')[0]
  const row = await storedRow(app, id)
  t.same([row.locations, row.locationQuorum], [['default', 'eu-west'], 2])
  const page = await browser.get(`/monitors/${id}`)
  t.match(page.body, 'Down when 2 of 2 locations see it failing.')
  t.match(page.body, /<td>eu-west<\/td><td><span class="st st-pending">/, 'each location with its latest check')
  const edit = await browser.get(`/monitors/${id}/edit`)
  t.match(edit.body, /name="location:eu-west" type="checkbox" checked/)
  t.match(edit.body, /name="location_quorum"[^>]*value="2"/)

  const cleared = await browser.post(`/monitors/${id}/edit`, { ...fields, location_quorum: '' })
  t.equal(cleared.statusCode, 303)
  const after = await storedRow(app, id)
  t.same([after.locations, after.locationQuorum, after.locationStates], [[], null, []], 'none ticked: any one checker again')
  t.notMatch((await browser.get(`/monitors/${id}`)).body, 'locations-title')
})
