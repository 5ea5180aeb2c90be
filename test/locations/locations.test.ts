// Locations and agent tokens (api-contract section 17): an admin's agent locations with a token shown once and stored
// hashed, rotated and deleted with immediate effect on the agent's hello, kept in their organization; the built-in
// locations of the checker processes, listed for everyone and left alone.
import { createHash } from 'node:crypto'
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { startJobs } from '../../src/jobs.ts'
import { upsertBuiltin } from '../../src/locations/repository.ts'
import { PINGWARD_VERSION } from '../../src/runtime/version.ts'
import { buildTestApp, makeMember, makeUser, request, testConfig, until } from '../helper.ts'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const hello = (app: Parameters<typeof request>[0], token: string, payload: unknown = { version: '1.2.3' }) =>
  app.inject({ method: 'POST', url: '/api/v1/agent/hello', headers: bearer(token), payload: payload as object })

t.test('an admin makes an agent location: its token shown once, only its hash stored, listed offline until its hello', async (t) => {
  const now = new Date('2026-12-01T10:00:00.000Z')
  let clock = now
  const { app } = await buildTestApp(t, { clock: () => clock })
  const owner = await makeUser(app)
  const made = await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'office-berlin', name: 'Berlin office' } })
  t.equal(made.statusCode, 201)
  t.equal(made.headers.location, '/api/v1/locations/office-berlin')
  const { agent_token: token, ...record } = made.json().data
  t.same(record, { code: 'office-berlin', name: 'Berlin office', kind: 'agent', last_seen_at: null, version: null, online: false })
  t.match(token, /^pwa_[0-9A-Za-z]{38}$/)

  const [row] = rowsOf<Record<string, unknown>>(await app.db.execute(sql`select * from locations where code = 'office-berlin'`))
  t.equal(row.token_hash, createHash('sha256').update(token).digest('hex'), 'the SHA-256 of the token, as an API key\'s')
  t.equal(row.token_prefix, token.slice(0, 11))
  t.equal(row.org_id, owner.orgId)
  t.notOk(JSON.stringify(row).includes(token.slice(11)), 'the token itself is nowhere in the row')

  const list = await request(app, owner.auth, { url: '/api/v1/locations' })
  t.same(list.json().data, [record], 'listed without its token')
  t.notOk(list.body.includes(token.slice(11)))
  t.same((await request(app, owner.auth, { url: '/api/v1/locations/office-berlin' })).json().data, record)

  clock = new Date(now.getTime() + 5000)
  const greeted = await hello(app, token)
  t.equal(greeted.statusCode, 200)
  t.same(greeted.json(), { data: { location: { code: 'office-berlin', name: 'Berlin office' }, server_time: clock.toISOString() } })
  t.match((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data, [{ code: 'office-berlin', last_seen_at: clock.toISOString(), version: '1.2.3', online: true }])
  clock = new Date(now.getTime() + 5000 + 60_000)
  t.match((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data, [{ online: true }], 'online for 60 seconds after it was seen')
  clock = new Date(now.getTime() + 5000 + 60_001)
  t.match((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data, [{ last_seen_at: new Date(now.getTime() + 5000).toISOString(), online: false }], 'then offline')

  const events = (await request(app, owner.auth, { url: '/api/v1/audit-events?entity_type=location' })).json().data
  t.match(events, [{ action: 'location.created', changes: { code: [null, 'office-berlin'], name: [null, 'Berlin office'], kind: [null, 'agent'], token_prefix: [null, token.slice(0, 11)] } }])
  t.notOk(JSON.stringify(events).includes(token.slice(11)), 'the audit log has the prefix only')
})

t.test('bad input is a 400 naming the field; a taken code a 409; only admins change locations', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const post = (payload: unknown, auth = owner.auth) => request(app, auth, { method: 'POST', url: '/api/v1/locations', payload: payload as object })
  const refusals: Array<[unknown, string]> = [
    [{ code: 'Office', name: 'x' }, 'body/code must be 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ code: 'x', name: 'x' }, 'body/code must be 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ code: 'a'.repeat(33), name: 'x' }, 'body/code must be 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ code: 'office-', name: 'x' }, 'body/code must be 2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit'],
    [{ code: 'office' }, 'body/name is required'],
    [{ code: 'office', name: '  ' }, 'body/name must be 1-100 characters and not blank'],
    [{ code: 'office', name: 'x', kind: 'builtin' }, 'body/kind is not allowed'],
  ]
  for (const [payload, message] of refusals) {
    const res = await post(payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.match(res.json().error, message, JSON.stringify(payload))
  }
  const badParam = await request(app, owner.auth, { method: 'DELETE', url: '/api/v1/locations/Not_A_Code' })
  t.equal(badParam.statusCode, 400)
  t.match(badParam.json().error, /^params\/code must be 2-32/)

  t.equal((await post({ code: 'office', name: 'Office' })).statusCode, 201)
  const again = await post({ code: 'office', name: 'Another' })
  t.equal(again.statusCode, 409)
  t.same(again.json(), { error: 'The organization has a location office already: choose another code' })
  await upsertBuiltin(app.db, 'eu-west', { at: new Date(), version: '0.1.0' })
  const builtin = await post({ code: 'eu-west', name: 'Mine' })
  t.equal(builtin.statusCode, 409)
  t.same(builtin.json(), { error: 'eu-west is the code of a built-in location: choose another' })
  // Another organization may use the same code for its own.
  t.equal((await post({ code: 'office', name: 'Theirs' }, (await makeUser(app)).auth)).statusCode, 201)

  const editor = await makeMember(app, owner.orgId, 'editor')
  t.equal((await request(app, editor.auth, { url: '/api/v1/locations' })).statusCode, 200, 'any member reads them')
  for (const res of [
    await post({ code: 'edited', name: 'x' }, editor.auth),
    await request(app, editor.auth, { method: 'POST', url: '/api/v1/locations/office/rotate-token' }),
    await request(app, editor.auth, { method: 'DELETE', url: '/api/v1/locations/office' }),
  ]) {
    t.equal(res.statusCode, 403)
    t.same(res.json(), { error: 'API key does not have access to this resource' })
  }
  t.equal((await request(app, owner.auth, { url: '/api/v1/locations/edited' })).statusCode, 404)
})

t.test('rotating refuses the old token at once and takes the new; deleting refuses it at once', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const made = await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'lab', name: 'Lab' } })
  const first = made.json().data.agent_token as string
  t.equal((await hello(app, first)).statusCode, 200)

  const rotated = await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations/lab/rotate-token' })
  t.equal(rotated.statusCode, 200)
  const second = rotated.json().data.agent_token as string
  t.match(rotated.json().data, { code: 'lab', name: 'Lab', kind: 'agent', version: '1.2.3', online: true })
  t.not(second, first)
  const old = await hello(app, first)
  t.equal(old.statusCode, 401, 'the old token, just after the rotation')
  t.same(old.json(), { error: 'Unauthorized' })
  t.equal(old.headers['www-authenticate'], 'Bearer')
  t.equal((await hello(app, second)).statusCode, 200, 'the new one')
  const [row] = rowsOf<{ token_hash: string }>(await app.db.execute(sql`select token_hash from locations where code = 'lab'`))
  t.equal(row.token_hash, createHash('sha256').update(second).digest('hex'))

  t.equal((await request(app, owner.auth, { method: 'DELETE', url: '/api/v1/locations/lab' })).statusCode, 204)
  t.equal((await hello(app, second)).statusCode, 401, 'deleted: refused at once')
  t.equal((await request(app, owner.auth, { method: 'DELETE', url: '/api/v1/locations/lab' })).statusCode, 404)
  t.equal((await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations/lab/rotate-token' })).statusCode, 404)
  t.same((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data, [])

  const events = (await request(app, owner.auth, { url: '/api/v1/audit-events?entity_type=location' })).json().data
  t.same(events.map((e: { action: string }) => e.action), ['location.deleted', 'location.token_rotated', 'location.created'])
  t.same(events[1].changes, { token_prefix: [first.slice(0, 11), second.slice(0, 11)] }, 'the rotation shows the prefixes only')
})

t.test('an agent token is not an API key, nor the other way round; a bad hello is refused before its body is read', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const token = (await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'lab', name: 'Lab' } })).json().data.agent_token as string
  for (const url of ['/api/v1/locations', '/api/v1/monitors', '/api/v1/organization']) {
    const res = await app.inject({ url, headers: bearer(token) })
    t.equal(res.statusCode, 401, `the agent token on ${url}`)
    t.same(res.json(), { error: 'Unauthorized' })
  }
  for (const [what, headers] of [
    ['an API key', owner.auth], ['no Authorization', {}], ['a made-up agent token', bearer(`pwa_${'A'.repeat(38)}`)], ['Basic', { authorization: 'Basic YTpi' }],
  ] as const) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/agent/hello', headers, payload: { version: '1.0.0' } })
    t.equal(res.statusCode, 401, what)
    t.same(res.json(), { error: 'Unauthorized' }, what)
    t.equal(res.headers['www-authenticate'], 'Bearer', what)
  }
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/agent/hello', headers: owner.auth, payload: { nope: true } })).statusCode, 401, 'an API key and a bad body: 401')
  for (const [payload, message] of [
    [{}, 'body/version is required'],
    [{ version: 'one two' }, 'body/version must be 1-64 visible ASCII characters'],
    [{ version: '1.0.0', extra: 1 }, 'body/extra is not allowed'],
  ] as const) {
    const res = await hello(app, token, payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload))
    t.match(res.json().error, message)
  }
  t.same((await request(app, owner.auth, { url: '/api/v1/locations' })).json().data[0].last_seen_at, null, 'a refused hello records nothing')
})

