// The kinds of monitor through the API (api-contract section 9): each kind's own fields, a strict body per kind
// (another kind's field is a 400 naming it), each kind's url and target policy, and changes of kind by PATCH.
import t from 'tap'
import { eq, sql } from 'drizzle-orm'
import { monitors } from '../../src/db/schema.ts'
import { buildTestApp, makeUser, request } from '../helper.ts'

const PUBLIC_URL = 'https://pingward.example.com'

t.test('monitor kinds through the API', async (t) => {
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL } })
  const { auth } = await makeUser(app)
  const post = (payload: object) => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload })
  const patch = (id: string, payload: object) => request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload })
  const get = async (id: string) => (await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data
  const stored = async (id: string) => (await app.db.select().from(monitors).where(eq(monitors.id, id)))[0]

  await t.test('each kind is created with its own fields and defaults; the others are null or their defaults', async (t) => {
    const tcp = await post({ name: 'Database', monitor_type: 'tcp', url: 'tcp://db.example.com:5432', timeout_seconds: 3 })
    t.equal(tcp.statusCode, 201, tcp.body)
    t.match(tcp.json().data, { monitor_type: 'tcp', url: 'tcp://db.example.com:5432', timeout_seconds: 3, dns_record_type: null, ping_url: null, grace_minutes: null, keyword: null })

    const dns = await post({ name: 'Apex', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx1.example.com'] })
    t.equal(dns.statusCode, 201, dns.body)
    t.match(dns.json().data, { monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'MX', dns_expected: ['mx1.example.com'], ping_url: null })
    const dnsDefault = (await post({ name: 'Apex A', monitor_type: 'dns', url: 'dns://example.com.' })).json().data
    t.match(dnsDefault, { dns_record_type: 'A', dns_expected: null }, 'a dns monitor asks for A records, any answer')

    const beat = await post({ name: 'Nightly backup', monitor_type: 'heartbeat', interval_minutes: 1440, grace_minutes: 30 })
    t.equal(beat.statusCode, 201, beat.body)
    const created = beat.json().data
    t.match(created, { monitor_type: 'heartbeat', url: null, interval_minutes: 1440, grace_minutes: 30, status: 'pending', dns_record_type: null })
    t.match(created.ping_url, new RegExp(`^${PUBLIC_URL}/ping/[A-Za-z0-9_-]{24}$`), 'an absolute, unguessable ping URL')
    t.same(await get(created.id), created, 'GET shows the same record')
    const row = await stored(created.id)
    t.equal(created.ping_url, `${PUBLIC_URL}/ping/${row.pingToken}`)
    t.equal(row.nextCheckAt!.getTime() - row.createdAt.getTime(), (1440 + 30) * 60_000, 'its first deadline: interval plus grace')
    t.equal((await post({ name: 'Other', monitor_type: 'heartbeat' })).json().data.grace_minutes, 1, 'grace defaults to 1 minute')

    const list = (await request(app, auth, { url: '/api/v1/monitors' })).json().data
    t.match(list.find((m: { id: string }) => m.id === created.id), { url: null, monitor_type: 'heartbeat' }, 'a list item of a heartbeat has no url')

    const site = (await post({ name: 'Site', url: 'https://example.com' })).json().data
    t.match(site, { monitor_type: 'site', dns_record_type: null, dns_expected: null, grace_minutes: null, ping_url: null }, 'site stays the default')
  })

  await t.test('a body is strict per kind: another kind\'s field, or a url of the wrong shape, is a 400 naming it', async (t) => {
    const cases: Array<[object, string]> = [
      [{ name: 'x', monitor_type: 'heartbeat', url: 'https://example.com' }, 'body/url is not allowed'],
      [{ name: 'x', monitor_type: 'tcp', url: 'tcp://example.com:80', keyword: 'up' }, 'body/keyword is not allowed'],
      [{ name: 'x', monitor_type: 'dns', url: 'dns://example.com', method: 'POST' }, 'body/method is not allowed'],
      [{ name: 'x', url: 'https://example.com', grace_minutes: 5 }, 'body/grace_minutes is not allowed'],
      [{ name: 'x', monitor_type: 'tcp', url: 'tcp://example.com' }, 'body/url must be a tcp://host:port URL (port 1-65535)'],
      [{ name: 'x', monitor_type: 'tcp', url: 'https://example.com' }, 'body/url must be a tcp://host:port URL (port 1-65535)'],
      [{ name: 'x', monitor_type: 'dns', url: 'dns://example.com/path' }, 'body/url must be a dns://name URL (a host name, not an address, and nothing after it)'],
      [{ name: 'x', monitor_type: 'dns', url: 'dns://192.0.2.1' }, 'body/url must be a dns://name URL (a host name, not an address, and nothing after it)'],
      [{ name: 'x', monitor_type: 'site', url: 'tcp://example.com:80' }, 'body/url must be an absolute http or https URL of at most 2048 characters'],
      [{ name: 'x', monitor_type: 'tcp' }, 'body/url is required'],
      [{ name: 'x', monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'SRV' }, 'body/dns_record_type must be one of: A, AAAA, CNAME, MX, TXT, NS'],
      [{ name: 'x', monitor_type: 'dns', url: 'dns://example.com', dns_expected: [] }, 'body/dns_expected must NOT have fewer than 1 items'],
      [{ name: 'x', monitor_type: 'heartbeat', grace_minutes: 0 }, 'body/grace_minutes must be >= 1'],
    ]
    for (const [payload, error] of cases) {
      const res = await post(payload)
      t.equal(res.statusCode, 400, JSON.stringify(payload))
      t.same(res.json(), { error }, JSON.stringify(payload))
    }
  })

  await t.test('the target policy applies to tcp and dns targets', async (t) => {
    for (const url of ['tcp://127.0.0.1:5432', 'tcp://127.1:5432', 'tcp://2130706433:80', 'tcp://[::1]:22', 'tcp://10.1.2.3:80', 'tcp://localhost:6379', 'dns://localhost', 'dns://printer.local']) {
      const res = await post({ name: 'x', monitor_type: url.startsWith('tcp') ? 'tcp' : 'dns', url })
      t.equal(res.statusCode, 400, url)
      t.match(res.json().error, /^body\/url: .* is not a public address; private, loopback/, url)
    }
    const { id } = (await post({ name: 'x', monitor_type: 'tcp', url: 'tcp://db.example.com:5432' })).json().data
    t.equal((await patch(id, { url: 'tcp://192.168.1.1:5432' })).statusCode, 400, 'and to an update')
    const { app: open } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
    const { auth: openAuth } = await makeUser(open)
    const res = await request(open, openAuth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', monitor_type: 'tcp', url: 'tcp://127.0.0.1:5432' } })
    t.equal(res.statusCode, 201, 'unless the operator allows private targets')
  })

  await t.test('an update may only set the fields of the monitor\'s kind', async (t) => {
    const { id } = (await post({ name: 'x', monitor_type: 'tcp', url: 'tcp://db.example.com:5432' })).json().data
    t.same((await patch(id, { keyword: 'up' })).json(), { error: 'body/keyword is not allowed for a tcp monitor' })
    t.same((await patch(id, { url: 'https://example.com' })).json(), { error: 'body/url must be a tcp://host:port URL (port 1-65535) for a tcp monitor' })
    const ok = await patch(id, { url: 'tcp://db.example.com:6432', timeout_seconds: 5 })
    t.equal(ok.statusCode, 200)
    t.match(ok.json().data, { url: 'tcp://db.example.com:6432', timeout_seconds: 5 })
    const beat = (await post({ name: 'b', monitor_type: 'heartbeat' })).json().data
    t.same((await patch(beat.id, { url: 'https://example.com' })).json(), { error: 'body/url is not allowed for a heartbeat monitor' })
    t.same((await patch(beat.id, { timeout_seconds: 5 })).json(), { error: 'body/timeout_seconds is not allowed for a heartbeat monitor' })
    t.equal((await patch(beat.id, { grace_minutes: 10, name: 'renamed' })).statusCode, 200)
  })

  await t.test('a change of kind needs what the new kind needs and resets the old kind\'s fields', async (t) => {
    const site = (await post({ name: 's', url: 'https://example.com', keyword: 'Welcome', method: 'POST', request_body: 'x' })).json().data
    t.same((await patch(site.id, { monitor_type: 'tcp' })).json(), { error: 'body/url must be a tcp://host:port URL (port 1-65535) for a tcp monitor' })
    const tcp = await patch(site.id, { monitor_type: 'tcp', url: 'tcp://example.com:443' })
    t.equal(tcp.statusCode, 200, tcp.body)
    t.match(tcp.json().data, { monitor_type: 'tcp', url: 'tcp://example.com:443', keyword: null, method: 'GET', request_body: null, status: 'pending' })
    const beat = await patch(site.id, { monitor_type: 'heartbeat' })
    t.equal(beat.statusCode, 200, beat.body)
    t.match(beat.json().data, { monitor_type: 'heartbeat', url: null, grace_minutes: 1 })
    t.match(beat.json().data.ping_url, new RegExp(`^${PUBLIC_URL}/ping/`))
    t.same((await patch(site.id, { monitor_type: 'dns' })).json(), { error: 'body/url is required for a dns monitor' })
    const dns = await patch(site.id, { monitor_type: 'dns', url: 'dns://example.com', dns_expected: ['192.0.2.1'] })
    t.equal(dns.statusCode, 200, dns.body)
    t.match(dns.json().data, { monitor_type: 'dns', url: 'dns://example.com', dns_record_type: 'A', dns_expected: ['192.0.2.1'], ping_url: null, grace_minutes: null })
    t.equal((await stored(site.id)).pingToken, null, 'the old ping URL stops working')
  })

  await t.test('the database refuses a heartbeat with a url and any other kind without one', async (t) => {
    const beat = (await post({ name: 'b', monitor_type: 'heartbeat' })).json().data
    const site = (await post({ name: 's', url: 'https://example.com' })).json().data
    await t.rejects(app.db.execute(sql`update monitors set url = 'https://example.com' where id = ${beat.id}`))
    await t.rejects(app.db.execute(sql`update monitors set url = null where id = ${site.id}`))
  })
})
