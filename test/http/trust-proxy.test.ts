// TRUST_PROXY: the option Fastify gets, and what it changes on a whole app through app.inject (the client's
// address, the protocol and the host): the rate-limit bucket, the sign-in throttle's address, Secure cookies
// and the dashboard's origin check. Without it (or from a peer it does not name) forwarded headers are ignored.
// test/deploy/ does the same through a real nginx and Caddy.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { trustProxyOption } from '../../src/http/trust-proxy.ts'
import { ConfigError } from '../../src/runtime/config.ts'
import { buildTestApp, createTestDatabase } from '../helper.ts'
import { FORM, cookieOf, csrfOf, encode, makeDashboardUser } from '../dashboard/dashboard-helper.ts'

const PROXY = '10.0.0.5'
const STRANGER = '198.51.100.7'

t.test('trustProxyOption: off, a hop count, addresses and ranges; a typo is a configuration error', async (t) => {
  for (const off of [undefined, '', '  ', '0']) t.equal(trustProxyOption(off), false, `${JSON.stringify(off)} trusts nobody`)
  const one = trustProxyOption('1')
  t.type(one, 'function')
  const hops = one as (address: string, hop: number) => boolean
  t.same([hops('203.0.113.1', 0), hops('203.0.113.1', 1)], [true, false], 'one hop: the peer, not the address it names')
  t.same(trustProxyOption(' 127.0.0.1, 10.0.0.0/8 ,::1, fd00::/8 '), ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'])
  for (const bad of ['999.1.1.1', '10.0.0.0/33', '::1/129', '1.2.3', '127.0.0.1,']) {
    let error: unknown
    try { trustProxyOption(bad) } catch (err) { error = err }
    t.ok(error instanceof ConfigError, `${bad} is refused as configuration`)
  }
  t.throws(() => trustProxyOption('10.0.0.1,1.2.3'), /TRUST_PROXY="10.0.0.1,1.2.3": "1.2.3" is not an IP address/)
})

/** One database for the whole file; an app per TRUST_PROXY setting on it, built once. */
const database = createTestDatabase(t).then(({ handle }) => handle)
const apps = new Map<string, Promise<FastifyInstance>>()
const appWith = (TRUST_PROXY: string) => {
  if (!apps.has(TRUST_PROXY)) {
    apps.set(TRUST_PROXY, database.then(async (handle) => (await buildTestApp(t, { env: TRUST_PROXY ? { TRUST_PROXY } : {}, database: handle })).app))
  }
  return apps.get(TRUST_PROXY)!
}

/** The rate-limit budget left after an unauthenticated API request from `remoteAddress` carrying `forwardedFor`. */
const remaining = async (app: FastifyInstance, remoteAddress: string, forwardedFor?: string) => Number((await app.inject({
  url: '/api/v1/monitors', remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
})).headers['x-ratelimit-remaining'])

t.test('the rate limit of requests without a key counts the forwarded client, only from a trusted proxy', async (t) => {
  for (const [TRUST_PROXY, client] of [[PROXY, '203.0.113.1'], ['1', '203.0.113.2']]) {
    const app = await appWith(TRUST_PROXY)
    const first = await remaining(app, PROXY, client)
    t.equal(await remaining(app, PROXY, client), first - 1, `TRUST_PROXY=${TRUST_PROXY}: one client's budget`)
    t.equal(await remaining(app, PROXY, '203.0.113.99'), first, 'another client behind the same proxy has its own')
    t.equal(await remaining(app, PROXY, `198.51.100.1, ${client}`), first - 2, 'what the client wrote before the proxy\'s entry is not believed')
  }
  const app = await appWith(PROXY)
  const first = await remaining(app, STRANGER, '203.0.113.3')
  t.same([await remaining(app, STRANGER, '203.0.113.4'), await remaining(app, STRANGER)], [first - 1, first - 2],
    'a peer that is not the proxy cannot pick its bucket by writing X-Forwarded-For')
})

t.test('without TRUST_PROXY every client behind a proxy shares its bucket, whatever X-Forwarded-For says', async (t) => {
  const app = await appWith('')
  const first = await remaining(app, PROXY, '203.0.113.1')
  t.same([await remaining(app, PROXY, '203.0.113.2'), await remaining(app, PROXY)], [first - 1, first - 2])
})

/** Failed sign-ins for one email from `forwardedFor` through the proxy; the statuses. */
async function failedSignIns (app: FastifyInstance, email: string, forwardedFor: string, count: number) {
  const page = await app.inject({ url: '/sign-in', remoteAddress: PROXY })
  const cookie = `pw_csrf=${cookieOf(page, 'pw_csrf')}`
  const statuses = []
  for (let i = 0; i < count; i++) {
    statuses.push((await app.inject({
      method: 'POST',
      url: '/sign-in',
      remoteAddress: PROXY,
      headers: { ...FORM, cookie, 'x-forwarded-for': forwardedFor },
      payload: encode({ _csrf: csrfOf(page.body), email, password: 'not the password' }),
    })).statusCode)
  }
  return statuses
}

t.test('the sign-in throttle counts the forwarded client\'s address when the proxy is trusted', async (t) => {
  const app = await appWith(PROXY)
  const user = await makeDashboardUser(app)
  t.same(await failedSignIns(app, user.email, '203.0.113.1', 6), [400, 400, 400, 400, 400, 429], 'one client waits')
  t.same(await failedSignIns(app, user.email, '203.0.113.2', 1), [400], 'another client behind the proxy does not')
})

t.test('without TRUST_PROXY the sign-in throttle sees one address: the proxy\'s', async (t) => {
  const app = await appWith('')
  const user = await makeDashboardUser(app)
  t.same(await failedSignIns(app, user.email, '203.0.113.1', 6), [400, 400, 400, 400, 400, 429])
  t.same(await failedSignIns(app, user.email, '203.0.113.2', 1), [429], 'X-Forwarded-For changed nothing')
})

const PROXIED = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pingward.example.com', host: '127.0.0.1:3000' }

/** A sign-in form posted as a browser at https://pingward.example.com would through the proxy. */
async function proxiedSignIn (app: FastifyInstance, remoteAddress: string) {
  const email = (await makeDashboardUser(app)).email
  const page = await app.inject({ url: '/sign-in', remoteAddress, headers: PROXIED })
  const token = cookieOf(page, 'pw_csrf')!
  const res = await app.inject({
    method: 'POST',
    url: '/sign-in',
    remoteAddress,
    headers: { ...FORM, ...PROXIED, cookie: `pw_csrf=${token}`, origin: 'https://pingward.example.com' },
    payload: encode({ _csrf: csrfOf(page.body), email, password: 'correct horse battery staple' }),
  })
  return { form: page.cookies.find((c) => c.name === 'pw_csrf')!, res, session: res.cookies.find((c) => c.name === 'pw_session') }
}

t.test('behind a trusted proxy the https origin is this site\'s and the cookies are Secure', async (t) => {
  const app = await appWith(PROXY)
  const { form, res, session } = await proxiedSignIn(app, PROXY)
  t.equal(form.secure, true, 'the pre-sign-in cookie is Secure')
  t.equal(res.statusCode, 303, 'the form is accepted from https://pingward.example.com')
  t.equal(session?.secure, true, 'the session cookie is Secure')
  t.equal(session?.httpOnly, true)

  const plain = await app.inject({ url: '/sign-in', remoteAddress: PROXY })
  t.notOk(plain.cookies[0].secure, 'a request the proxy got over plain http gets no Secure cookie')
})

t.test('forwarded headers from an untrusted peer, or with no TRUST_PROXY, change neither origin nor cookies', async (t) => {
  for (const [TRUST_PROXY, remoteAddress] of [[PROXY, STRANGER], ['', PROXY]]) {
    const app = await appWith(TRUST_PROXY)
    const { form, res, session } = await proxiedSignIn(app, remoteAddress)
    t.notOk(form.secure, 'X-Forwarded-Proto does not make the cookie Secure')
    t.equal(res.statusCode, 403, 'the server still sees http://127.0.0.1:3000, so the https origin is another site')
    t.equal(session, undefined)
  }
})
