// Log lines of failed queries keep the SQL but never its parameters: no key hash, no key, no header value.
import { Writable } from 'node:stream'
import { sql } from 'drizzle-orm'
import t from 'tap'
import { buildApp } from '../../src/app.ts'
import { hashApiKey } from '../../src/auth/keys.ts'
import { redactedError } from '../../src/runtime/log-redaction.ts'
import { buildTestApp, makeUser, testConfig } from '../helper.ts'

t.test('a failed key lookup is logged without the key hash', async (t) => {
  const { database } = await buildTestApp(t)
  const logs: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { logs.push(String(chunk)); done() } })
  const app = await buildApp({ config: testConfig(), database, logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  const user = await makeUser(app)
  // A fresh app has not remembered the key, so its first request looks the key up: make that query fail.
  await database.db.execute(sql`alter table api_keys rename to api_keys_away`)
  t.teardown(() => database.db.execute(sql`alter table api_keys_away rename to api_keys`))
  const res = await app.inject({ url: '/api/v1/monitors', headers: user.auth })
  t.equal(res.statusCode, 500)
  const text = logs.join('')
  t.match(text, /api_keys/, 'the log names the failed query')
  t.notMatch(text, hashApiKey(user.key), 'but not the key hash it was given')
  t.notMatch(text, user.key)
  t.match(text, /\[redacted\]/)
})

t.test('a constraint violation is logged without the values of the row', async (t) => {
  const { database } = await buildTestApp(t)
  const email = 'private-person@example.com'
  await database.db.execute(sql`insert into users (email) values (${email})`)
  const failure = await database.db.execute(sql`insert into users (email) values (${email})`).then(() => undefined, (err: Error) => err)
  t.ok(failure, 'the second insert fails')
  const line = JSON.stringify(redactedError(failure!))
  t.match(line, /users_email_unique|duplicate key/, 'the log says which constraint')
  t.notMatch(line, email)
  t.notMatch(JSON.stringify(redactedError((failure as Error & { cause: Error }).cause)), email, 'nor the driver\'s own error, whose detail quotes it')
  t.notMatch(line, hashApiKey('sk_anything'))
  t.match(redactedError(new Error(`hash ${hashApiKey('sk_anything')} of sk_${'a'.repeat(38)}`)).message, 'hash [redacted] of [redacted]',
    'anything shaped like a key hash or a key, wherever it is')
})