t.test('another organization neither sees nor touches an organization\'s agent location', async (t) => {
  const { app } = await buildTestApp(t)
  const alice = await makeUser(app)
  const bob = await makeUser(app)
  const token = (await request(app, alice.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'alice-lab', name: 'Alice lab' } })).json().data.agent_token as string
  t.same((await request(app, bob.auth, { url: '/api/v1/locations' })).json().data, [])
  for (const call of [
    { url: '/api/v1/locations/alice-lab' },
    { method: 'DELETE', url: '/api/v1/locations/alice-lab' },
    { method: 'POST', url: '/api/v1/locations/alice-lab/rotate-token' },
  ] as const) {
    const res = await request(app, bob.auth, call)
    t.equal(res.statusCode, 404, `${call.url}`)
    t.same(res.json(), { error: 'Location not found' })
  }
  t.equal((await hello(app, token)).statusCode, 200, 'alice\'s token still works')
  t.match((await request(app, alice.auth, { url: '/api/v1/locations' })).json().data, [{ code: 'alice-lab', online: true }])
})

t.test('a checker started with CHECKER_LOCATION lists its built-in location, online with its version, for every organization', async (t) => {
  let offset = 0
  const { app } = await buildTestApp(t, { clock: () => new Date(Date.now() + offset) })
  const alice = await makeUser(app)
  const bob = await makeUser(app)
  await request(app, alice.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'alice-lab', name: 'Alice lab' } })
  const jobs = [startJobs({ config: testConfig({ CHECKER_LOCATION: 'eu-west' }), db: app.db, log: app.log }), startJobs({ config: testConfig(), db: app.db, log: app.log })]
  t.teardown(() => Promise.all(jobs.map((j) => j.stop())))
  const list = async (who: typeof alice) => (await request(app, who.auth, { url: '/api/v1/locations' })).json().data as Array<Record<string, unknown>>
  const seen = await until(async () => {
    const data = await list(alice)
    return data.filter((l) => l.kind === 'builtin').length === 2 && data
  })
  t.match(seen, [
    { code: 'default', name: 'default', kind: 'builtin', version: PINGWARD_VERSION, online: true },
    { code: 'eu-west', name: 'eu-west', kind: 'builtin', version: PINGWARD_VERSION, online: true },
    { code: 'alice-lab', kind: 'agent', online: false },
  ], 'the built-in ones first, then the organization\'s')
  t.match(await list(bob), [{ code: 'default', online: true }, { code: 'eu-west', online: true }])
  t.equal((await list(bob)).length, 2, 'not alice\'s agent location')

  const deleted = await request(app, alice.auth, { method: 'DELETE', url: '/api/v1/locations/eu-west' })
  t.equal(deleted.statusCode, 409)
  t.same(deleted.json(), { error: 'eu-west is a built-in location (a checker process started with CHECKER_LOCATION=eu-west): it cannot be deleted' })
  const rotated = await request(app, alice.auth, { method: 'POST', url: '/api/v1/locations/default/rotate-token' })
  t.equal(rotated.statusCode, 409)
  t.same(rotated.json(), { error: 'default is a built-in location (a checker process started with CHECKER_LOCATION=default): it has no agent token' })
  t.same(rowsOf(await app.db.execute(sql`select count(*)::int as n from audit_events where entity_type = 'location'`)), [{ n: 1 }], 'only alice\'s create was audited')

  await Promise.all(jobs.map((j) => j.stop()))
  offset = 61_000
  t.match(await list(bob), [{ code: 'default', online: false }, { code: 'eu-west', online: false }], 'a minute after its checkers stopped, offline')
})

