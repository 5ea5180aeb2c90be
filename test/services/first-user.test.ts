// First start: one user and one write key on an empty database, never again.
import t from 'tap'
import { bootstrapFirstUser, firstKeyBanner, passwordSetupUrl, setupBanner } from '../../src/services/first-user.ts'
import { findUserByEmail, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp, request } from '../helper.ts'

t.test('the first user and key are made once, even when two processes race', async (t) => {
  const { app } = await buildTestApp(t)
  const keys = await Promise.all([bootstrapFirstUser(app.db, 'Admin@Example.com'), bootstrapFirstUser(app.db, 'admin@example.com')])
  const made = keys.filter(Boolean) as string[]
  t.equal(made.length, 1, 'exactly one key')
  t.equal(await bootstrapFirstUser(app.db, 'admin@example.com'), undefined, 'never again')
  const auth = { authorization: `Bearer ${made[0]}` }
  t.equal((await request(app, auth, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'x', url: 'https://example.com' } })).statusCode, 201, 'a write key')
  const banner = firstKeyBanner('admin@example.com', made[0], 'http://127.0.0.1:3000')
  t.match(banner, `curl -H "Authorization: Bearer ${made[0]}" http://127.0.0.1:3000/api/v1/monitors`)
})

t.test('the first start offers a one-time link to set the dashboard password', async (t) => {
  const { app } = await buildTestApp(t)
  t.equal(await passwordSetupUrl(app.db, 'nobody@example.com', 'http://127.0.0.1:3000'), undefined, 'no such user')
  const key = await bootstrapFirstUser(app.db, 'first@example.com')
  const url = await passwordSetupUrl(app.db, 'first@example.com', 'http://127.0.0.1:3000')
  t.match(url, /^http:\/\/127\.0\.0\.1:3000\/setup\?token=[\w-]{43}$/)
  const banner = firstKeyBanner('first@example.com', key!, 'http://127.0.0.1:3000', url)
  t.match(banner, `Dashboard: set the password of first@example.com with this link (it works once, within 24 hours):\n  ${url}\n`)
  t.match(setupBanner('first@example.com', url!), `\n  ${url}\n`)
  const page = await app.inject({ url: url!.slice('http://127.0.0.1:3000'.length) })
  t.equal(page.statusCode, 200, 'the link opens the setup page')
  const user = await findUserByEmail(app.db, 'first@example.com')
  await setPasswordHash(app.db, user!.id, 'scrypt$x')
  t.equal(await passwordSetupUrl(app.db, 'first@example.com', 'http://127.0.0.1:3000'), undefined, 'none once a password is set')
  t.notMatch(firstKeyBanner('first@example.com', key!, 'http://127.0.0.1:3000'), 'Dashboard:', 'and none in the banner without one')
})
