// Setup links live in the database: one instance prints a link, another accepts it; they expire and work once.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { openDatabase } from '../../src/db/client.ts'
import { passwordSetupUrl } from '../../src/services/first-user.ts'
import { SETUP_LINK_TTL_MS } from '../../src/services/setup-links.ts'
import { verifyPassword } from '../../src/auth/passwords.ts'
import { createUser, findUserByEmail } from '../../src/repositories/users.ts'
import { setupTokens } from '../../src/db/schema.ts'
import { buildTestApp, type Teardown } from '../helper.ts'
import { cookieOf, csrfOf, encode, FORM, PASSWORD } from '../dashboard/dashboard-helper.ts'

const BASE = 'http://127.0.0.1:3000'

/** Two app instances on one database: on PostgreSQL each with a pool of its own, as two processes would be. */
async function twoInstances (t: Teardown, now: () => Date) {
  const { app: first, database, DATABASE_URL } = await buildTestApp(t, { clock: now })
  let secondDatabase = database
  if (DATABASE_URL) {
    secondDatabase = await openDatabase({ DATABASE_URL, DATA_DIR: 'memory://' })
    t.teardown(() => secondDatabase.close())
  }
  const { app: second } = await buildTestApp(t, { clock: now, database: secondDatabase })
  return { first, second }
}

/** Opens the link's page on `app`, then submits its form with the password; the POST's answer. */
async function setPassword (app: FastifyInstance, url: string, password = PASSWORD) {
  const path = url.slice(BASE.length)
  const page = await app.inject({ url: path })
  if (page.statusCode !== 200) return page
  const token = new URL(url).searchParams.get('token')!
  return app.inject({
    method: 'POST',
    url: '/setup',
    headers: { ...FORM, cookie: `pw_csrf=${cookieOf(page, 'pw_csrf')}` },
    payload: encode({ _csrf: csrfOf(page.body), token, password, confirm: password }),
  })
}

t.test('a link printed by one instance sets the password on another, once', async (t) => {
  let now = new Date('2026-11-22T09:00:00.000Z')
  const { first, second } = await twoInstances(t, () => now)
  const user = await createUser(first.db, 'owner@example.com')
  const url = await passwordSetupUrl(first.db, user.email, BASE, now)
  t.match(url, /^http:\/\/127\.0\.0\.1:3000\/setup\?token=[\w-]{43}$/)
  const token = new URL(url!).searchParams.get('token')!
  const [row] = await second.db.select().from(setupTokens)
  t.equal(row.userId, user.id)
  t.not(row.id, token, 'only a hash of the token is stored')
  t.equal(row.expiresAt.getTime() - now.getTime(), SETUP_LINK_TTL_MS, 'it lives 24 hours')
  t.equal(SETUP_LINK_TTL_MS, 24 * 3_600_000)

  now = new Date(now.getTime() + SETUP_LINK_TTL_MS - 1000)
  const done = await setPassword(second, url!)
  t.equal(done.statusCode, 303, 'the other instance accepts it, a second before it expires')
  t.equal(done.headers.location, '/?notice=password-set')
  t.ok(await verifyPassword(PASSWORD, (await findUserByEmail(first.db, user.email))!.passwordHash!))
  t.same(await first.db.select().from(setupTokens), [], 'used: the row is gone')

  const again = await setPassword(first, url!, 'another long password')
  t.equal(again.statusCode, 404, 'a used link is refused, on the instance that printed it too')
  t.match(again.body, 'This setup link is not valid')
})

t.test('an expired link is refused; a link used in another tab meanwhile sets nothing', async (t) => {
  let now = new Date('2026-11-22T09:00:00.000Z')
  const { first, second } = await twoInstances(t, () => now)
  const user = await createUser(first.db, 'late@example.com')
  const old = await passwordSetupUrl(first.db, user.email, BASE, now)
  now = new Date(now.getTime() + SETUP_LINK_TTL_MS)
  const expired = await setPassword(second, old!)
  t.equal(expired.statusCode, 404, 'refused at exactly 24 hours')
  t.match(expired.body, 'more than 24 hours old')
  t.equal((await findUserByEmail(first.db, user.email))!.passwordHash, null)

  // A new link (the next start prints one); issuing it clears the expired row.
  const fresh = await passwordSetupUrl(second.db, user.email, BASE, now)
  t.equal((await first.db.select().from(setupTokens)).length, 1, 'the expired row was removed')
  const path = fresh!.slice(BASE.length)
  const tabs = await Promise.all([first.inject({ url: path }), second.inject({ url: path })])
  const submit = (app: FastifyInstance, page: typeof tabs[0], password: string) => app.inject({
    method: 'POST',
    url: '/setup',
    headers: { ...FORM, cookie: `pw_csrf=${cookieOf(page, 'pw_csrf')}` },
    payload: encode({ _csrf: csrfOf(page.body), token: new URL(fresh!).searchParams.get('token')!, password, confirm: password }),
  })
  const answers = await Promise.all([submit(first, tabs[0], 'first tab password'), submit(second, tabs[1], 'second tab password')])
  t.same(answers.map((a) => a.statusCode).sort(), [303, 404], 'one tab sets it, the other is refused')
  const winner = answers[0].statusCode === 303 ? 'first tab password' : 'second tab password'
  t.ok(await verifyPassword(winner, (await findUserByEmail(first.db, user.email))!.passwordHash!), 'the password of the tab that won')
  t.equal(await passwordSetupUrl(first.db, user.email, BASE, now), undefined, 'no new link once the password is set')
})
