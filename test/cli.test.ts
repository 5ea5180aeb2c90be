// The operator command line as a real process: users, keys, usage errors, --help, the data-dir lock, and keys that work
// in the API. (While a server runs: test/cli/server-running.test.ts.)
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { buildApp } from '../src/app.ts'
import { lockDataDir } from '../src/db/data-dir-lock.ts'
import { hashApiKey } from '../src/auth/keys.ts'
import { listApiKeys } from '../src/repositories/api-keys.ts'
import { findUserByEmail } from '../src/repositories/users.ts'
import { STRIP_TYPES_ARGV } from '../src/runtime/jobs-thread.ts'
import { childDatabase, childEnv, runCli, testConfig, usingPostgres, type CliRun } from './helper.ts'

const KEY_LINE = /^sk_[0-9A-Za-z]{38}\n$/
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

t.test('usage errors exit 2 with the usage on stderr, before touching any database', async (t) => {
  // A DATA_DIR that cannot be created: any command that opened the database would fail differently.
  const vars = { DATA_DIR: '/proc/pingward-cannot-be-here' }
  const cases: Array<[string[], string]> = [
    [[], 'a command is required'],
    [['monitors', 'purge'], 'unknown command: monitors purge'],
    [['--version'], 'unknown command: --version'],
    [['users'], 'users needs a command'],
    [['users', 'remove', 'a@example.com'], 'unknown command: users remove'],
    [['users', 'list', 'extra'], 'users list: unexpected argument extra'],
    [['users', 'create', 'not-an-email'], 'users create needs an EMAIL'],
    [['users', 'delete', 'a@example.com'], 'users delete deletes a@example.com and all their data: add --yes to confirm'],
    [['keys', 'create', 'a@example.com', '--scope', 'admin'], '--scope must be read or write'],
    [['keys', 'create', 'a@example.com', '--expires-in', '0'], '--expires-in must be a whole number of days from 1 to 3650'],
    [['keys', 'create', 'a@example.com', '--colour', 'red'], "keys create: Unknown option '--colour'"],
    [['keys', 'delete', 'not-a-key-id'], 'keys delete needs a KEY_ID'],
  ]
  const runs = await Promise.all(cases.map(([args]) => runCli(args, vars)))
  runs.forEach((run, i) => {
    const expected = cases[i][1]
    t.equal(run.code, 2, `exit 2: ${expected}`)
    t.equal(run.stdout, '', 'nothing on stdout')
    t.match(run.stderr, `pingward: ${expected}`)
    t.match(run.stderr, /Usage: npm run -s cli -- <command>[\s\S]*keys create EMAIL \[--org SLUG\] \[--scope read\|write\]/)
  })
})

t.test('openapi prints the whole committed document into a pipe, without a database', async (t) => {
  // A pipe takes 64 KiB at a time: the command may exit only once the pipe has taken the rest.
  // Unset in the shell: tap's process tracking adds NODE_OPTIONS back to spawns, and a child's coverage is not the tests'.
  const shell = `unset NODE_OPTIONS NODE_V8_COVERAGE; '${process.execPath}' ${STRIP_TYPES_ARGV.join(' ')} src/cli.ts openapi | cat`
  const env = childEnv({ DATA_DIR: '/proc/pingward-cannot-be-here' })
  const { stdout } = await promisify(execFile)('sh', ['-c', shell], { env, maxBuffer: 64 * 1024 * 1024 })
  t.equal(stdout, readFileSync('openapi/openapi.json', 'utf8'), 'the document, whole')
})

t.test('--help at the top and on every command: the usage on stdout, exit 0, no database', async (t) => {
  const vars = { DATA_DIR: '/proc/pingward-cannot-be-here' }
  const top = await Promise.all([['--help'], ['-h'], ['help']].map((args) => runCli(args, vars)))
  for (const run of top) {
    t.equal(run.code, 0, run.stderr)
    t.equal(run.stderr, '')
    t.match(run.stdout, /^Usage: npm run -s cli -- <command>\n/)
    for (const command of ['users create EMAIL', 'users password EMAIL', 'users list', 'users delete EMAIL --yes',
      'keys create EMAIL [--org SLUG] [--scope read|write] [--name NAME] [--expires-in DAYS]', 'keys list EMAIL', 'keys delete KEY_ID',
      'orgs list', 'orgs create SLUG --owner EMAIL [--name NAME]', 'members list --org SLUG', 'members add EMAIL --org SLUG --role ROLE',
      'members role EMAIL --org SLUG --role ROLE', 'members remove EMAIL --org SLUG', 'migrate', 'openapi']) {
      t.match(run.stdout, `\n  ${command}`, `lists ${command}`)
    }
  }
  const commands = ['users create', 'users password', 'users list', 'users delete', 'keys create', 'keys list', 'keys delete',
    'orgs list', 'orgs create', 'members list', 'members add', 'members role', 'members remove', 'migrate', 'openapi']
  const runs = await Promise.all(commands.map((command) => runCli([...command.split(' '), '--help'], vars)))
  runs.forEach((run, i) => {
    t.equal(run.code, 0, `${commands[i]} --help: ${run.stderr}`)
    t.match(run.stdout, new RegExp(`^Usage: npm run -s cli -- ${commands[i]}\\b`), `${commands[i]} --help shows its usage`)
    t.notMatch(run.stdout, commands[i] === 'users list' ? 'keys list' : 'users list', 'and only its own')
  })
  const group = await runCli(['keys', '--help'], vars)
  t.equal(group.code, 0)
  t.match(group.stdout, /^Usage: npm run -s cli -- keys <command>\n/)
  t.match(group.stdout, 'keys delete KEY_ID')
  t.notMatch(group.stdout, 'users create')
  const afterArgs = await runCli(['keys', 'create', 'a@example.com', '--scope', 'read', '--help'], vars)
  t.equal(afterArgs.code, 0, '--help anywhere in a command shows its help and does nothing else')
  t.equal(afterArgs.stderr, '')
})

