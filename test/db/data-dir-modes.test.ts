// The embedded database's files are its user's alone: DATA_DIR 0700 and everything in it 0600 whatever the umask,
// so another local user reads and writes nothing there (a webhook secret in the WAL included); a directory left
// open to others is tightened at start, said in one log line. A real server process on a real directory.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, lstatSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { STRIP_TYPES_ARGV } from '../../src/runtime/jobs-thread.ts'
import { childEnv, outputWaiter, tempDir, usingPostgres, type Teardown } from '../helper.ts'

const embeddedOnly = usingPostgres && 'PGlite\'s data directory alone: run once, on the embedded database'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/
const KEY = /Authorization: Bearer (sk_[0-9A-Za-z]{38})/
const TIGHTENED = /^.*"msg":"DATA_DIR was open to other users.*$/gm
const SETPRIV = '/usr/bin/setpriv'
const OTHER_USER = process.getuid?.() !== 0
  ? 'needs root, to look into DATA_DIR as another user with setpriv'
  : existsSync(SETPRIV) ? false : `${SETPRIV} is missing: cannot look into DATA_DIR as another user`

/** The server on the embedded database in `dataDir`, started with umask 000 (the loosest a process can be given). */
function startServer (t: Teardown, dataDir: string) {
  const child = spawn('/bin/sh', ['-c', 'umask 000 && exec "$@"', 'sh', '/usr/bin/env', '-u', 'NODE_OPTIONS', process.execPath, ...STRIP_TYPES_ARGV, 'src/server.ts'], {
    cwd: ROOT, env: childEnv({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info' }),
  })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => { wake(); resolve(code) }))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const stop = async () => { child.kill('SIGTERM'); return await exited }
  return { waitFor, stop, stdout: () => stdout }
}

/** DATA_DIR and every entry under it, as paths. */
const treeOf = (dir: string) => [dir, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name))]

/** The entries whose mode is not 0700 (directories) or 0600 (the rest), as "mode path". */
function looseEntries (dir: string): string[] {
  return treeOf(dir).flatMap((path) => {
    const stat = lstatSync(path)
    const mode = stat.mode & 0o7777
    return mode === (stat.isDirectory() ? 0o700 : 0o600) ? [] : [`${mode.toString(8)} ${relative(dir, path) || '.'}`]
  })
}

/** Runs a command as nobody (65534), without root's groups (nor tap's NODE_OPTIONS, whose hooks write to .tap/). */
const asOtherUser = (command: string[]) =>
  spawnSync(SETPRIV, ['--reuid=65534', '--regid=65534', '--clear-groups', '/usr/bin/env', '-u', 'NODE_OPTIONS', ...command], { cwd: '/', encoding: 'utf8' })

/** This node, or a copy nobody can run when it lives under a private home (CI's Node from the npm registry). */
function nodeForOtherUser (t: Teardown): string {
  if (asOtherUser([process.execPath, '-e', '']).status === 0) return process.execPath
  const dir = tempDir(t)
  chmodSync(dir, 0o755)
  const copy = join(dir, 'node')
  copyFileSync(process.execPath, copy)
  chmodSync(copy, 0o755)
  return copy
}

// Run as nobody: the paths (argv) it could open for reading or writing, or list, or create a file in.
const PROBE = `
const fs = require('node:fs')
const opened = []
for (const path of process.argv.slice(1)) {
  for (const flags of ['r', 'r+']) {
    try { fs.closeSync(fs.openSync(path, flags)); opened.push(flags + ' ' + path) } catch {}
  }
  try { fs.readdirSync(path); opened.push('list ' + path) } catch {}
  try { fs.closeSync(fs.openSync(path + '/probe-by-nobody', 'wx')); opened.push('create in ' + path) } catch {}
}
process.stdout.write(JSON.stringify(opened))
`

// A directory another user can reach: DATA_DIR's own modes are all that stands in the way.
const parent = tempDir(t, 'pingward-modes-')
chmodSync(parent, 0o755)
const dataDir = join(parent, 'data')

t.test('a server with umask 000 keeps DATA_DIR to its user: 0700 and 0600, nothing for another user to read', { skip: embeddedOnly }, async (t) => {
  const server = startServer(t, dataDir)
  const [, baseUrl] = await server.waitFor(LISTENING)
  const [, key] = await server.waitFor(KEY)
  const create = () => fetch(`${baseUrl}/api/v1/notification-channels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com/pingward' } }),
  })
  // Two: the first change of a page after a checkpoint may go to the WAL as a compressed image of the page; the
  // second row on it is logged as it is.
  t.equal((await create()).status, 201)
  const created = await create()
  t.equal(created.status, 201)
  const { secret } = (await created.json() as { data: { secret: string } }).data
  t.match(secret, /^whsec_/)

  t.same(looseEntries(dataDir), [], 'every directory 0700, every file 0600')
  t.notMatch(server.stdout(), TIGHTENED, 'a new directory has nothing to tighten')
  const holding = spawnSync('grep', ['-rlF', secret, dataDir], { encoding: 'utf8' }).stdout
  t.not(holding, '', 'the secret is on disk in clear (the WAL), so the look below can find it')

  t.test('as another local user', { skip: OTHER_USER }, async (t) => {
    const grep = asOtherUser(['grep', '-rl', 'whsec_', dataDir])
    t.equal(grep.stdout, '', 'grep -r finds no secret')
    t.match(grep.stderr, /Permission denied/)
    const find = asOtherUser(['find', dataDir])
    t.equal(find.stdout.trim(), dataDir, 'find lists nothing under DATA_DIR')
    const probe = asOtherUser([nodeForOtherUser(t), '-e', PROBE, ...treeOf(dataDir)])
    t.equal(probe.status, 0, probe.stderr)
    t.same(JSON.parse(probe.stdout), [], 'no file opens for reading or writing, no directory lists or takes a new file')
  })

  t.equal(await server.stop(), 0, 'stopped')
  t.same(looseEntries(dataDir), [], 'and so after the stop, with what it wrote on the way out')
})

t.test('a DATA_DIR left with 0755 directories and 0666 files is tightened at start, in one log line', { skip: embeddedOnly }, async (t) => {
  for (const path of treeOf(dataDir)) chmodSync(path, lstatSync(path).isDirectory() ? 0o755 : 0o666)
  const loose = looseEntries(dataDir).length
  t.ok(loose > 100, `${loose} entries loosened`)

  const server = startServer(t, dataDir)
  await server.waitFor(LISTENING)
  const said = server.stdout().match(TIGHTENED) ?? []
  t.equal(said.length, 1, 'one log line')
  const line = JSON.parse(said[0]!) as { level: number, dataDir: string, directories: number, files: number, modes: string[] }
  t.equal(line.level, 40, 'a warning')
  t.equal(line.dataDir, dataDir)
  t.equal(line.directories + line.files, loose, 'it counts every entry it changed')
  t.same(line.modes, ['0666', '0755'], 'and names the modes it found')
  t.same(looseEntries(dataDir), [], 'every directory 0700, every file 0600')
  t.equal(await server.stop(), 0, 'stopped')
})
