// The monitor list (listMonitorPage) and GET /monitors: its bytes valid against the response schema (the OpenAPI
// document's and the TypeBox one), the route's bytes and cursors those of the repository's page (JSON.stringify),
// for monitors of every kind and state, whole, filtered and paged, by key and by user.
import t, { type Test } from 'tap'
import { eq, sql } from 'drizzle-orm'
import { monitors } from '../../src/db/schema.ts'
import { ApiKeyGoneError } from '../../src/domain/errors.ts'
import { MonitorListEnvelope, MonitorListItemSchema } from '../../src/monitors/schema.ts'
import { listMonitorPage } from '../../src/monitors/repository.ts'
import type { Owner } from '../../src/repositories/owner.ts'
import type { MonitorListParams } from '../../src/monitors/schema.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { documentedGetAnswer, typeboxAnswer } from '../support/response-validators.ts'

// The answer as the document declares it, and as the route's TypeBox schema does.
const documented = documentedGetAnswer('/api/v1/monitors')
const typebox = typeboxAnswer(MonitorListEnvelope, MonitorListItemSchema)

t.test('the list: valid, and the route sends the repository\'s page', async (t) => {
  let now = new Date('2026-11-21T09:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now, env: { PUBLIC_URL: 'https://status.example.com' } })
  const { auth, keyId, user } = await makeUser(app)
  const other = await makeUser(app)
  await makeMonitor(app, other.auth, { name: 'Someone else\'s' })
  const channel = (await request(app, auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: 'https://example.com/hook' } },
  })).json().data

  const make = async (overrides: Record<string, unknown>) => {
    now = new Date(now.getTime() + 1000)
    return makeMonitor(app, auth, overrides)
  }
  const site = await make({
    // What JSON escapes: quotes, backslash, control characters; and what it does not: non-ASCII, U+2028.
    name: 'Shop "A" \\ tab\there\u0001 é 😀 \u2028 </script>',
    keyword: 'Welcome',
    keyword_mode: 'not_contains',
    degraded_after_ms: 1500,
    request_body: '{"ping":true}',
    method: 'POST',
    request_headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Api-Key': 'short', Accept: 'application/json' },
  })
  const tcp = await make({ name: 'Database', monitor_type: 'tcp', url: 'tcp://db.example.com:5432' })
  const dns = await make({ name: 'Name', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx.example.com'] })
  const heartbeat = await make({ name: 'Nightly backup', monitor_type: 'heartbeat', url: undefined, interval_minutes: 1440, grace_minutes: 30 })
  const paused = await make({ name: 'Paused', is_active: false })
  const withChannel = await make({ name: 'Told', notification_channel_ids: [channel.id] })
  // Moved to the very time of the one before: the id orders them.
  const sameMs = await make({ name: 'Same millisecond' })
  await app.db.update(monitors).set({ createdAt: sql`${monitors.createdAt} - interval '1 second'` }).where(eq(monitors.id, sameMs.id))
  // States only checks reach: degraded with a certificate seen; down; times with microseconds (cut to milliseconds,
  // as Date cuts them), one at the end of a second and one before 1970.
  await app.db.update(monitors).set({
    status: 'degraded',
    lastCheckedAt: sql`timestamptz '2026-11-21 10:00:00.999999+00'`,
    tlsExpiresAt: new Date('2027-01-01T00:00:00.000Z'),
    tlsIssuer: 'Let\'s Encrypt, R11',
  }).where(eq(monitors.id, site.id))
  await app.db.update(monitors).set({ status: 'down', lastCheckedAt: sql`timestamptz '2026-11-21 10:00:01.000001+00'` }).where(eq(monitors.id, tcp.id))
  await app.db.update(monitors).set({ status: 'up', lastCheckedAt: sql`timestamptz '1969-12-31 23:59:59.5+00'` }).where(eq(monitors.id, dns.id))
  await app.db.update(monitors).set({ status: 'up', lastCheckedAt: sql`timestamptz '2026-11-21 10:00:00+00'` }).where(eq(monitors.id, heartbeat.id))
  const deleted = await make({ name: 'Deleted' })
  t.equal((await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${deleted.id}` })).statusCode, 204)
  const owners: Owner[] = [{ keyId }, { orgId: user.id }]

  /** The repository's page for one query and owner against the route's answer to the owner's key; the page's cursor. */
  async function same (t: Test, owner: Owner, query: MonitorListParams, label: string, keyAuth = auth) {
    const objects = await listMonitorPage(app.db, owner, query)
    const json = { json: JSON.stringify(objects.monitors), nextCursor: objects.nextCursor }
    const body = `{"data":${json.json}}`
    t.ok(documented(JSON.parse(body)), `${label}: valid against the document ${JSON.stringify(documented.errors)}`)
    t.ok(typebox(JSON.parse(body)), `${label}: valid against MonitorListEnvelope ${JSON.stringify(typebox.errors)}`)
    const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== undefined).map(([name, value]) => [name, String(value)]))
    const res = await request(app, keyAuth, { url: `/api/v1/monitors?${search}` })
    t.same(res.json().data, objects.monitors, `${label}: the same items`)
    t.equal(res.body, body, `${label}: the same bytes as JSON.stringify`)
    t.equal(/[?&]cursor=([^&>]+)/.exec(String(res.headers.link ?? ''))?.[1], objects.nextCursor, `${label}: the same cursor`)
    return json
  }

  await t.test('whole and filtered, by key and by user', async (t) => {
    for (const owner of owners) {
      const whole = await same(t, owner, {}, 'whole')
      const tied = [withChannel.id, sameMs.id].sort().reverse()
      t.same(JSON.parse(whole.json).map((m: { id: string }) => m.id), [...tied, ...[paused, heartbeat, dns, tcp, site].map((m) => m.id)],
        'newest first, a tie by id; not the deleted one, nor another user\'s')
      for (const query of [
        { status: 'degraded' }, { status: 'paused' }, { status: 'pending' }, { is_active: false }, { is_active: true },
        { search: 'SHOP' }, { search: 'db.example' }, { search: '100%_' }, { status: 'up', is_active: true, search: 'n' },
      ] as MonitorListParams[]) await same(t, owner, query, JSON.stringify(query))
    }
  })

  await t.test('paged: every page and cursor the same, through the filters too', async (t) => {
    for (const owner of owners) {
      for (const filters of [{}, { is_active: true }, { search: 'e' }] as MonitorListParams[]) {
        for (const limit of [1, 2, 3, 6, 7, 1000]) {
          const seen: unknown[] = []
          let cursor: string | undefined
          do {
            const page = await same(t, owner, { ...filters, limit, cursor }, `${JSON.stringify(filters)} limit ${limit} after ${cursor}`)
            seen.push(...JSON.parse(page.json))
            t.ok(JSON.parse(page.json).length <= limit)
            cursor = page.nextCursor
          } while (cursor !== undefined)
          t.same(seen, (await listMonitorPage(app.db, owner, filters)).monitors, `${JSON.stringify(filters)} limit ${limit}: the whole list, once`)
        }
      }
    }
  })

  await t.test('no monitors: []; a deleted key: refused', async (t) => {
    const empty = await makeUser(app)
    t.equal((await same(t, { keyId: empty.keyId }, {}, 'no monitors', empty.auth)).json, '[]')
    t.equal((await same(t, { keyId: empty.keyId }, { limit: 5 }, 'no monitors, a page', empty.auth)).json, '[]')
    t.equal((await same(t, { keyId }, { status: 'down', is_active: false }, 'none match')).json, '[]')
    const gone = '00000000-0000-4000-8000-000000000000'
    for (const query of [{}, { limit: 5 }]) {
      const error = await listMonitorPage(app.db, { keyId: gone }, query).catch((err: unknown) => err)
      t.ok(error instanceof ApiKeyGoneError, `${JSON.stringify(query)}: ApiKeyGoneError`)
    }
  })

  await t.test('the route sends those bytes, with the Link of the repository\'s cursor', async (t) => {
    const res = await request(app, auth, { url: '/api/v1/monitors' })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(res.body, `{"data":${JSON.stringify((await listMonitorPage(app.db, { keyId })).monitors)}}`)
    t.ok(documented(res.json()), JSON.stringify(documented.errors))
    t.notOk(res.body.includes('0123456789abcdef'), 'no secret header value, masked or not, in a list item')
    t.match(res.headers.etag, /^W\/"/)
    const again = await request(app, auth, { url: '/api/v1/monitors', headers: { 'if-none-match': res.headers.etag as string } })
    t.equal(again.statusCode, 304, 'the ETag is of these bytes')
    const page = await request(app, auth, { url: '/api/v1/monitors?limit=2&is_active=true' })
    const objects = await listMonitorPage(app.db, { keyId }, { limit: 2, is_active: true })
    t.equal(page.body, `{"data":${JSON.stringify(objects.monitors)}}`)
    t.equal(page.headers.link, `</api/v1/monitors?is_active=true&limit=2&cursor=${objects.nextCursor}>; rel="next"`)
    t.ok(documented(page.json()), JSON.stringify(documented.errors))
  })
})
