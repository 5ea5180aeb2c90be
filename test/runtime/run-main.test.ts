// What an entry point prints when its main() fails: a known error as its message, anything else with its stack
// and causes, and never a query's parameters (drizzle's "Failed query" message has them).
import { sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import t, { type Test } from 'tap'
import { hashApiKey } from '../../src/auth/keys.ts'
import { ConfigError } from '../../src/runtime/config-basics.ts'
import { runMain } from '../../src/runtime/run-main.ts'
import { createTestDatabase } from '../helper.ts'

type Options = Parameters<typeof runMain>[2]

/** runMain with a main() that fails with `err`: what it wrote to stderr, and the code it exited with (both captured). */
function failure (t: Test, err: unknown, options?: Options): Promise<{ text: string, code: number | undefined }> {
  return new Promise((resolve) => {
    const written: string[] = []
    const stderr = t.capture(process.stderr, 'write', ((chunk: string | Uint8Array) => { written.push(String(chunk)); return true }) as typeof process.stderr.write)
    const exit = t.capture(process, 'exit', ((code?: number) => {
      stderr.restore()
      exit.restore()
      resolve({ text: written.join(''), code })
    }) as typeof process.exit)
    runMain('pingward', () => Promise.reject(err), options)
  })
}

t.test('a failed query is printed with its SQL, its stack and its cause, without its parameters', async (t) => {
  const { handle } = await createTestDatabase(t)
  const email = 'private-person@example.com'
  await handle.db.execute(sql`insert into users (email) values (${email})`)
  const err = await handle.db.execute(sql`insert into users (email) values (${email})`).then(() => undefined, (e: unknown) => e)
  t.type(err, DrizzleQueryError, 'drizzle\'s error, whose message has "params: <the values>" (precondition)')
  t.match((err as Error).message, `params: ${email}`, '(precondition)')

  const { text, code } = await failure(t, err)
  t.equal(code, 1)
  t.match(text, /^pingward: Error: Failed query: insert into users \(email\) values \(\$1\)\nparams: \[redacted\]\n/, 'the SQL stays')
  t.match(text, /\n {4}at /, 'with its stack')
  t.match(text, /caused by: .*duplicate key/, 'and its cause')
  t.notMatch(text, email, 'never the parameter, nor the cause\'s detail that quotes it')
})

t.test('a setup token\'s hash in a failed insert (the server\'s first start) is not printed', async (t) => {
  const hash = hashApiKey('sk_anything')
  const cause = Object.assign(new Error('write CONNECTION_ENDED 127.0.0.1:5432'), { code: 'CONNECTION_ENDED' })
  const err = new DrizzleQueryError('insert into "setup_tokens" ("id", "user_id") values ($1, $2)', [hash, 'd6f0c5e2-1111-4222-8333-444455556666'], cause)
  const { text, code } = await failure(t, err)
  t.equal(code, 1)
  t.match(text, 'Failed query: insert into "setup_tokens"')
  t.match(text, 'caused by: Error: write CONNECTION_ENDED')
  t.notMatch(text, hash)
  t.notMatch(text, 'd6f0c5e2-1111-4222-8333-444455556666')
})

t.test('a message chosen by the entry point (the CLI\'s) is redacted too; a known error is one line', async (t) => {
  const err = new DrizzleQueryError('select 1 where $1', ['secret-parameter'], new Error('boom'))
  const cli = await failure(t, err, { message: (e) => (e as Error).message, exitCode: () => 3 })
  t.equal(cli.code, 3)
  t.equal(cli.text, 'pingward: Failed query: select 1 where $1\nparams: [redacted]\n')

  const known = await failure(t, new ConfigError('Invalid configuration:\n  PORT="abc"'))
  t.same(known, { text: 'pingward: Invalid configuration:\n  PORT="abc"\n', code: 1 }, 'its message as it is, without a stack')
  const odd = await failure(t, 'a string')
  t.same(odd, { text: 'pingward: a string\n', code: 1 })
})
