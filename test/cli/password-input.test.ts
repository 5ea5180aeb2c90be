// `users password EMAIL` as a real process: the password from a pipe, the one length rule, and sessions ended.
import t from 'tap'
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts'
import { hashPassword, verifyPassword } from '../../src/auth/passwords.ts'
import { createSession } from '../../src/repositories/sessions.ts'
import { findUserByEmail } from '../../src/repositories/users.ts'
import { childDatabase, runCli } from '../helper.ts'

t.test('users password sets the dashboard password from stdin', async (t) => {
  const vars = await childDatabase(t, 'pingward-cli-password-')
  // Opened only between CLI runs: on PGlite one process at a time holds the directory.
  const open = () => openDatabase({ DATA_DIR: 'memory://', ...vars })
  const withDb = async <T>(fn: (handle: DatabaseHandle) => Promise<T>) => {
    const handle = await open()
    try { return await fn(handle) } finally { await handle.close() }
  }

  t.equal((await runCli(['users', 'create', 'me@example.com'], vars)).code, 0)

  const usage = await runCli(['users', 'password'], vars)
  t.equal(usage.code, 2)
  t.match(usage.stderr, 'pingward: users password needs an EMAIL')
  t.match(usage.stderr, 'users password EMAIL')

  const unknown = await runCli(['users', 'password', 'nobody@example.com'], vars, 'a long enough password\n')
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, 'pingward: No user with the email nobody@example.com')

  const short = await runCli(['users', 'password', 'me@example.com'], vars, 'too short\n')
  t.equal(short.code, 1)
  t.equal(short.stderr, 'pingward: the password must be at least 10 characters\n')
  const empty = await runCli(['users', 'password', 'me@example.com'], vars)
  t.equal(empty.code, 1, 'nothing on stdin is no password')

  const set = await runCli(['users', 'password', 'ME@example.com'], vars, 'first password here\r\nsecond line ignored\n')
  t.equal(set.code, 0, set.stderr)
  t.equal(set.stdout, '')
  t.equal(set.stderr, 'Set the dashboard password of me@example.com\n')
  const userId = await withDb(async ({ db }) => {
    const user = (await findUserByEmail(db, 'me@example.com'))!
    t.ok(await verifyPassword('first password here', user.passwordHash!), 'the first line, without its line ending')
    // A signed-in browser, to see the next password change end its session.
    const now = new Date()
    await createSession(db, { id: 'a'.repeat(64), userId: user.id, csrfToken: 'x', now, expiresAt: new Date(now.getTime() + 60_000) })
    return user.id
  })

  const changed = await runCli(['users', 'password', 'me@example.com'], vars, 'second password here')
  t.equal(changed.code, 0, changed.stderr)
  t.equal(changed.stderr, 'Set the dashboard password of me@example.com; ended 1 signed-in session(s)\n')
  await withDb(async ({ db }) => {
    const user = (await findUserByEmail(db, 'me@example.com'))!
    t.equal(user.id, userId)
    t.ok(await verifyPassword('second password here', user.passwordHash!))
    t.notOk(await verifyPassword('first password here', user.passwordHash!))
    t.not(user.passwordHash, await hashPassword('second password here'), 'salted')
  })
})
