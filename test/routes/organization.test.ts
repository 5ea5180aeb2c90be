// The organization and its members over the API (api-contract section 12): reading and renaming it, roles and
// their rules (an owner always, only an owner makes one), and keys that act for their maker, never beyond them,
// on every instance at once.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import { openDatabase, rowsOf } from '../../src/db/client.ts'
import { buildApp } from '../../src/app.ts'
import { buildTestApp, createTestDatabase, limiterStore, makeMember, makeMonitor, makeTeam, makeUser, request, testConfig, validMonitor } from '../helper.ts'

const FORBIDDEN = { error: 'API key does not have access to this resource' }
const LAST_OWNER = { error: 'An organization keeps at least one owner: make another member an owner first' }

t.test('GET and PATCH /organization', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const reader = await makeUser(app)
  const got = await request(app, owner.auth, { url: '/api/v1/organization' })
  t.equal(got.statusCode, 200)
  const org = got.json().data
  t.same(Object.keys(org), ['id', 'name', 'slug', 'role', 'created_at'])
  t.match(org, { id: owner.orgId, name: owner.user.email, role: 'owner' }, 'a user\'s personal organization, named after the email')
  t.match(org.slug, /^user\d+-[0-9a-f]{6}-[0-9a-f]{8}$/)

  const renamed = await request(app, owner.auth, { method: 'PATCH', url: '/api/v1/organization', payload: { name: 'Acme', slug: 'acme' } })
  t.equal(renamed.statusCode, 200)
  t.match(renamed.json().data, { id: owner.orgId, name: 'Acme', slug: 'acme' })
  t.same((await request(app, owner.auth, { method: 'PATCH', url: '/api/v1/organization', payload: {} })).json().data, renamed.json().data, '{} changes nothing')
  const taken = await request(app, reader.auth, { method: 'PATCH', url: '/api/v1/organization', payload: { slug: 'acme' } })
  t.equal(taken.statusCode, 409)
  t.same(taken.json(), { error: 'The slug acme is taken' })
  for (const [payload, error] of [
    [{ slug: 'Acme' }, 'body/slug must be 1-63 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ slug: 'acme-' }, 'body/slug must be 1-63 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ name: ' ' }, 'body/name must be 1-100 characters and not blank'],
    [{ owner: 'x' }, 'body/owner is not allowed'],
  ] as const) {
    const res = await request(app, owner.auth, { method: 'PATCH', url: '/api/v1/organization', payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.match(res.json().error, error.split(' ')[0], error)
  }
  const readKey = await makeMember(app, owner.orgId, 'owner', 'read')
  t.equal((await request(app, readKey.auth, { url: '/api/v1/organization' })).json().data.role, 'viewer', 'role: what the key may do')
})

t.test('members: roles, the owner rules, and removal', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const admin = await makeMember(app, owner.orgId, 'admin')
  const viewer = await makeMember(app, owner.orgId, 'viewer')
  const outsider = await makeUser(app)
  const patch = (by: typeof owner, userId: string, role: string) =>
    request(app, by.auth, { method: 'PATCH', url: `/api/v1/organization/members/${userId}`, payload: { role } })
  const remove = (by: typeof owner, userId: string) => request(app, by.auth, { method: 'DELETE', url: `/api/v1/organization/members/${userId}` })

  const listed = (await request(app, viewer.auth, { url: '/api/v1/organization/members' })).json().data
  t.same(listed.map((m: { email: string, role: string }) => [m.email, m.role]),
    [[owner.user.email, 'owner'], [admin.user.email, 'admin'], [viewer.user.email, 'viewer']], 'every member, earliest first')
  t.same(Object.keys(listed[0]), ['user_id', 'email', 'role', 'joined_at'])

  const promoted = await patch(admin, viewer.user.id, 'editor')
  t.equal(promoted.statusCode, 200)
  t.match(promoted.json().data, { user_id: viewer.user.id, role: 'editor' })
  t.equal((await patch(admin, viewer.user.id, 'owner')).statusCode, 403, 'an admin makes no owner')
  t.same((await patch(admin, owner.user.id, 'viewer')).json(), FORBIDDEN, 'an admin demotes no owner')
  t.equal((await remove(admin, owner.user.id)).statusCode, 403, 'an admin removes no owner')
  t.equal((await patch(admin, outsider.user.id, 'viewer')).statusCode, 404, 'another organization\'s user is no member here')
  t.same((await remove(admin, outsider.user.id)).json(), { error: 'Member not found' })

  t.same((await patch(owner, owner.user.id, 'admin')).json(), LAST_OWNER, 'the last owner stays one')
  t.same((await remove(owner, owner.user.id)).json(), LAST_OWNER, 'the last owner stays')
  t.equal((await patch(owner, admin.user.id, 'owner')).statusCode, 200, 'an owner makes an owner')
  t.equal((await patch(admin, owner.user.id, 'editor')).statusCode, 200, 'and then the first one may step down')
  t.equal((await remove(admin, viewer.user.id)).statusCode, 204)
  t.same((await request(app, admin.auth, { url: '/api/v1/organization/members' })).json().data.map((m: { role: string }) => m.role), ['editor', 'owner'])
})

