// The operator's caps per owner: MAX_MONITORS_PER_OWNER and MAX_CHANNELS_PER_OWNER. Over the cap a create
// is a 409 naming the limit, on the API and the dashboard's forms; deleted monitors do not count; two
// creates at once at one below the cap make exactly one.
import t, { type Test } from 'tap'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { signedIn } from '../dashboard/dashboard-helper.ts'

const MONITORS = 'Monitor limit reached: at most 3 monitors per organization (the operator\'s MAX_MONITORS_PER_OWNER); delete one to make room'
const CHANNELS = 'Notification channel limit reached: at most 2 channels per organization (the operator\'s MAX_CHANNELS_PER_OWNER); delete one to make room'

const channel = (name: string) => ({ name, type: 'webhook', config: { url: 'https://example.com/hooks/pingward' } })

async function setup (t: Test) {
  const { app } = await buildTestApp(t, { env: { MAX_MONITORS_PER_OWNER: '3', MAX_CHANNELS_PER_OWNER: '2' } })
  return app
}

t.test('monitors: the cap\'s create is a 409 naming the limit; a deleted one makes room; other users have their own', async (t) => {
  const app = await setup(t)
  const { auth } = await makeUser(app)
  const made = []
  for (let i = 0; i < 3; i++) made.push(await makeMonitor(app, auth, { name: `m${i}` }))
  const over = await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'm3', url: 'https://example.com/' } })
  t.equal(over.statusCode, 409)
  t.same(over.json(), { error: MONITORS })
  const withKey = await request(app, auth, {
    method: 'POST', url: '/api/v1/monitors', headers: { 'idempotency-key': '"k1"' }, payload: { name: 'm3', url: 'https://example.com/' },
  })
  t.same([withKey.statusCode, withKey.json()], [409, { error: MONITORS }], 'with an Idempotency-Key too')
  t.equal((await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${made[0].id}` })).statusCode, 204)
  t.equal((await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'm3', url: 'https://example.com/' } })).statusCode, 201,
    'a deleted monitor does not count')
  const other = await makeUser(app)
  t.ok(await makeMonitor(app, other.auth), 'another user\'s count is their own')
})

t.test('monitors: two creates at once at one below the cap make exactly one', async (t) => {
  const app = await setup(t)
  const { auth } = await makeUser(app)
  for (let i = 0; i < 2; i++) await makeMonitor(app, auth, { name: `m${i}` })
  const post = () => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'race', url: 'https://example.com/' } })
  const statuses = (await Promise.all([post(), post()])).map((res) => res.statusCode).sort()
  t.same(statuses, [201, 409])
  t.equal((await request(app, auth, { url: '/api/v1/monitors' })).json().data.length, 3)
})

t.test('channels: the cap\'s create is a 409 naming the limit; a deleted one makes room; two at once make one', async (t) => {
  const app = await setup(t)
  const { auth } = await makeUser(app)
  const post = (name: string) => request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload: channel(name) })
  const first = await post('c0')
  t.equal(first.statusCode, 201)
  const statuses = (await Promise.all([post('c1'), post('c2')])).map((res) => res.statusCode).sort()
  t.same(statuses, [201, 409], 'two at once at one below the cap')
  const over = await post('c3')
  t.same([over.statusCode, over.json()], [409, { error: CHANNELS }])
  t.equal((await request(app, auth, { method: 'DELETE', url: `/api/v1/notification-channels/${first.json().data.id}` })).statusCode, 204)
  t.equal((await post('c4')).statusCode, 201, 'a deleted channel does not count')
})

t.test('the dashboard\'s create forms show the limit', async (t) => {
  const app = await setup(t)
  const browser = await signedIn(app)
  for (let i = 0; i < 3; i++) t.equal((await browser.post('/monitors', { name: `m${i}`, url: 'https://example.com/' })).statusCode, 303)
  const monitor = await browser.post('/monitors', { name: 'm3', url: 'https://example.com/' })
  t.equal(monitor.statusCode, 409)
  t.match(monitor.body, MONITORS.replaceAll('\'', '&#39;'))
  const form = { type: 'webhook', name: 'hook', 'event:incident.opened': 'on', 'config/url': 'https://example.com/hooks/pingward' }
  for (let i = 0; i < 2; i++) t.equal((await browser.post('/settings/notifications', form)).statusCode, 303)
  const hook = await browser.post('/settings/notifications', form)
  t.equal(hook.statusCode, 409)
  t.match(hook.body, CHANNELS.replaceAll('\'', '&#39;'))
})
