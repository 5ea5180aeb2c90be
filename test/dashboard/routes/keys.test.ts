// Settings, then API Keys through app.inject: create (shown once), validation, list, delete (revokes at once), owners only.
import t from 'tap'
import { createApiKey, listApiKeys } from '../../../src/repositories/api-keys.ts'
import { buildTestApp, request } from '../../helper.ts'
import { cookieOf, signedIn } from '../dashboard-helper.ts'

t.test('API keys in the dashboard', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const other = await signedIn(app)

  t.equal((await browser.get('/settings')).headers.location, '/settings/api-keys', 'Settings opens on API Keys')
  const empty = await browser.get('/settings/api-keys')
  t.equal(empty.statusCode, 200)
  t.match(empty.body, '<h1>API Keys</h1>')
  t.match(empty.body, '<a href="/settings/api-keys" aria-current="page">Settings</a>')
  t.match(empty.body, 'No API keys.')

  const cases: Array<[Record<string, string>, string, string]> = [
    [{ name: '  ', scope: 'read' }, 'name', 'Name must be 1-100 characters and not blank'],
    [{ name: 'x'.repeat(101), scope: 'read' }, 'name', 'Name must be 1-100 characters and not blank'],
    [{ name: 'ci', scope: 'admin' }, 'scope', 'Scope must be one of: read, write'],
    [{ name: 'ci', scope: 'read', expires_in_days: '0' }, 'expires_in_days', 'Expires in (days) must be &gt;= 1'],
    [{ name: 'ci', scope: 'read', expires_in_days: '3651' }, 'expires_in_days', 'Expires in (days) must be &lt;= 3650'],
    [{ name: 'ci', scope: 'read', expires_in_days: 'soon' }, 'expires_in_days', 'Expires in (days) must be integer'],
  ]
  for (const [fields, field, message] of cases) {
    const res = await browser.post('/settings/api-keys', fields)
    t.equal(res.statusCode, 400, JSON.stringify(fields))
    t.match(res.body, `<p class="error" id="new-key-form-${field}-error">${message}</p>`)
  }
  t.same(await listApiKeys(app.db, browser.user.id), [], 'nothing was created')

  // Created: a redirect, then the page shows the key once (from a cookie that page deletes).
  const created = await browser.post('/settings/api-keys', { name: 'deploy <script>', scope: 'write', expires_in_days: '30' })
  t.equal(created.statusCode, 303)
  t.equal(created.headers.location, '/settings/api-keys')
  const flash = cookieOf(created, 'pw_new_key')!
  t.match(created.headers['set-cookie'], /^pw_new_key=[0-9a-f-]{36}\.sk_\w{38}; Max-Age=300; Path=\/settings\/api-keys; HttpOnly; SameSite=Strict$/)
  const shown = await app.inject({ url: '/settings/api-keys', headers: { cookie: `${browser.cookie}; pw_new_key=${flash}` } })
  const key = /id="new-key-value" class="key" type="text" value="(sk_\w{38})"/.exec(shown.body)![1]
  t.equal(flash.split('.')[1], key)
  t.match(shown.body, 'Copy it now: it will not be shown again.')
  t.match(shown.body, 'data-copy="new-key-value">Copy</button>')
  t.match(shown.headers['set-cookie'], /^pw_new_key=; Max-Age=0; Path=\/settings\/api-keys/, 'the page deletes the cookie')
  t.equal(shown.headers['cache-control'], 'no-store')
  t.notMatch((await browser.get('/settings/api-keys')).body, key, 'never shown again')

  const [record] = await listApiKeys(app.db, browser.user.id)
  t.match(record, { name: 'deploy <script>', scope: 'write', expiresAt: new Date(now.getTime() + 30 * 86_400_000) })
  const listed = (await browser.get('/settings/api-keys')).body
  t.match(listed, /<td>deploy &lt;script&gt;<\/td><td><code>sk_\w{8}…<\/code><\/td><td>Write<\/td>/)
  t.match(listed, '<time datetime="2026-12-21T12:00:00.000Z">')

  // Someone else's key id in the cookie is never shown; nor is a key that does not match the id's prefix.
  const theirs = await createApiKey(app.db, { userId: other.user.id, orgId: other.user.id, name: 'theirs', scope: 'read' })
  for (const cookie of [`${theirs.record.id}.${theirs.key}`, `${record.id}.${theirs.key}`, `${record.id}.garbage`]) {
    const res = await app.inject({ url: '/settings/api-keys', headers: { cookie: `${browser.cookie}; pw_new_key=${cookie}` } })
    t.notMatch(res.body, 'Your new API key', cookie)
  }

  const auth = { authorization: `Bearer ${key}` }
  t.equal((await request(app, auth, { url: '/api/v1/monitors' })).statusCode, 200, 'the key works')
  const read = await browser.post('/settings/api-keys', { name: 'reader', scope: 'read' })
  t.equal(read.statusCode, 303)

  // Delete: only one's own keys, and the API refuses the key on the next request.
  const stolen = await other.post(`/settings/api-keys/${record.id}/delete`)
  t.equal(stolen.statusCode, 404)
  t.match(stolen.body, 'There is no such API key, or it is not yours.')
  t.equal((await request(app, auth, { url: '/api/v1/monitors' })).statusCode, 200, 'still works')
  const deleted = await browser.post(`/settings/api-keys/${record.id}/delete`)
  t.equal(deleted.statusCode, 303)
  t.equal(deleted.headers.location, '/settings/api-keys?notice=key-deleted')
  t.equal((await request(app, auth, { url: '/api/v1/monitors' })).statusCode, 401, 'revoked at once')
  const after = await browser.get('/settings/api-keys?notice=key-deleted')
  t.match(after.body, 'API key deleted: requests with it are refused from now on.')
  t.same((await listApiKeys(app.db, browser.user.id)).map((k) => k.name), ['reader'])
  t.equal((await browser.post(`/settings/api-keys/${record.id}/delete`)).statusCode, 404, 'gone')
  t.notMatch((await other.get('/settings/api-keys')).body, 'reader', 'each user sees only their keys')
})
