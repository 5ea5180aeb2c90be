// Dashboard sign-in through OpenID Connect against a real provider on loopback (oidc-provider): a user is made on
// the first sign-in with the role their group maps to, in the configured organization; a wrong state, an expired
// code, a code issued to another client and a group that maps to no role are refused, and no session is made.
import t from 'tap'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { insertOrganization } from '../../../src/organizations/repository.ts'
import { users } from '../../../src/db/schema.ts'
import { buildTestApp, makeKey, makeUser, request, type Teardown } from '../../helper.ts'
import { startOidcProvider } from '../../support/oidc-provider.ts'
import { FORM, makeDashboardUser, PASSWORD } from '../dashboard-helper.ts'

const PUBLIC_URL = 'http://localhost:3000'
const CALLBACK = `${PUBLIC_URL}/sign-in/oidc/callback`

async function setUp (t: Teardown, env: Record<string, string> = {}) {
  const idp = await startOidcProvider(t, {
    clients: [
      { clientId: 'pingward', clientSecret: 'pingward-client-secret', redirectUri: CALLBACK },
      { clientId: 'other-app', clientSecret: 'other-client-secret', redirectUri: 'http://other.example/callback' },
    ],
  })
  const { app } = await buildTestApp(t, {
    env: {
      PUBLIC_URL,
      OIDC_ISSUER_URL: idp.issuer,
      OIDC_CLIENT_ID: 'pingward',
      OIDC_CLIENT_SECRET: 'pingward-client-secret',
      OIDC_ORGANIZATION: 'acme',
      OIDC_ROLE_MAP: 'ops=editor, oncall=responder, platform=admin',
      OIDC_PROVIDER_NAME: 'Acme SSO',
      ...env,
    },
  })
  const founder = await makeUser(app)
  const acme = await insertOrganization(app.db, { name: 'Acme', slug: 'acme', ownerId: founder.user.id, now: new Date() })
  const owner = await makeKey(app, founder.user.id, 'write', undefined, acme.id)
  return { app, idp, acme, owner }
}

/** Starts a sign-in in Pingward: the provider's URL and the cookie that keeps the sign-in's state. */
async function start (app: FastifyInstance, next = '/') {
  const res = await app.inject({ url: `/sign-in/oidc?next=${encodeURIComponent(next)}` })
  const cookie = /^(pw_oidc=[^;]+)/.exec(String(res.headers['set-cookie']))?.[1]
  return { status: res.statusCode, location: res.headers.location as string, cookie: cookie! }
}

const callback = (app: FastifyInstance, url: URL, cookie: string) =>
  app.inject({ url: `${url.pathname}${url.search}`, headers: { cookie } })

const sessionCookie = (res: { headers: Record<string, unknown> }) => /pw_session=([^;]+)/.exec(String(res.headers['set-cookie']))?.[1]

t.test('a first sign-in makes the user, a member with the role of their group, signed in to that organization', async (t) => {
  const { app, idp, acme, owner } = await setUp(t)
  idp.addAccount('grace', { email: 'Grace@Example.com', groups: ['staff', 'ops'] })
  const signIn = await app.inject({ url: '/sign-in' })
  t.match(signIn.body, 'href="/sign-in/oidc?next=%2F">Sign in with Acme SSO</a>')
  t.match(signIn.body, 'name="password"', 'passwords too, by default')

  const started = await start(app, '/monitors/new')
  t.equal(started.status, 303)
  const authorization = new URL(started.location)
  t.equal(authorization.origin, idp.issuer)
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256')
  t.ok(authorization.searchParams.get('state') && authorization.searchParams.get('nonce'), 'state and nonce')
  const back = await idp.authorize(started.location, 'grace', CALLBACK)
  const done = await callback(app, back, started.cookie)
  t.equal(done.statusCode, 303, done.body)
  t.equal(done.headers.location, '/monitors/new')
  const session = sessionCookie(done)
  t.ok(session, 'signed in')
  const home = await app.inject({ url: '/', headers: { cookie: `pw_session=${session}` } })
  t.match(home.body, '(editor)', 'in Acme, as an editor')

  const members = (await request(app, owner.auth, { url: '/api/v1/organization/members' })).json().data
  t.match(members.find((m: { email: string }) => m.email === 'grace@example.com'), { role: 'editor' })
  const events = (await request(app, owner.auth, { url: '/api/v1/audit-events?action=member.added' })).json().data
  t.match(events[0], { actor: { type: 'system', label: 'oidc' }, changes: { role: [null, 'editor'] } })

  // The provider's groups decide the role at every sign-in.
  idp.addAccount('grace', { email: 'grace@example.com', groups: ['oncall', 'platform'] })
  const again = await start(app)
  const second = await callback(app, await idp.authorize(again.location, 'grace', CALLBACK), again.cookie)
  t.equal(second.statusCode, 303)
  t.match((await request(app, owner.auth, { url: '/api/v1/organization/members' })).json().data.find((m: { email: string }) => m.email === 'grace@example.com'), { role: 'admin' })
  t.equal((await app.db.select().from(users).where(eq(users.email, 'grace@example.com'))).length, 1, 'one user')
  t.equal(acme.slug, 'acme')
})