t.test('the table refuses a code of another shape, a kind outside the vocabulary, a built-in location with an owner or a token', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const refusal = (statement: ReturnType<typeof sql>) => app.db.execute(statement).then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
  for (const [what, statement] of [
    ['a code with capitals', sql`insert into locations (code, name, kind) values ('Default', 'x', 'builtin')`],
    ['a code of one character', sql`insert into locations (code, name, kind) values ('d', 'x', 'builtin')`],
    ['another kind', sql`insert into locations (code, name, kind) values ('eu', 'x', 'cloud')`],
    ['a built-in location of an organization', sql`insert into locations (org_id, code, name, kind) values (${owner.orgId}, 'eu', 'x', 'builtin')`],
    ['a built-in location with a token', sql`insert into locations (code, name, kind, token_hash) values ('eu', 'x', 'builtin', 'abc')`],
    ['an agent location without a token', sql`insert into locations (org_id, code, name, kind) values (${owner.orgId}, 'eu', 'x', 'agent')`],
  ] as const) t.equal(await refusal(statement), '23514', what)
  await upsertBuiltin(app.db, 'eu', { at: new Date(), version: '0.1.0' })
  t.equal(await refusal(sql`insert into locations (code, name, kind) values ('eu', 'x', 'builtin')`), '23505', 'one built-in location per code')
})
