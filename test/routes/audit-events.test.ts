// The audit log (api-contract section 12): every API route that changes something writes its event in the change's
// transaction. The routes come from the app's own route table, so a write route added later is covered as well.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { AUDIT_ACTIONS } from '../../src/domain/vocabulary.ts'
import { buildTestApp, makeMember, makeUser, request } from '../helper.ts'
import { bodyFor, isOrganizationDelete, keyedRoutes, makeTarget, openApi, organizationState, urlOf, walkedAppEnv } from '../support/api-routes.ts'
import { targetServer } from '../support/target-server.ts'

const READS = new Set(['GET', 'HEAD'])

type AuditEvent = { id: string, action: string, entity_type: string, entity_id: string, actor: { type: string, id: string | null, label: string }, changes: Record<string, [unknown, unknown]>, request_id: string | null, ip: string | null }

t.test('every write route records one event with its request, or, when the event cannot be written, changes nothing', async (t) => {
  const { app } = await buildTestApp(t, { env: await walkedAppEnv(t) })
  const receiver = await targetServer(t, (_req, res) => { res.writeHead(204).end() })
  const doc = await openApi(app)
  const owner = await makeUser(app)
  const events = async (query = '') => (await request(app, owner.auth, { url: `/api/v1/audit-events?limit=100${query}` })).json().data as AuditEvent[]
  // Deleting the organization takes its audit log with it (the server's log records who did).
  const writes = keyedRoutes(app).filter((route) => !READS.has(route.method) && !isOrganizationDelete(route))
  t.ok(writes.length >= 15, `${writes.length} write routes`)

  for (const route of writes) {
    const name = `${route.method} ${route.path}`
    const caller = await makeMember(app, owner.orgId, 'owner')
    const payload = await bodyFor(app, doc, route, owner, caller.user.email)
    const target = await makeTarget(app, owner, route, receiver.url)
    const url = urlOf(route, target)
    const res = await app.inject({ method: route.method as 'POST', url, headers: caller.auth, ...(payload ? { payload } : {}) })
    t.ok(res.statusCode >= 200 && res.statusCode < 300, `${name} answers ${res.statusCode} ${res.body}`)
    const mine = (await events(`&actor_id=${caller.keyId}`)).filter((e) => e.request_id === res.headers['x-request-id'])
    t.ok(mine.length >= 1, `${name}: its event carries the request's id`)
    for (const event of mine) {
      t.ok(AUDIT_ACTIONS.includes(event.action as never), `${name}: ${event.action}`)
      t.equal(event.entity_type, event.action.split('.')[0], `${name}: the entity is the action's`)
      t.match(event.actor, { type: 'api_key', id: caller.keyId, label: /^member \(sk_\w+…\)$/ }, `${name}: the key is the actor`)
      t.equal(event.ip, '127.0.0.1')
    }
  }

  // An event that cannot be written takes its change with it: the same transaction. Everything to call is made first.
  const calls = []
  for (const route of writes) {
    const caller = await makeMember(app, owner.orgId, 'owner')
    const payload = await bodyFor(app, doc, route, owner, caller.user.email)
    const target = await makeTarget(app, owner, route, receiver.url)
    calls.push({ name: `${route.method} ${route.path}`, method: route.method as 'POST', url: urlOf(route, target), headers: caller.auth, payload })
  }
  await app.db.execute(sql`update organizations set name = 'Before', slug = ${`before-${owner.orgId}`} where id = ${owner.orgId}`)
  await app.db.execute(sql.raw('create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception \'audit refused\'; end $$'))
  await app.db.execute(sql.raw('create trigger refuse_audit before insert on audit_events for each row execute function refuse_audit()'))
  t.teardown(async () => { await app.db.execute(sql.raw('drop trigger if exists refuse_audit on audit_events')) })
  for (const { name, payload, ...call } of calls) {
    const before = await organizationState(app, owner.orgId)
    const res = await app.inject({ ...call, ...(payload ? { payload } : {}) })
    t.equal(res.statusCode, 500, `${name} fails without its event`)
    t.equal(await organizationState(app, owner.orgId), before, `${name} changed nothing`)
  }
})

