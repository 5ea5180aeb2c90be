// POST /monitors with an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a repeat within 24 h
// gets the first answer and creates nothing; another body under the key is 422; one sent while the first is
// in progress is 409; a failed first request gives the key up; keys expire after 24 h and are swept.
import t from 'tap'
import { count, eq } from 'drizzle-orm'
import { idempotencyKeys, monitors } from '../../src/db/schema.ts'
import { claimIdempotencyKey } from '../../src/repositories/idempotency-keys.ts'
import { pruneIdempotencyKeys } from '../../src/checker/retention.ts'
import { requestFingerprint } from '../../src/services/idempotency.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { buildTestApp, makeUser, request, validMonitor } from '../helper.ts'

let now = new Date('2026-11-22T10:00:00.000Z')
const advance = (ms: number) => { now = new Date(now.getTime() + ms) }
const { app } = await buildTestApp(t, { clock: () => now })
const HOUR = 3_600_000

const create = (auth: Record<string, string>, key: string | undefined, body: object = validMonitor()) =>
  request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: body, headers: key === undefined ? {} : { 'idempotency-key': key } })

const monitorCount = async (userId: string) =>
  (await app.db.select({ n: count() }).from(monitors).where(eq(monitors.orgId, userId)))[0].n

t.test('a repeated key gets the first answer (status, Location, body) and creates nothing', async (t) => {
  const { user, auth } = await makeUser(app)
  const first = await create(auth, '"8e03978e-40d5-43e8-bc93-6894a57f9324"')
  t.equal(first.statusCode, 201)
  t.notOk(first.headers['idempotent-replayed'], 'the first answer is not a replay')
  advance(HOUR)
  // The draft's quoted form and the bare form name the same key; the body's field order does not matter.
  const { name, url } = validMonitor()
  const again = await create(auth, '8e03978e-40d5-43e8-bc93-6894a57f9324', { url, name })
  t.equal(again.statusCode, 201)
  t.equal(again.headers.location, first.headers.location)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.same(again.json(), first.json())
  t.equal(await monitorCount(user.id), 1, 'one monitor')

  const withDefaults = await create(auth, '8e03978e-40d5-43e8-bc93-6894a57f9324', { ...validMonitor(), interval_minutes: 5 })
  t.equal(withDefaults.statusCode, 201, 'a default written out is the same request')
  t.equal(await monitorCount(user.id), 1)

  const without = await create(auth, undefined)
  t.equal(without.statusCode, 201, 'without a key, every POST creates')
  t.equal(await monitorCount(user.id), 2)
})

t.test('the same key with another body: 422, nothing created', async (t) => {
  const { user, auth } = await makeUser(app)
  t.equal((await create(auth, 'key-1')).statusCode, 201)
  const other = await create(auth, 'key-1', validMonitor({ name: 'Another' }))
  t.equal(other.statusCode, 422)
  t.same(other.json(), { error: 'Idempotency-Key was already used with another request' })
  t.equal(await monitorCount(user.id), 1)
})

t.test('keys are per organization', async (t) => {
  const a = await makeUser(app)
  const b = await makeUser(app)
  const fromA = await create(a.auth, 'shared-key')
  const fromB = await create(b.auth, 'shared-key', validMonitor({ name: 'B' }))
  t.equal(fromB.statusCode, 201)
  t.not(fromB.headers.location, fromA.headers.location)
  t.equal(await monitorCount(b.user.id), 1)
})

t.test('while the first request is in progress: 409; a claim left by a request that died is free after a minute', async (t) => {
  const { user, auth } = await makeUser(app)
  // The state a request in flight leaves: the key claimed for this very request, no answer yet.
  const fingerprint = requestFingerprint('POST', '/api/v1/monitors', withMonitorDefaults(validMonitor()))
  t.match(await claimIdempotencyKey(app.db, user.id, 'in-flight', fingerprint, now), { kind: 'claimed' })
  const during = await create(auth, 'in-flight')
  t.equal(during.statusCode, 409)
  t.same(during.json(), { error: 'A request with this Idempotency-Key is still in progress: retry later' })
  t.equal(await monitorCount(user.id), 0)
  advance(61_000)
  const after = await create(auth, 'in-flight')
  t.equal(after.statusCode, 201, 'the abandoned claim is taken over')
  t.equal(await monitorCount(user.id), 1)
})

t.test('simultaneous requests with one key create one monitor; the others get it, or 409', async (t) => {
  const { user, auth } = await makeUser(app)
  const answers = await Promise.all(Array.from({ length: 12 }, () => create(auth, 'burst')))
  t.equal(await monitorCount(user.id), 1, 'exactly one monitor')
  const created = answers.filter((res) => res.statusCode === 201)
  t.ok(created.length >= 1)
  t.ok(answers.every((res) => res.statusCode === 201 || res.statusCode === 409), answers.map((res) => res.statusCode).join(' '))
  t.equal(new Set(created.map((res) => res.json().data.id)).size, 1, 'every 201 is the same monitor')
})

t.test('a first request that fails gives the key up: its retry runs again', async (t) => {
  const { user, auth } = await makeUser(app)
  const foreign = '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'
  const failed = await create(auth, 'retry-me', validMonitor({ notification_channel_ids: [foreign] }))
  t.equal(failed.statusCode, 400, failed.body)
  t.equal((await app.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.orgId, user.id))).length, 0, 'no key kept')
  const fixed = await create(auth, 'retry-me')
  t.equal(fixed.statusCode, 201)
  t.equal(await monitorCount(user.id), 1)
})

t.test('after 24 hours a key is new again, and the retention sweep deletes it', async (t) => {
  const { user, auth } = await makeUser(app)
  const first = await create(auth, 'daily')
  advance(24 * HOUR - 1000)
  t.equal((await create(auth, 'daily', validMonitor({ name: 'Other' }))).statusCode, 422, 'within 24 h: still the first request\'s')
  advance(2000)
  const next = await create(auth, 'daily', validMonitor({ name: 'Other' }))
  t.equal(next.statusCode, 201)
  t.not(next.headers.location, first.headers.location, 'a new monitor')
  t.equal(await monitorCount(user.id), 2)

  const { user: idle, auth: idleAuth } = await makeUser(app)
  await create(idleAuth, 'old')
  advance(24 * HOUR + 1000)
  await create(idleAuth, 'recent')
  const deleted = await pruneIdempotencyKeys(app.db, now)
  t.ok(deleted >= 1)
  const left = await app.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).where(eq(idempotencyKeys.orgId, idle.id))
  t.same(left.map((row) => row.key), ['recent'])
})

t.test('a malformed key is 400', async (t) => {
  const { user, auth } = await makeUser(app)
  for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'two words', '""']) {
    const res = await create(auth, key)
    t.equal(res.statusCode, 400, JSON.stringify(key))
    t.match(res.json().error, /^headers\/idempotency-key /)
  }
  t.equal(await monitorCount(user.id), 0)
})