t.test('a wrong state, an expired code, another client\'s code and an unmapped group are refused', async (t) => {
  const { app, idp } = await setUp(t)
  idp.addAccount('ada', { email: 'ada@example.com', groups: ['ops'] })
  idp.addAccount('mallory', { email: 'mallory@example.com', groups: ['marketing'] })
  idp.addAccount('eve', { email: 'eve@example.com', emailVerified: false, groups: ['ops'] })

  const wrongState = await start(app)
  const back = await idp.authorize(wrongState.location, 'ada', CALLBACK)
  back.searchParams.set('state', 'another-state-than-the-one-sent')
  const refusedState = await callback(app, back, wrongState.cookie)
  t.equal(refusedState.statusCode, 400, 'a wrong state')
  t.match(refusedState.body, 'did not pass the checks')
  t.notOk(sessionCookie(refusedState))

  const expired = await start(app)
  const expiredBack = await idp.authorize(expired.location, 'ada', CALLBACK)
  idp.expireCodes()
  const refusedExpired = await callback(app, expiredBack, expired.cookie)
  t.equal(refusedExpired.statusCode, 400, 'an expired code')
  t.match(refusedExpired.body, 'The provider refused the sign-in')
  t.notOk(sessionCookie(refusedExpired))

  // A code the provider issued to another application, brought back with this sign-in's state.
  const mine = await start(app)
  const theirs = new URL(mine.location)
  theirs.searchParams.set('client_id', 'other-app')
  theirs.searchParams.set('redirect_uri', 'http://other.example/callback')
  const otherBack = await idp.authorize(theirs.href, 'ada', 'http://other.example/callback')
  const substituted = new URL(CALLBACK)
  substituted.searchParams.set('code', otherBack.searchParams.get('code')!)
  substituted.searchParams.set('state', new URL(mine.location).searchParams.get('state')!)
  substituted.searchParams.set('iss', idp.issuer)
  const refusedAudience = await callback(app, substituted, mine.cookie)
  t.equal(refusedAudience.statusCode, 400, 'a code, and so a token, for another client')
  t.notOk(sessionCookie(refusedAudience))

  const unmapped = await start(app)
  const refusedRole = await callback(app, await idp.authorize(unmapped.location, 'mallory', CALLBACK), unmapped.cookie)
  t.equal(refusedRole.statusCode, 403, 'a group that maps to no role')
  t.match(refusedRole.body, 'mallory@example.com has no role in Pingward')
  t.notOk(sessionCookie(refusedRole))
  t.same(await app.db.select().from(users).where(eq(users.email, 'mallory@example.com')), [], 'and no user is made')

  const unverified = await start(app)
  const refusedEmail = await callback(app, await idp.authorize(unverified.location, 'eve', CALLBACK), unverified.cookie)
  t.equal(refusedEmail.statusCode, 400, 'an email the provider has not verified')

  const noCookie = await callback(app, await idp.authorize((await start(app)).location, 'ada', CALLBACK), 'pw_oidc=')
  t.equal(noCookie.statusCode, 400, 'a callback without the sign-in\'s cookie')
  t.match(noCookie.body, 'has expired or was started in another browser')
})

t.test('with password sign-in off, only the provider signs in', async (t) => {
  const { app } = await setUp(t, { PASSWORD_SIGN_IN: 'false' })
  const page = await app.inject({ url: '/sign-in' })
  t.match(page.body, 'Sign in with Acme SSO')
  t.notMatch(page.body, 'name="password"')
  // A user with a password, and a form as a crafted page would send it (a valid CSRF token): still refused.
  const ada = await makeDashboardUser(app)
  const csrf = 'a'.repeat(43)
  const posted = await app.inject({
    method: 'POST', url: '/sign-in', headers: { ...FORM, cookie: `pw_csrf=${csrf}` }, payload: new URLSearchParams({ _csrf: csrf, email: ada.email, password: PASSWORD }).toString(),
  })
  t.equal(posted.statusCode, 404)
  t.match(posted.body, 'signs in through its identity provider only')
  t.notOk(sessionCookie(posted))
  t.equal((await app.inject({ url: '/setup?token=x' })).statusCode, 404)
})
