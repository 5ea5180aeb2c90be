// The CLI while a server process runs on the same database: on the embedded one through the server's admin
// socket (the server holds the directory), on PostgreSQL directly. Real processes, nothing mocked.
import { existsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import t from 'tap'
import { adminSocketPath } from '../../src/cli/admin-client.ts'
import { childDatabase, outputWaiter, runCli, spawnPingward, usingPostgres, type CliRun } from '../helper.ts'

const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function startServer (t: { teardown: (fn: () => unknown) => void }, vars: Record<string, string>) {
  const child = spawnPingward('src/server.ts', [], {
    HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info', ADMIN_EMAIL: 'admin@example.com', ...vars,
  })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => { wake(); resolve(code) }))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  return { child, waitFor, exited, output: () => ({ stdout, stderr }) }
}

/** The rows of a tab-separated table, by its header's names. */
function rowsOf (run: CliRun): Array<Record<string, string>> {
  const [header, ...lines] = run.stdout.trimEnd().split('\n')
  const names = header.split('\t')
  return lines.map((line) => Object.fromEntries(line.split('\t').map((value, i) => [names[i], value])))
}

t.test('every command works while a server runs on the database', async (t) => {
  const vars = await childDatabase(t, 'pingward-cli-live-')
  const server = startServer(t, vars)
  const [, baseUrl] = await server.waitFor(LISTENING)
  await server.waitFor(/API documentation: /) // the first user and key are made
  if (!usingPostgres) {
    const socket = adminSocketPath(vars.DATA_DIR)
    t.equal(statSync(socket).mode & 0o777, 0o600, 'the admin socket is its user\'s only')
    t.equal(statSync(dirname(socket)).mode & 0o777, 0o700, 'and so is its directory')
  }
  const times: Array<[string, number]> = []
  const cli = async (args: string[], input?: string) => {
    const started = process.hrtime.bigint()
    const run = await runCli(args, vars, input)
    times.push([args.slice(0, 2).join(' '), Number(process.hrtime.bigint() - started) / 1e6])
    return run
  }

  const created = await cli(['users', 'create', 'Ops@Example.com'])
  t.equal(created.code, 0, created.stderr)
  t.match(created.stdout.trim(), UUID)
  t.equal(created.stderr, 'Created user ops@example.com\n')
  const duplicate = await cli(['users', 'create', 'admin@example.com'])
  t.equal(duplicate.code, 1)
  t.equal(duplicate.stderr, 'pingward: A user with the email admin@example.com already exists\n', 'a refusal reads the same through the server')

  const made = await cli(['keys', 'create', 'ops@example.com', '--scope', 'read', '--name', 'ci'])
  t.equal(made.code, 0, made.stderr)
  const key = made.stdout.trim()
  t.match(key, /^sk_[0-9A-Za-z]{38}$/)
  const read = await fetch(`${baseUrl}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(read.status, 200, 'the running server accepts the new key')

  // Checked by the server (the CLI loads no validator): still a usage error, exit 2, with the command's usage.
  const logged = server.output().stdout.length
  const badScope = await cli(['keys', 'create', 'ops@example.com', '--scope', 'admin'])
  t.equal(badScope.code, 2, badScope.stderr)
  t.match(badScope.stderr, /^pingward: --scope must be read or write\n\nUsage: npm run -s cli -- <command>/)
  // Its log line reaches this process through a pipe, maybe after the CLI's answer: waited for, not read at once.
  if (!usingPostgres) t.ok(await server.waitFor(/"command":"keys create"/, 10_000, logged), 'the server checked it')

  const keys = await cli(['keys', 'list', 'ops@example.com'])
  t.equal(keys.code, 0, keys.stderr)
  const [keyRow] = rowsOf(keys)
  t.match(keyRow, { prefix: `${key.slice(0, 11)}...`, scope: 'read', name: 'ci' })

  const password = await cli(['users', 'password', 'ops@example.com'], 'a long enough password\n')
  t.equal(password.code, 0, password.stderr)
  t.equal(password.stderr, 'Set the dashboard password of ops@example.com\n')

  const users = await cli(['users', 'list'])
  t.equal(users.code, 0, users.stderr)
  t.equal(users.stdout.split('\n')[0], 'id\temail\tpassword\tkeys\tmonitors\tcreated_at')
  const listed = rowsOf(users)
  t.same(listed.map((u) => [u.email, u.password, u.keys, u.monitors]), [
    ['admin@example.com', '-', '1', '0'],
    ['ops@example.com', 'set', '1', '0'],
  ], 'oldest first: the first user with its printed key, then the one made here')
  t.equal(listed[1].id, created.stdout.trim())
  t.ok(listed.every((u) => !Number.isNaN(Date.parse(u.created_at))))

  const deletedKey = await cli(['keys', 'delete', keyRow.id])
  t.equal(deletedKey.code, 0, deletedKey.stderr)
  const refused = await fetch(`${baseUrl}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(refused.status, 401, 'the running server refuses the deleted key at once')

  const nobody = await cli(['keys', 'list', 'nobody@example.com'])
  t.equal(nobody.code, 1)
  t.match(nobody.stderr, 'pingward: No user with the email nobody@example.com')

  const deleted = await cli(['users', 'delete', 'ops@example.com', '--yes'])
  t.equal(deleted.code, 0, deleted.stderr)
  t.match(deleted.stderr, 'Deleted user ops@example.com')
  t.same(rowsOf(await cli(['users', 'list'])).map((u) => u.email), ['admin@example.com'])
  const again = await cli(['users', 'delete', 'ops@example.com', '--yes'])
  t.equal(again.code, 1)
  t.equal(again.stderr, 'pingward: No user with the email ops@example.com\n')

  const migrated = await cli(['migrate'])
  t.equal(migrated.code, 0, migrated.stderr)
  t.equal(migrated.stderr, 'Database is up to date\n')

  t.comment(`CLI runs under tsx while the server runs (ms): ${times.map(([name, ms]) => `${name} ${Math.round(ms)}`).join(', ')}`)
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'the server stops as before')
  if (!usingPostgres) {
    t.notOk(existsSync(adminSocketPath(vars.DATA_DIR)), 'and removes its socket')
    // Its log lines are all written by its exit.
    const { stdout } = server.output()
    t.match(stdout, /"command":"users list".*"msg":"admin command from the CLI"/, 'the server ran them and logged their names')
    t.notMatch(stdout, /a long enough password|scrypt\$/, 'never a password or its hash')
  }
  const after = await cli(['users', 'list'])
  t.equal(after.code, 0, after.stderr)
  t.same(rowsOf(after).map((u) => u.email), ['admin@example.com'], 'with the server stopped, the CLI opens the database itself')
})
