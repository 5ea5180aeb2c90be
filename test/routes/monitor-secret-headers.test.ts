// Secret request headers through the API: the names that make a header secret, headers a user marks secret
// (`secret_headers`), masked in every answer and in webhook bodies, and secret values that do not follow the
// url to another origin unless given again. Both databases.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { monitors } from '../../src/db/schema.ts'
import { deliveryOptionsFromConfig } from '../../src/notifications/deliver.ts'
import { DeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { buildTestApp, makeUser, request, testConfig, validMonitor } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never

t.test('secret request headers', async (t) => {
  const env = { ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const { auth } = await makeUser(app)
  const post = (payload: object) => request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload })
  const patch = (id: string, payload: object) => request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${id}`, payload })
  const get = async (id: string) => (await request(app, auth, { url: `/api/v1/monitors/${id}` })).json().data
  const stored = async (id: string) => (await app.db.select().from(monitors).where(eq(monitors.id, id)))[0]

  await t.test('names that say a credential are secret: auth, session, credential, pass, sig, and the old ones', async (t) => {
    const headers = {
      'X-Auth': 'auth-value-0001',
      'X-Session': 'session-value-0002',
      'X-Credentials': 'credentials-value-0003',
      'X-Signature': 'signature-value-0004',
      'X-Passwd': 'passwd-value-0005',
      Authorization: 'Bearer 0123456789abcdef',
      Cookie: 'sid=value-0006',
      'X-Api-Key': 'key-value-0007',
      'X-Trace': 'visible',
    }
    const res = await post(validMonitor({ request_headers: headers }))
    t.equal(res.statusCode, 201)
    const expected = {
      'X-Auth': '…0001',
      'X-Session': '…0002',
      'X-Credentials': '…0003',
      'X-Signature': '…0004',
      'X-Passwd': '…0005',
      Authorization: '…cdef',
      Cookie: '…0006',
      'X-Api-Key': '…0007',
      'X-Trace': 'visible',
    }
    t.same(res.json().data.request_headers, expected, 'masked in the answer to create')
    t.same((await get(res.json().data.id)).request_headers, expected, 'and to GET')
  })

  await t.test('a header marked secret is masked in every answer, kept when sent back masked, and must be one of the headers', async (t) => {
    const res = await post(validMonitor({ request_headers: { 'X-Tenant': 'acme-private-1234', Accept: 'text/html' }, secret_headers: ['X-Tenant'] }))
    t.equal(res.statusCode, 201, res.body)
    const created = res.json().data
    t.same(created.request_headers, { 'X-Tenant': '…1234', Accept: 'text/html' }, 'POST answer masked')
    t.same(created.secret_headers, ['x-tenant'], 'the marks, in lower case')
    t.same(await get(created.id), created, 'GET shows the same')
    t.same((await stored(created.id)).requestHeaders, { 'X-Tenant': 'acme-private-1234', Accept: 'text/html' }, 'stored whole')

    const list = (await request(app, auth, { url: '/api/v1/monitors' })).json().data
    const item = list.find((m: { id: string }) => m.id === created.id)
    t.notOk('request_headers' in item || 'secret_headers' in item, 'list items carry neither headers nor marks')

    const kept = await patch(created.id, { request_headers: created.request_headers, name: 'Renamed' })
    t.equal(kept.statusCode, 200)
    t.same(kept.json().data.request_headers, { 'X-Tenant': '…1234', Accept: 'text/html' }, 'PATCH answer masked')
    t.same((await stored(created.id)).requestHeaders, { 'X-Tenant': 'acme-private-1234', Accept: 'text/html' }, 'the masked value kept the secret')

    const marked = await patch(created.id, { secret_headers: ['x-tenant', 'accept'] })
    t.same(marked.json().data.request_headers, { 'X-Tenant': '…1234', Accept: '…' }, 'a header marked by PATCH is masked at once (a short value wholly)')

    const missing = await patch(created.id, { secret_headers: ['x-tenant', 'x-other'] })
    t.equal(missing.statusCode, 400)
    t.same(missing.json(), { error: 'body/secret_headers: the header "x-other" is not one of request_headers' })
    const created2 = await post(validMonitor({ request_headers: {}, secret_headers: ['x-nothing'] }))
    t.equal(created2.statusCode, 400)
    t.same(created2.json(), { error: 'body/secret_headers: the header "x-nothing" is not one of request_headers' })
    const removed = await patch(created.id, { request_headers: { 'X-Tenant': '…1234' } })
    t.equal(removed.statusCode, 400, 'a marked header cannot be removed and stay marked')
    t.match(removed.json().error, /^body\/secret_headers: the header "accept" is not one of request_headers$/)
    const tcp = await post({ name: 'db', monitor_type: 'tcp', url: 'tcp://db.example.com:5432', secret_headers: [] })
    t.equal(tcp.statusCode, 400, 'a site monitor\'s field')
  })

  await t.test('a secret stops being secret only when its value is given again: a masked value is never revealed', async (t) => {
    const { id } = (await post(validMonitor({ request_headers: { 'X-Tenant': 'acme-private-1234' }, secret_headers: ['x-tenant'] }))).json().data
    const unmarked = await patch(id, { secret_headers: [] })
    t.equal(unmarked.statusCode, 400)
    t.same(unmarked.json(), { error: 'body/request_headers: the secret header "X-Tenant" must be given again to stop being secret (its value is never shown)' })
    const sentBack = await patch(id, { secret_headers: [], request_headers: { 'X-Tenant': '…1234' } })
    t.equal(sentBack.statusCode, 400, 'nor by sending the masked value back')
    t.notMatch(JSON.stringify(await get(id)), 'acme-private', 'nothing revealed')
    const given = await patch(id, { secret_headers: [], request_headers: { 'X-Tenant': 'acme-public' } })
    t.equal(given.statusCode, 200)
    t.same(given.json().data.request_headers, { 'X-Tenant': 'acme-public' }, 'a new value, not secret, shown')
  })

  await t.test('a url to another origin needs the secret values again: a masked or left-out one is refused, naming it', async (t) => {
    const headers = { authorization: 'Bearer 0123456789abcdef', 'X-Tenant': 'acme-private-1234', accept: 'text/html' }
    const { id } = (await post(validMonitor({ url: 'https://api.example.com/health', request_headers: headers, secret_headers: ['x-tenant'] }))).json().data
    const read = await get(id)

    const samePlace = await patch(id, { url: 'https://api.example.com/other?x=1' })
    t.equal(samePlace.statusCode, 200, 'the same origin, another path: the secrets stay')
    t.same((await stored(id)).requestHeaders, headers)

    const cases: Array<[string, Record<string, unknown>, string]> = [
      // Either secret is named: jsonb keeps keys in its own order.
      ['another host', { url: 'https://evil.example.net/health' }, 'authorization|X-Tenant'],
      ['another port', { url: 'https://api.example.com:8443/health' }, 'authorization|X-Tenant'],
      ['another scheme', { url: 'http://api.example.com/health' }, 'authorization|X-Tenant'],
      ['masked values sent back', { url: 'https://evil.example.net/health', request_headers: read.request_headers }, 'authorization|X-Tenant'],
      ['one given again, the marked one masked', {
        url: 'https://evil.example.net/health', request_headers: { ...read.request_headers, authorization: 'Bearer new' },
      }, 'X-Tenant'],
    ]
    for (const [what, body, field] of cases) {
      const res = await patch(id, body)
      t.equal(res.statusCode, 400, what)
      t.match(res.json().error, new RegExp(`^body/request_headers: the secret header "(${field})" must be given again for the url's new origin$`), what)
    }
    t.same(await stored(id), { ...await stored(id), url: 'https://api.example.com/other?x=1', requestHeaders: headers }, 'nothing changed')

    const given = await patch(id, { url: 'https://new.example.net/health', request_headers: { authorization: 'Bearer fresh-0000', 'X-Tenant': 'new-tenant-9999', accept: 'text/html' } })
    t.equal(given.statusCode, 200)
    t.match(await stored(id), { url: 'https://new.example.net/health', requestHeaders: { authorization: 'Bearer fresh-0000', 'X-Tenant': 'new-tenant-9999' } })
    const dropped = await patch(id, { url: 'https://other.example.org/', request_headers: { accept: 'text/html' }, secret_headers: [] })
    t.equal(dropped.statusCode, 200, 'secrets removed: nothing to give again')

    const { id: plain } = (await post(validMonitor({ request_headers: { accept: 'text/html' } }))).json().data
    t.equal((await patch(plain, { url: 'https://elsewhere.example.org/' })).statusCode, 200, 'no secrets: any url')
  })

  await t.test('webhook bodies carry the monitor with its marked header masked', async (t) => {
    let secret = ''
    const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
    const channel = await request(app, auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, all_monitors: true },
    })
    secret = channel.json().data.secret
    const { id } = (await post(validMonitor({ request_headers: { 'X-Tenant': 'acme-private-1234' }, secret_headers: ['x-tenant'], failure_threshold: 1 }))).json().data
    await recordCheck(app.db, id, { isUp: false, statusCode: 500, responseTimeMs: 5, errorMessage: 'expected status 200, got 500', checkedAt: new Date() }, 0)
    const worker = new DeliveryWorker({ ...deliveryOptionsFromConfig(testConfig(env)), db: app.db, log: silent, concurrency: 1 })
    t.teardown(() => worker.stop())
    await worker.runOnce()
    const [received] = await receiver.waitFor(1)
    t.equal(received.payload.type, 'incident.opened')
    t.same(received.payload.data.monitor.request_headers, { 'X-Tenant': '…1234' })
    t.same(received.payload.data.monitor.secret_headers, ['x-tenant'])
    t.notMatch(received.body, 'acme-private')
  })
})
