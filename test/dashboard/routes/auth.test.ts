// Dashboard sign-in, sessions, CSRF, sign-out and the first-password setup link, through app.inject.
import { randomInt } from 'node:crypto'
import t from 'tap'
import { SESSION_TTL_MS } from '../../../src/dashboard/session.ts'
import { SIGN_IN_LIMITS } from '../../../src/plugins/sign-in-throttle.ts'
import { createUser, findUserByEmail } from '../../../src/repositories/users.ts'
import { verifyPassword } from '../../../src/auth/passwords.ts'
import { issueSetupToken } from '../../../src/services/setup-links.ts'
import { buildTestApp } from '../../helper.ts'
import { cookieOf, csrfOf, encode, FORM, makeDashboardUser, PASSWORD, signedIn, signInForm } from '../dashboard-helper.ts'

t.test('sign-in', async (t) => {
  let now = new Date('2026-11-21T09:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const user = await makeDashboardUser(app)
  // Failures are counted per address too, in Redis when REDIS_URL is set: an address of this run's own.
  const remoteAddress = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`
  const signIn = async (fields: Record<string, string>) => {
    const f = await signInForm(app)
    return app.inject({
      method: 'POST', url: '/sign-in', remoteAddress, headers: { ...FORM, cookie: f.cookie }, payload: encode({ _csrf: f.csrf, ...fields }),
    })
  }

  await t.test('pages need a session: GET redirects to sign-in with the way back, POST too', async (t) => {
    const res = await app.inject({ url: '/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d?before=2026-11-21T09:00:00.000Z' })
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/sign-in?next=%2Fmonitors%2F3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d%3Fbefore%3D2026-11-21T09%3A00%3A00.000Z')
    const post = await app.inject({ method: 'POST', url: '/monitors', headers: FORM, payload: encode({ name: 'x' }) })
    t.equal(post.statusCode, 303)
    t.equal(post.headers.location, '/sign-in')
    const page = await app.inject({ url: '/sign-in' })
    t.equal(page.statusCode, 200)
    t.match(page.headers['content-type'], /^text\/html; charset=utf-8/)
    t.match(page.headers['content-security-policy'], "default-src 'none'")
    t.equal(page.headers['cache-control'], 'no-store')
    t.equal(page.headers['x-frame-options'], 'DENY')
    t.match(page.body, /<label for="email">Email<\/label>/)
    t.match(page.headers['set-cookie'], /^pw_csrf=[\w-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/)
  })

  await t.test('a wrong password or an unknown email fail alike, keeping the email', async (t) => {
    for (const email of [user.email, 'nobody@example.com']) {
      const res = await signIn({ email, password: 'wrong password!', next: '/' })
      t.equal(res.statusCode, 400)
      t.match(res.body, '<div class="error-summary" role="alert"><p>The email or password is incorrect.</p></div>')
      t.match(res.body, `value="${email}"`)
      t.equal(cookieOf(res, 'pw_session'), undefined, 'no session')
    }
  })

  await t.test('the right password starts a session: HttpOnly, SameSite, 14 days, a new id each time', async (t) => {
    const res = await signIn({ email: user.email.toUpperCase(), password: PASSWORD, next: '/settings/api-keys' })
    t.equal(res.statusCode, 303)
    t.equal(res.headers.location, '/settings/api-keys')
    const setCookies = ([] as string[]).concat(res.headers['set-cookie'] as string[])
    t.match(setCookies[0], /^pw_session=[\w-]{43}; Max-Age=1209600; Path=\/; HttpOnly; SameSite=Lax$/)
    t.match(setCookies[1], /^pw_csrf=; Max-Age=0; Path=\//, 'the pre-sign-in token is dropped')
    const again = await signIn({ email: user.email, password: PASSWORD, next: '/' })
    t.not(cookieOf(again, 'pw_session'), cookieOf(res, 'pw_session'))
    const page = await app.inject({ url: '/', headers: { cookie: `pw_session=${cookieOf(res, 'pw_session')}` } })
    t.equal(page.statusCode, 200)
    t.match(page.body, `<span class="who">${user.email}</span>`)
  })

  await t.test('never an open redirect: next must be a path on this site', async (t) => {
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const res = await signIn({ email: user.email, password: PASSWORD, next })
      t.equal(res.headers.location, '/', next)
    }
    const signedIn = await signIn({ email: user.email, password: PASSWORD })
    const cookie = `pw_session=${cookieOf(signedIn, 'pw_session')}`
    const res = await app.inject({ url: '/sign-in?next=//evil.example', headers: { cookie } })
    t.equal(res.headers.location, '/', 'a signed-in visit to /sign-in goes home')
  })

  await t.test('a session expires after 14 days', async (t) => {
    const res = await signIn({ email: user.email, password: PASSWORD })
    const cookie = `pw_session=${cookieOf(res, 'pw_session')}`
    now = new Date(now.getTime() + SESSION_TTL_MS - 1000)
    t.equal((await app.inject({ url: '/', headers: { cookie } })).statusCode, 200)
    now = new Date(now.getTime() + 2000)
    t.equal((await app.inject({ url: '/', headers: { cookie } })).statusCode, 303)
    t.equal((await app.inject({ url: '/', headers: { cookie: 'pw_session=made-up' } })).statusCode, 303)
  })

  await t.test('failed sign-ins are limited per email and address: then even the right password waits', async (t) => {
    const victim = await makeDashboardUser(app)
    for (let i = 0; i < SIGN_IN_LIMITS.failuresBeforeDelay; i++) {
      t.equal((await signIn({ email: victim.email, password: `guess ${i} guess` })).statusCode, 400)
    }
    const locked = await signIn({ email: ` ${victim.email.toUpperCase()} `, password: PASSWORD })
    t.equal(locked.statusCode, 429)
    t.match(locked.body, /Too many failed sign-ins\. Try again in 1 minute\./)
    t.equal(cookieOf(locked, 'pw_session'), undefined)
    t.equal((await signIn({ email: user.email, password: PASSWORD })).statusCode, 303, 'another email is not affected')
  })
})

t.test('CSRF: every POST needs the token of its session, from this origin', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const create = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/monitors', headers: { ...FORM, cookie: browser.cookie, ...headers }, payload: encode(fields) })
  const valid = { name: 'CSRF', url: 'https://example.com' }

  const missing = await create(valid)
  t.equal(missing.statusCode, 403, 'no token')
  t.match(missing.headers['content-type'], /^text\/html/)
  t.match(missing.body, /<h1>Forbidden<\/h1>[\s\S]*did not come from this site/)
  t.equal((await create({ ...valid, _csrf: 'x'.repeat(43) })).statusCode, 403, 'a wrong token')
  const other = await signedIn(app)
  t.equal((await create({ ...valid, _csrf: other.csrf })).statusCode, 403, 'another session\'s token')
  t.equal((await create({ ...valid, _csrf: browser.csrf }, { origin: 'https://evil.example' })).statusCode, 403, 'another origin')
  t.equal((await create({ ...valid, _csrf: browser.csrf }, { origin: 'null' })).statusCode, 403, 'an opaque origin')
  t.equal((await create({ ...valid, _csrf: browser.csrf }, { referer: 'http://evil.example/page' })).statusCode, 403, 'another referer')
  t.equal((await browser.get('/')).body.includes('CSRF'), false, 'nothing was created')

  const ok = await create({ ...valid, _csrf: browser.csrf }, { origin: 'http://localhost:80' })
  t.equal(ok.statusCode, 303, 'the same origin (inject\'s host is localhost:80)')
  t.equal((await browser.post('/monitors', valid)).statusCode, 303, 'no Origin nor Referer: the token suffices')

  const signIn = await app.inject({ method: 'POST', url: '/sign-in', headers: FORM, payload: encode({ email: browser.user.email, password: PASSWORD }) })
  t.equal(signIn.statusCode, 403, 'the sign-in form needs its token too (login CSRF)')
  const form = await signInForm(app)
  const mismatched = await app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { ...FORM, cookie: 'pw_csrf=' + 'y'.repeat(43) },
    payload: encode({ _csrf: form.csrf, email: browser.user.email, password: PASSWORD }),
  })
  t.equal(mismatched.statusCode, 403, 'a token that is not the cookie\'s')

  const signOutNoToken = await browser.post('/sign-out', { _csrf: '' })
  t.equal(signOutNoToken.statusCode, 403, 'sign-out needs the token')
  t.equal((await browser.get('/')).statusCode, 200, 'still signed in')
})

t.test('the form parser is the dashboard\'s alone, and JSON is not accepted there', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const api = await app.inject({ method: 'POST', url: '/api/v1/monitors', headers: { ...FORM, cookie: browser.cookie }, payload: 'name=x' })
  t.equal(api.statusCode, 401, 'a session cookie is no API key')
  const json = await app.inject({
    method: 'POST',
    url: '/monitors',
    headers: { cookie: browser.cookie, 'content-type': 'application/json' },
    payload: JSON.stringify({ _csrf: browser.csrf, name: 'x', url: 'https://example.com' }),
  })
  t.equal(json.statusCode, 415)
  t.match(json.body, '<h1>Unsupported form</h1>')
  const big = await browser.post('/monitors', { name: 'x'.repeat(1024 * 1024 + 10), url: 'https://example.com' })
  t.equal(big.statusCode, 413)
  t.match(big.body, 'The form is larger than 1 MiB.')
})

t.test('sign-out deletes the session on the server', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const res = await browser.post('/sign-out')
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/sign-in?notice=signed-out')
  t.match(res.headers['set-cookie'], /^pw_session=; Max-Age=0; Path=\//)
  t.equal((await browser.get('/')).statusCode, 303, 'the old cookie is refused')
  const page = await app.inject({ url: '/sign-in?notice=signed-out' })
  t.match(page.body, '<p class="notice" role="status">You have signed out.</p>')
  const unknown = await app.inject({ url: '/sign-in?notice=%3Cscript%3E' })
  t.notMatch(unknown.body, 'class="notice"', 'only known notices, never text from the URL')
})

t.test('the first password through a one-time setup link', async (t) => {
  const { app } = await buildTestApp(t, { env: { ADMIN_EMAIL: 'owner@example.com' } })
  const owner = await createUser(app.db, 'owner@example.com')
  const first = await app.inject({ url: '/sign-in' })
  t.match(first.body, 'No password is set yet')
  t.match(first.body, 'npm run -s cli -- users password owner@example.com')

  const token = await issueSetupToken(app.db, owner.id, new Date())
  t.equal((await app.inject({ url: '/setup?token=wrong' })).statusCode, 404)
  const page = await app.inject({ url: `/setup?token=${token}` })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<strong>owner@example.com</strong>')
  const cookie = `pw_csrf=${cookieOf(page, 'pw_csrf')}`
  const csrf = csrfOf(page.body)
  const submit = (fields: Record<string, string>) =>
    app.inject({ method: 'POST', url: '/setup', headers: { ...FORM, cookie }, payload: encode({ _csrf: csrf, token, ...fields }) })

  const short = await submit({ password: 'short', confirm: 'short' })
  t.equal(short.statusCode, 400)
  t.match(short.body, '<p class="error" id="password-error">New password must be at least 10 characters</p>')
  const differ = await submit({ password: 'long enough 1', confirm: 'long enough 2' })
  t.match(differ.body, '<p class="error" id="confirm-error">Repeat the password: the two passwords differ</p>')

  const done = await submit({ password: PASSWORD, confirm: PASSWORD })
  t.equal(done.statusCode, 303)
  t.equal(done.headers.location, '/?notice=password-set')
  const session = `pw_session=${cookieOf(done, 'pw_session')}`
  const home = await app.inject({ url: '/?notice=password-set', headers: { cookie: session } })
  t.match(home.body, 'Your password is set and you are signed in.')
  t.ok(await verifyPassword(PASSWORD, (await findUserByEmail(app.db, 'owner@example.com'))!.passwordHash!))

  const reused = await submit({ password: 'another password', confirm: 'another password' })
  t.equal(reused.statusCode, 404, 'the link works once')
  t.match(reused.body, 'This setup link is not valid')
  const other = await issueSetupToken(app.db, owner.id, new Date())
  t.equal((await app.inject({ url: `/setup?token=${other}` })).statusCode, 404, 'no link works once a password is set')
  t.notMatch((await app.inject({ url: '/sign-in' })).body, 'No password is set yet')
})

t.test('failed sign-ins are counted across instances through Redis', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async (t) => {
  const env = { REDIS_URL: process.env.REDIS_URL! }
  const { app, database } = await buildTestApp(t, { env })
  const { app: other } = await buildTestApp(t, { env, database })
  const user = await makeDashboardUser(app)
  const remoteAddress = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(256)}`
  const signIn = async (instance: typeof app, password: string) => {
    const f = await signInForm(instance)
    return instance.inject({
      method: 'POST',
      url: '/sign-in',
      remoteAddress,
      headers: { ...FORM, cookie: f.cookie },
      payload: encode({ _csrf: f.csrf, email: user.email, password }),
    })
  }
  for (let i = 0; i < SIGN_IN_LIMITS.failuresBeforeDelay; i++) {
    t.equal((await signIn(i % 2 ? app : other, `wrong guess ${i}`)).statusCode, 400)
  }
  t.equal((await signIn(app, PASSWORD)).statusCode, 429, 'locked on the first instance')
  t.equal((await signIn(other, PASSWORD)).statusCode, 429, 'and on the second')
})

t.test('static assets, and error pages when the database is gone', async (t) => {
  const { app, database } = await buildTestApp(t)
  const page = (await app.inject({ url: '/sign-in' })).body
  const css = /href="(\/assets\/dashboard\.css\?v=\w{12})"/.exec(page)![1]
  const res = await app.inject({ url: css })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/css/)
  t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', 'the versioned path is cached for good')
  t.match(res.body, ':focus-visible')
  t.equal((await app.inject({ url: '/assets/dashboard.js' })).headers['cache-control'], 'no-cache')
  const missing = await app.inject({ url: '/assets/passwd' })
  t.equal(missing.statusCode, 404)
  t.match(missing.body, 'There is no such file.')

  const browser = await signedIn(app)
  await database.close()
  const down = await browser.get('/')
  t.equal(down.statusCode, 503)
  t.match(down.body, '<h1>Service unavailable</h1>')
  t.match(down.body, 'The database cannot be reached right now.')
})