t.test('a change that rolls back leaves no event; an update that changes nothing writes none', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const other = await makeUser(app)
  const count = async () => (await request(app, owner.auth, { url: '/api/v1/audit-events' })).json().data.length as number
  const theirs = await request(app, other.auth, { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'x', type: 'webhook', config: { url: 'https://hooks.example.com/x' } } })
  const refused = await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/monitors', payload: { name: 'Shop', url: 'https://shop.example.com', notification_channel_ids: [theirs.json().data.id] },
  })
  t.equal(refused.statusCode, 400, 'another organization\'s channel is refused after the monitor was inserted')
  t.equal(await count(), 0, 'and no event is left of it')
  const admin = await makeMember(app, owner.orgId, 'admin')
  const lastOwner = await request(app, admin.auth, { method: 'PATCH', url: `/api/v1/organization/members/${owner.user.id}`, payload: { role: 'viewer' } })
  t.equal(lastOwner.statusCode, 403)
  t.equal(await count(), 0)

  const created = await request(app, owner.auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'Shop', url: 'https://shop.example.com' } })
  await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${created.json().data.id}`, payload: { name: 'Shop' } })
  t.equal(await count(), 1, 'only the create')
})

t.test('events show field changes with secrets masked, filter, page and stay in their organization', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const stranger = await makeUser(app)
  const secret = 'Bearer a-very-secret-token-1234'
  const created = await request(app, owner.auth, {
    method: 'POST',
    url: '/api/v1/monitors',
    payload: { name: 'API', url: 'https://api.example.com', request_headers: { authorization: secret } },
  })
  const id = created.json().data.id
  await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload: { interval_minutes: 1, is_active: false } })
  const channel = await request(app, owner.auth, { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'ops', type: 'slack', config: { webhook_url: 'https://hooks.slack.com/services/T000/B000/abcdefghijkl' } } })
  await request(app, owner.auth, { method: 'DELETE', url: `/api/v1/notification-channels/${channel.json().data.id}` })

  const all = await request(app, owner.auth, { url: '/api/v1/audit-events' })
  t.equal(all.statusCode, 200)
  const events = all.json().data as AuditEvent[]
  t.same(events.map((e) => e.action), ['notification_channel.deleted', 'notification_channel.created', 'monitor.updated', 'monitor.created'], 'newest first')
  t.notOk(all.body.includes('a-very-secret-token') || all.body.includes('abcdefghijkl'), 'no secret whole')
  t.same(events[3].changes.request_headers, [null, { authorization: '…1234' }], 'a header secret masked')
  t.same(events[2].changes, { interval_minutes: [5, 1], is_active: [true, false] }, 'only the fields that changed')
  t.same(events[0].changes.config, [{ webhook_url: '…ijkl' }, null], 'a config secret masked')

  const filtered = await request(app, owner.auth, { url: `/api/v1/audit-events?entity_type=monitor&entity_id=${id}&action=monitor.updated` })
  t.same(filtered.json().data.map((e: AuditEvent) => e.id), [events[2].id])
  t.same((await request(app, owner.auth, { url: `/api/v1/audit-events?actor_id=${stranger.keyId}` })).json().data, [])

  const pages: string[] = []
  let url: string | undefined = '/api/v1/audit-events?limit=3'
  while (url) {
    const page = await request(app, owner.auth, { url })
    pages.push(...page.json().data.map((e: AuditEvent) => e.id))
    url = /<([^>]+)>; rel="next"/.exec(page.headers.link as string ?? '')?.[1]
  }
  t.same(pages, events.map((e) => e.id), 'the cursor pages through every event once')

  t.same((await request(app, stranger.auth, { url: '/api/v1/audit-events' })).json().data, [], 'another organization sees none')
  const bad = await request(app, owner.auth, { url: '/api/v1/audit-events?cursor=bm9wZQ' })
  t.equal(bad.statusCode, 400)
  t.match(bad.json().error, /cursor/)
  t.equal((await request(app, owner.auth, { url: '/api/v1/audit-events?action=monitor.exploded' })).statusCode, 400)
  const editor = await makeMember(app, owner.orgId, 'editor')
  t.equal((await request(app, editor.auth, { url: '/api/v1/audit-events' })).statusCode, 403, 'admins and up only')
})