t.test('users and keys through the command line, and a key it made works in the API', async (t) => {
  const vars = await childDatabase(t, 'pingward-cli-')
  // On PGlite the CLI has exited before each of these: only one process may hold the directory.
  const openApp = () => buildApp({ config: testConfig(vars), logger: false })

  const created = await runCli(['users', 'create', 'Ops@Example.com'], vars)
  t.equal(created.code, 0, created.stderr)
  t.match(created.stdout, new RegExp(`^${UUID}\\n$`), 'prints the new user id alone')
  t.match(created.stderr, 'Created user ops@example.com')
  const userId = created.stdout.trim()

  const duplicate = await runCli(['users', 'create', 'ops@example.com'], vars)
  t.equal(duplicate.code, 1)
  t.equal(duplicate.stdout, '')
  t.equal(duplicate.stderr, 'pingward: A user with the email ops@example.com already exists\n')

  const made = await runCli(['keys', 'create', 'ops@example.com', '--scope', 'read', '--name', 'ci', '--expires-in', '7'], vars)
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, KEY_LINE, 'stdout is the key and nothing else')
  const key = made.stdout.trim()
  const keyId = new RegExp(`Created read key (${UUID}) \\((sk_[0-9A-Za-z]{8})\\.\\.\\.\\) for ops@example.com, expires `).exec(made.stderr)
  t.ok(keyId, `stderr describes the key: ${made.stderr}`)
  t.equal(keyId?.[2], key.slice(0, 11))
  t.notMatch(made.stderr, key, 'the key itself appears only on stdout')

  const listed = await runCli(['keys', 'list', 'ops@example.com'], vars)
  t.equal(listed.code, 0, listed.stderr)
  const [header, ...rows] = listed.stdout.trimEnd().split('\n')
  t.equal(header, 'id\tprefix\tscope\tname\tcreated_at\tlast_used_at\texpires_at')
  t.equal(rows.length, 1)
  const [id, prefix, scope, name, , lastUsed, expires] = rows[0].split('\t')
  t.equal(id, keyId?.[1])
  t.equal(prefix, `${key.slice(0, 11)}...`)
  t.equal(scope, 'read')
  t.equal(name, 'ci')
  t.equal(lastUsed, '-')
  const days = (Date.parse(expires) - Date.now()) / 86_400_000
  t.ok(days > 6.9 && days <= 7, `expires in 7 days (${expires})`)
  t.notMatch(listed.stdout + listed.stderr, key, 'the list never shows the key')
  t.notMatch(listed.stdout, key.slice(11, 20), 'nor any part of it beyond the prefix')

  if (usingPostgres) {
    t.comment('the data-directory lock is a PGlite matter: skipped on PostgreSQL')
  } else {
    // Another process holds the directory (this one, which is alive): the CLI refuses and changes nothing.
    const release = lockDataDir(vars.DATA_DIR)
    let locked: CliRun
    try {
      locked = await runCli(['users', 'create', 'intruder@example.com'], vars)
      t.equal(readFileSync(join(vars.DATA_DIR, 'pingward.lock'), 'utf8'), String(process.pid), 'our lock is still in place')
    } finally {
      release()
    }
    t.equal(locked.code, 1)
    t.equal(locked.stdout, '')
    t.match(locked.stderr, `pingward: The embedded database in ${vars.DATA_DIR} is in use by another Pingward process (pid ${process.pid})`)
    t.match(locked.stderr, 'It does not answer on its admin socket', 'a holder with no admin socket (not a server): after a wait for one')
    t.notMatch(locked.stderr, /\n\s+at /, 'no stack trace')
  }

  const app = await openApp()
  try {
    const auth = { authorization: `Bearer ${key}` }
    const read = await app.inject({ url: '/api/v1/monitors', headers: auth })
    t.equal(read.statusCode, 200, 'the CLI key reads')
    t.same(read.json(), { data: [] })
    const write = await app.inject({ method: 'POST', url: '/api/v1/monitors', headers: auth, payload: { name: 'x', url: 'https://example.com' } })
    t.equal(write.statusCode, 403, 'a read key may not write')
    const user = await findUserByEmail(app.db, 'ops@example.com')
    t.equal(user?.id, userId)
    // The key's last use is written after the answer (a background write): on PostgreSQL, on a connection of its
    // own, so the list below could read before it (a CI run did).
    await app.backgroundWrites.settled()
    const [record] = await listApiKeys(app.db, userId)
    t.equal(record.scope, 'read')
    t.equal(record.name, 'ci')
    t.ok(record.lastUsedAt, 'the request recorded the key as used')
    const stored = await app.database.db.query.apiKeys.findFirst()
    t.equal(stored?.keyHash, hashApiKey(key), 'only the hash of the key is stored')
    if (!usingPostgres) t.equal(await findUserByEmail(app.db, 'intruder@example.com'), undefined, 'the refused run wrote nothing')
  } finally {
    await app.close()
  }

  const deleted = await runCli(['keys', 'delete', keyId![1]], vars)
  t.equal(deleted.code, 0, deleted.stderr)
  t.equal(deleted.stdout, '')
  t.match(deleted.stderr, `Deleted key ${keyId![1]}`)

  const after = await openApp()
  try {
    const refused = await after.inject({ url: '/api/v1/monitors', headers: { authorization: `Bearer ${key}` } })
    t.equal(refused.statusCode, 401, 'the deleted key is refused')
    t.same(refused.json(), { error: 'Unauthorized' })
    t.same(await listApiKeys(after.db, userId), [])
  } finally {
    await after.close()
  }
})
