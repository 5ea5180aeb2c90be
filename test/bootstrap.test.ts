// First start: one user and one write key on an empty database, never again.
import t from 'tap'
import { bootstrapFirstUser, firstKeyBanner } from '../src/bootstrap.ts'
import { buildTestApp, request } from './helper.ts'

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
