// Pingward behind a real nginx terminating TLS, configured by docs/deploy/nginx.conf (docs/deploy.md's example):
// with TRUST_PROXY, Chromium signs in over https, creates a monitor and an API key, and every client behind
// nginx has its own rate-limit bucket; without it, the forwarded headers are ignored (one bucket for all,
// no Secure cookie, and the https form is another site's: 403).
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { chromium } from 'playwright-core'
import type { FastifyInstance } from 'fastify'
import { hashPassword } from '../../src/auth/passwords.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp, tempDir } from '../helper.ts'
import { NGINX, httpsClient, setCookies, skipWithout, startNginx, type Answer } from './proxies.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']
const PASSWORD = 'a long enough deploy password'
const MAX = 1000

const skip = skipWithout(NGINX, 'nginx') ||
  (existsSync(CHROMIUM) || process.env.CI ? false : `${CHROMIUM} is missing: install Debian's chromium (.ci/run does)`)

/** A listening app on 127.0.0.1 (the proxy's upstream) and its port. */
async function upstream (t: Parameters<typeof buildTestApp>[0], env: Record<string, string>): Promise<{ app: FastifyInstance, port: number }> {
  const { app } = await buildTestApp(t, { env: { RATE_LIMIT_MAX: String(MAX), ALLOW_PRIVATE_TARGETS: 'true', ...env } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, port: (app.server.address() as AddressInfo).port }
}

const remaining = (answer: Answer) => Number(answer.headers['x-ratelimit-remaining'])

t.test('behind nginx with TRUST_PROXY=127.0.0.1: a person signs in over https, creates a monitor and a key', { skip }, async (t) => {
  const { app, port } = await upstream(t, { TRUST_PROXY: '127.0.0.1' })
  const proxy = await startNginx(t, port)
  const user = await createUser(app.db, `deploy-${Date.now()}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))

  const browser = await chromium.launchPersistentContext(tempDir(t, 'pingward-chromium-'), {
    executablePath: CHROMIUM, headless: true, args: ARGS, ignoreHTTPSErrors: true,
  })
  t.teardown(() => browser.close())
  const page = browser.pages()[0] ?? await browser.newPage()

  await page.goto(`${proxy.url}/`)
  t.equal(page.url(), `${proxy.url}/sign-in?next=%2F`, 'redirected to sign in, on the https address')
  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${proxy.url}/`)
  t.equal(await page.locator('h1').textContent(), 'Monitors', 'signed in: the form was accepted from the https origin')
  const session = (await browser.cookies(proxy.url)).find((c) => c.name === 'pw_session')
  t.equal(session?.secure, true, 'the session cookie is Secure')
  t.equal(session?.httpOnly, true)

  await page.getByLabel('Name').fill('Behind nginx')
  await page.getByLabel('URL').fill('http://127.0.0.1:9/health')
  await page.getByRole('button', { name: 'Add monitor' }).click()
  await page.waitForURL(/\/monitors\/[0-9a-f-]{36}\?notice=monitor-created$/)
  t.ok(page.url().startsWith(`${proxy.url}/monitors/`), 'still on the https address')

  await page.getByRole('link', { name: 'Settings' }).click()
  await page.getByLabel('Name').fill('deploy script')
  await page.getByRole('button', { name: 'Create key' }).click()
  const key = await page.locator('#new-key-value').inputValue()
  t.match(key, /^sk_[0-9A-Za-z]{38}$/)

  const client = httpsClient(t)
  const listed = await client(`${proxy.url}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(listed.status, 200, 'the key works through nginx')
  t.same(JSON.parse(listed.body).data.map((m: { name: string }) => m.name), ['Behind nginx'])

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(`${proxy.url}/sign-in?notice=signed-out`)

  // Two clients behind nginx (127.0.0.2 and 127.0.0.3), each with its own budget; what one writes in
  // X-Forwarded-For is replaced by nginx.
  const [a, b] = [httpsClient(t, '127.0.0.2'), httpsClient(t, '127.0.0.3')]
  const api = `${proxy.url}/api/v1/monitors`
  t.same([remaining(await a(api)), remaining(await a(api)), remaining(await b(api))], [MAX - 1, MAX - 2, MAX - 1], 'one bucket per client')
  t.equal(remaining(await a(api, { headers: { 'x-forwarded-for': '203.0.113.7' } })), MAX - 3, 'a forged X-Forwarded-For does not reach Pingward')

  // Straight to the server, bypassing nginx: 127.0.0.2 is not the trusted proxy, so its headers are ignored.
  const direct = httpsClient(t, '127.0.0.2')
  const forged = { 'x-forwarded-for': '203.0.113.8', 'x-forwarded-proto': 'https' }
  t.equal(remaining(await direct(`http://127.0.0.1:${port}/api/v1/monitors`, { headers: forged })), MAX - 4, 'the client\'s own bucket')
  const signIn = await direct(`http://127.0.0.1:${port}/sign-in`, { headers: forged })
  t.notMatch(setCookies(signIn).join('\n'), /Secure/i, 'X-Forwarded-Proto from a stranger does not make cookies Secure')

  const redirect = await client(`http://127.0.0.1:${proxy.httpPort}/monitors`)
  t.equal(redirect.status, 301, 'plain http is redirected')
  t.match(redirect.headers.location, /^https:\/\/127\.0\.0\.1\/monitors$/)
})

t.test('behind nginx without TRUST_PROXY: the forwarded headers are ignored', { skip: skipWithout(NGINX, 'nginx') }, async (t) => {
  const { port } = await upstream(t, {})
  const proxy = await startNginx(t, port)
  const [a, b] = [httpsClient(t, '127.0.0.2'), httpsClient(t, '127.0.0.3')]
  const api = `${proxy.url}/api/v1/monitors`
  t.same([remaining(await a(api)), remaining(await b(api)), remaining(await a(api, { headers: { 'x-forwarded-for': '203.0.113.7' } }))],
    [MAX - 1, MAX - 2, MAX - 3], 'every client counts against nginx\'s address')

  const form = await a(`${proxy.url}/sign-in`)
  const cookie = setCookies(form).find((c) => c.startsWith('pw_csrf='))!
  t.notMatch(cookie, /Secure/i, 'X-Forwarded-Proto: https does not make the cookie Secure')
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]
  const post = await a(`${proxy.url}/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0], origin: proxy.url },
    body: new URLSearchParams({ _csrf: csrf, email: 'nobody@example.com', password: 'whatever it is' }).toString(),
  })
  t.equal(post.status, 403, 'the server sees http, so the browser\'s https origin is another site\'s')
  t.match(post.body, 'This form has expired or did not come from this site')
})
