// Labels and dependencies (api-contract section 15): labels in the full record and as list filters; depends_on
// refused across organizations, on itself and in cycles; a dependent's incident while a parent is down is kept,
// suppressed and told to no one, its end too; the parent's messages count the dependents down.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { sendDueReminders } from '../../src/notifications/reminders.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })
const passed = (checkedAt: Date) => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt })

t.test('labels: in the full record, not in list items; ?label= filters by value or key, all of them', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const shop = await makeMonitor(app, owner.auth, { name: 'Shop', labels: { env: 'prod', team: 'payments' } })
  const api = await makeMonitor(app, owner.auth, { name: 'API', labels: { env: 'prod', 'k8s.io/app': 'api' } })
  const staging = await makeMonitor(app, owner.auth, { name: 'Staging', labels: { env: 'staging', team: 'payments' } })
  await makeMonitor(app, owner.auth, { name: 'Bare' })
  t.same(shop.labels, { env: 'prod', team: 'payments' })
  const names = async (query: string) => {
    const res = await request(app, owner.auth, { url: `/api/v1/monitors?${query}` })
    t.equal(res.statusCode, 200, query)
    return res.json().data.map((m: { name: string }) => m.name).sort()
  }
  t.same(await names('label=env:prod'), ['API', 'Shop'])
  t.same(await names('label=team'), ['Shop', 'Staging'], 'a key alone: any value')
  t.same(await names('label=env:prod&label=team:payments'), ['Shop'], 'repeated: all must match')
  t.same(await names('label=k8s.io/app:api'), ['API'])
  t.same(await names('label=env:prod&limit=1').then((page) => page.length), 1, 'with paging')
  const list = (await request(app, owner.auth, { url: '/api/v1/monitors?label=env:prod' })).json().data
  t.same(Object.keys(list[0]).sort(), ['id', 'interval_minutes', 'is_active', 'last_checked_at', 'monitor_type', 'name', 'status', 'url'],
    'list items keep exactly the specification\'s eight fields')

  const bad = async (payload: Record<string, unknown>, url = '/api/v1/monitors', method: 'POST' | 'PATCH' = 'POST') =>
    (await request(app, owner.auth, { method, url, payload: { name: 'x', url: 'https://example.com', ...payload } })).json().error
  t.equal(await bad({ labels: { Env: 'prod' } }), 'body/labels/Env is not allowed', 'a key outside a-z 0-9 _ . - /')
  t.equal(await bad({ labels: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }), 'body/labels must NOT have more than 20 properties')
  t.equal(await bad({ labels: { env: 'x'.repeat(256) } }), 'body/labels/env must NOT have more than 255 characters')
  const query = await request(app, owner.auth, { url: '/api/v1/monitors?label=Bad Key' })
  t.same([query.statusCode, query.json().error], [400, 'querystring/label/0 must be key:value or key (a key is 1-63 of a-z 0-9 _ . - /)'])
  const patched = await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${staging.id}`, payload: { labels: { env: 'prod' } } })
  t.same(patched.json().data.labels, { env: 'prod' }, 'a PATCH replaces the labels')
  t.same(await names('label=env:prod'), ['API', 'Shop', 'Staging'])
  t.same(api.labels, { env: 'prod', 'k8s.io/app': 'api' })
})

t.test('depends_on: the organization\'s other monitors, no cycles; a deleted parent leaves its dependents', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const stranger = await makeUser(app)
  const router = await makeMonitor(app, owner.auth, { name: 'Router' })
  const db = await makeMonitor(app, owner.auth, { name: 'Database', depends_on: [router.id] })
  const shop = await makeMonitor(app, owner.auth, { name: 'Shop', depends_on: [db.id] })
  t.same(shop.depends_on, [db.id])
  const theirs = await makeMonitor(app, stranger.auth, { name: 'Theirs' })
  const create = (dependsOn: string[]) => request(app, owner.auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com', depends_on: dependsOn } })
  const patch = (id: string, dependsOn: string[]) => request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: { depends_on: dependsOn } })
  t.same((await create([theirs.id])).json(), { error: 'body/depends_on/0 must be the id of another monitor of the organization' })
  t.same((await create([router.id, '0b9e8d7c-6a5b-4c3d-9e2f-000000000000'])).json(), { error: 'body/depends_on/1 must be the id of another monitor of the organization' })
  t.same((await patch(router.id, [router.id])).json(), { error: 'body/depends_on/0 is the monitor itself: a monitor cannot depend on itself' })
  const cycle = await patch(router.id, [shop.id])
  t.same([cycle.statusCode, cycle.json()], [400, { error: 'body/depends_on would make a cycle: Router → Shop → Database → Router' }])
  t.same((await request(app, owner.auth, { url: `/api/v1/monitors/${router.id}` })).json().data.depends_on, [], 'nothing changed')
  const events = (await request(app, owner.auth, { url: `/api/v1/audit-events?entity_id=${shop.id}` })).json().data
  t.same(events[0].changes.depends_on, [null, [db.id]], 'audited')

  t.equal((await request(app, owner.auth, { method: 'DELETE', url: `/api/v1/monitors/${db.id}` })).statusCode, 204)
  t.same((await request(app, owner.auth, { url: `/api/v1/monitors/${shop.id}` })).json().data.depends_on, [], 'a deleted parent is forgotten')
})

t.test('a dependent\'s incident while its parent is down is suppressed, told to no one; the parent counts it', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: 'https://example.com/hook' }, all_monitors: true, reminder_minutes: 5 },
  })
  const router = await makeMonitor(app, owner.auth, { name: 'Router', failure_threshold: 1, recovery_threshold: 1 })
  const shop = await makeMonitor(app, owner.auth, { name: 'Shop', failure_threshold: 1, recovery_threshold: 1, depends_on: [router.id] })
  const told = async () => rowsOf<{ type: string, monitor_id: string, dependents: number | null }>(await app.db.execute(sql`
    select e.type, e.monitor_id, (e.payload->'data'->>'dependents_down')::int as dependents from notification_events e
    join notification_deliveries d on d.event_id = e.id order by e.created_at, e.type`))
  const incidentOf = async (id: string) => (await request(app, owner.auth, { url: `/api/v1/monitors/${id}/incidents` })).json().data[0]

  const start = new Date()
  await recordCheck(app.db, router.id, failed(start), 30_000)
  await recordCheck(app.db, shop.id, failed(start), 30_000)
  const parent = await incidentOf(router.id)
  const child = await incidentOf(shop.id)
  t.equal(child.suppressed_by, parent.id, 'the dependent\'s incident names the parent\'s')
  t.equal(parent.suppressed_by, null)
  t.same((await told()).map((e) => [e.type, e.monitor_id]), [['incident.opened', router.id]], 'only the parent\'s opening is told')
  t.equal(await sendDueReminders(app.db, new Date(start.getTime() + 10 * 60_000)), 1, 'a reminder for the parent only')
  const reminder = (await told()).find((e) => e.type === 'incident.reminder')!
  t.same([reminder.monitor_id, reminder.dependents], [router.id, 1], 'it counts the dependent that is down')

  await recordCheck(app.db, shop.id, passed(new Date()), 30_000)
  t.equal((await incidentOf(shop.id)).status, 'resolved')
  t.notOk((await told()).some((e) => e.monitor_id === shop.id), 'its end is told to no one either')
  await recordCheck(app.db, router.id, passed(new Date()), 30_000)
  t.ok((await told()).some((e) => e.type === 'incident.resolved' && e.monitor_id === router.id), 'the parent\'s end is told')

  await recordCheck(app.db, shop.id, failed(new Date()), 30_000)
  t.equal((await incidentOf(shop.id)).suppressed_by, null, 'the parent up: a dependent\'s incident is told as any')
  t.ok((await told()).some((e) => e.type === 'incident.opened' && e.monitor_id === shop.id))
})

t.test('a parent that goes down as its dependents start failing sends one message, naming them', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: 'https://example.com/hook' }, all_monitors: true },
  })
  const router = await makeMonitor(app, owner.auth, { name: 'Router', failure_threshold: 1 })
  const shops = [await makeMonitor(app, owner.auth, { name: 'Shop', failure_threshold: 2, depends_on: [router.id] }),
    await makeMonitor(app, owner.auth, { name: 'Blog', failure_threshold: 2, depends_on: [router.id] })]
  const start = Date.now()
  // The dependents' first failures come a moment before the router's: not down yet, but failing.
  for (const shop of shops) await recordCheck(app.db, shop.id, failed(new Date(start)), 30_000)
  await recordCheck(app.db, router.id, failed(new Date(start + 1000)), 30_000)
  for (const shop of shops) await recordCheck(app.db, shop.id, failed(new Date(start + 30_000)), 30_000)
  const told = rowsOf<{ type: string, monitor_id: string, dependents: number | null }>(await app.db.execute(sql`
    select e.type, e.monitor_id, (e.payload->'data'->>'dependents_down')::int as dependents from notification_events e
    join notification_deliveries d on d.event_id = e.id`))
  t.same(told, [{ type: 'incident.opened', monitor_id: router.id, dependents: 2 }], 'one message: the router down, two dependents with it')
})