t.test('a key acts with its maker\'s current role, and stops when the maker leaves', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const editor = await makeMember(app, owner.orgId, 'editor')
  const monitor = await makeMonitor(app, editor.auth, { name: 'made by the editor' })
  t.equal((await request(app, editor.auth, { url: `/api/v1/monitors/${monitor.id}` })).statusCode, 200, 'the key is remembered')

  await request(app, owner.auth, { method: 'PATCH', url: `/api/v1/organization/members/${editor.user.id}`, payload: { role: 'viewer' } })
  const refused = await request(app, editor.auth, { method: 'POST', url: '/api/v1/monitors', payload: validMonitor() })
  t.equal(refused.statusCode, 403, 'demoted: the next change is refused')
  t.equal((await request(app, editor.auth, { url: '/api/v1/monitors' })).json().data.length, 1, 'reads still work')

  t.equal((await request(app, owner.auth, { method: 'DELETE', url: `/api/v1/organization/members/${editor.user.id}` })).statusCode, 204)
  for (const url of ['/api/v1/monitors', `/api/v1/monitors/${monitor.id}`, '/api/v1/organization']) {
    t.equal((await request(app, editor.auth, { url })).statusCode, 401, `removed: GET ${url} is a 401`)
  }
  t.equal((await request(app, owner.auth, { url: `/api/v1/monitors/${monitor.id}` })).statusCode, 200, 'what the member made stays the organization\'s')
})

t.test('a membership change holds on every instance at once', async (t) => {
  const first = await createTestDatabase(t)
  // Two processes' worth: their own database connections (on PostgreSQL) and key caches, one Redis when set.
  const second = first.DATABASE_URL ? await openDatabase({ DATABASE_URL: first.DATABASE_URL, DATA_DIR: 'memory://' }) : first.handle
  if (second !== first.handle) t.teardown(() => second.close())
  const env = { ...limiterStore(), ...(first.DATABASE_URL ? { DATABASE_URL: first.DATABASE_URL } : {}) }
  const apps: FastifyInstance[] = []
  for (const database of [first.handle, second]) {
    const app = await buildApp({ config: testConfig(env), database, logger: false })
    t.teardown(() => app.close())
    await app.ready()
    apps.push(app)
  }
  const [a, b] = apps
  const owner = await makeUser(a)
  const member = await makeMember(a, owner.orgId, 'editor')
  const monitor = await makeMonitor(b, member.auth)
  for (const app of apps) t.equal((await request(app, member.auth, { url: `/api/v1/monitors/${monitor.id}` })).statusCode, 200, 'remembered on both')

  t.equal((await request(a, owner.auth, { method: 'PATCH', url: `/api/v1/organization/members/${member.user.id}`, payload: { role: 'viewer' } })).statusCode, 200)
  t.equal((await request(b, member.auth, { method: 'PATCH', url: `/api/v1/monitors/${monitor.id}`, payload: { name: 'x' } })).statusCode, 403, 'demoted on the other instance')
  t.equal((await request(a, owner.auth, { method: 'DELETE', url: `/api/v1/organization/members/${member.user.id}` })).statusCode, 204)
  for (const [i, app] of apps.entries()) {
    t.equal((await request(app, member.auth, { url: `/api/v1/monitors/${monitor.id}` })).statusCode, 401, `removed: a read on instance ${i + 1} is a 401`)
    t.equal((await request(app, member.auth, { method: 'DELETE', url: `/api/v1/monitors/${monitor.id}` })).statusCode, 401, `removed: a change on instance ${i + 1} is a 401`)
  }
})

t.test('DELETE /organization: an owner deletes a team with everything it holds; a personal one goes only with its user', async (t) => {
  const { app } = await buildTestApp(t)
  const team = await makeTeam(app)
  const admin = await makeMember(app, team.orgId, 'admin')
  const monitor = await makeMonitor(app, team.auth, { name: 'team shop' })
  const refused = await request(app, admin.auth, { method: 'DELETE', url: '/api/v1/organization' })
  t.equal(refused.statusCode, 403, 'an admin may not')
  t.same(refused.json(), FORBIDDEN)

  const deleted = await request(app, team.auth, { method: 'DELETE', url: '/api/v1/organization' })
  t.equal(deleted.statusCode, 204)
  t.equal((await request(app, admin.auth, { url: '/api/v1/monitors' })).statusCode, 401, 'its members\' keys go with it')
  const rows = async (table: string, column: string, id: string) =>
    rowsOf<{ n: number }>(await app.db.execute(sql.raw(`select count(*)::int as n from ${table} where ${column} = '${id}'`)))[0]
  t.same(await rows('monitors', 'id', monitor.id), { n: 0 }, 'its monitors too')
  t.same(await rows('memberships', 'org_id', team.orgId), { n: 0 })
  t.same(await rows('users', 'id', admin.user.id), { n: 1 }, 'its members keep their users')
  const personal = (await makeUser(app))
  const own = await request(app, personal.auth, { method: 'DELETE', url: '/api/v1/organization' })
  t.equal(own.statusCode, 409)
  t.match(own.json().error, /^A personal organization goes with its user/)
})
