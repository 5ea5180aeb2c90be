// Pingward behind a real Caddy terminating TLS, configured by docs/deploy/Caddyfile (docs/deploy.md's example),
// with TRUST_PROXY=127.0.0.1: the sign-in form is accepted from the https origin, its cookies are Secure,
// and each client behind Caddy has its own rate-limit bucket (Caddy's X-Forwarded-For, not the client's).
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { hashPassword } from '../../src/auth/passwords.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp } from '../helper.ts'
import { CADDY, httpsClient, setCookies, skipWithout, startCaddy, type Answer } from './proxies.ts'

const PASSWORD = 'a long enough deploy password'
const MAX = 1000
const remaining = (answer: Answer) => Number(answer.headers['x-ratelimit-remaining'])
const cookiePair = (cookies: string[], name: string) => cookies.find((c) => c.startsWith(`${name}=`))?.split(';')[0]

t.test('behind Caddy with TRUST_PROXY=127.0.0.1', { skip: skipWithout(CADDY, 'caddy') }, async (t) => {
  const { app } = await buildTestApp(t, { env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_MAX: String(MAX) } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const proxy = await startCaddy(t, (app.server.address() as AddressInfo).port)
  const user = await createUser(app.db, `caddy-${Date.now()}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))

  const client = httpsClient(t)
  const form = await client(`${proxy.url}/sign-in`)
  const csrfCookie = setCookies(form).find((c) => c.startsWith('pw_csrf='))!
  t.match(csrfCookie, /; Secure/, 'the pre-sign-in cookie is Secure')
  const signIn = await client(`${proxy.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiePair([csrfCookie], 'pw_csrf')!, origin: proxy.url },
    body: new URLSearchParams({ _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1], email: user.email, password: PASSWORD }).toString(),
  })
  t.equal(signIn.status, 303, 'the form is accepted from the https origin')
  const session = setCookies(signIn).find((c) => c.startsWith('pw_session='))!
  t.match(session, /; Secure/, 'the session cookie is Secure')
  const home = await client(`${proxy.url}/`, { headers: { cookie: cookiePair([session], 'pw_session')! } })
  t.equal(home.status, 200)
  t.match(home.body, '<h1>Monitors</h1>', 'signed in')

  const [a, b] = [httpsClient(t, '127.0.0.2'), httpsClient(t, '127.0.0.3')]
  const api = `${proxy.url}/api/v1/monitors`
  t.same([remaining(await a(api)), remaining(await a(api)), remaining(await b(api))], [MAX - 1, MAX - 2, MAX - 1], 'one bucket per client')
  t.equal(remaining(await a(api, { headers: { 'x-forwarded-for': '203.0.113.7' } })), MAX - 3, 'a forged X-Forwarded-For does not reach Pingward')
})
