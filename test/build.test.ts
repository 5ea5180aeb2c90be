// The build and the start from a fresh clone (test/support/project-copy.ts: no dist/, no tsx): `npm run build`
// compiles src/ with tsc, leaves no .ts import, copies the dashboard's assets and makes the database template,
// writable by its builder alone; `npm start` runs node dist/server.js alone, answers, and stops on SIGTERM with exit 0.
import { spawn } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childDatabase, childEnv, outputWaiter, tempDir, usingPostgres, type Teardown } from './helper.ts'
import { groupCommands } from './support/process-group.ts'
import { builtProjectCopy } from './support/project-copy.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const LISTENING = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/
const dir = builtProjectCopy(t)

/** The entries of `root` (itself included) whose mode is not `directory` (directories) or `file` (the rest). */
function entriesNotIn (root: string, directory: number, file: number): string[] {
  return [root, ...readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => join(root, name))].flatMap((path) => {
    const stat = lstatSync(path)
    const mode = stat.mode & 0o7777
    return mode === (stat.isDirectory() ? directory : file) ? [] : [`${mode.toString(8)} ${path}`]
  })
}

/** A command in `cwd`, in a process group of its own (killed at teardown), its output collected. */
function run (t: Teardown, cwd: string, command: string[], vars: Record<string, string> = {}) {
  // env -u: tap's process tracking re-adds NODE_OPTIONS to spawns; env execs the command, so the pid is its own.
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', ...command], { cwd, env: childEnv(vars), detached: true })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; wake() })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => { wake(); resolve({ code, signal }) })
  })
  t.teardown(() => {
    try { process.kill(-child.pid!, 'SIGKILL') } catch {}
  })
  return { pid: child.pid!, waitFor, exited, stdout: () => stdout, stderr: () => stderr }
}

t.test('npm run build: dist/ from tsc, every relative import .js, the assets and the template beside it', async (t) => {
  for (const entry of ['server', 'worker', 'cli']) t.ok(existsSync(join(dir, 'dist', `${entry}.js`)), `dist/${entry}.js`)
  const leftovers = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .filter((name) => /(from\s+|import\()'\.\.?\/[^']*\.ts'/.test(readFileSync(join(dir, 'dist', name), 'utf8')))
  t.same(leftovers, [], 'every relative import points at .js')
  t.ok(existsSync(join(dir, 'dist/dashboard/assets/dashboard.js')))
  t.ok(existsSync(join(dir, 'dist/pgdata-template/PG_VERSION')), 'PGlite\'s initdb ran')
  t.same(entriesNotIn(join(dir, 'dist/pgdata-template'), 0o755, 0o644), [], 'the template: directories 0755, files 0644 (PGlite wrote 0666)')
})

t.test('npm start runs node dist/server.js alone, answers and stops on SIGTERM with exit 0', async (t) => {
  // On PGlite an empty DATA_DIR, which the start fills from dist/pgdata-template.
  const vars = usingPostgres ? await childDatabase(t, 'pingward-build-') : { DATA_DIR: tempDir(t, 'pingward-build-') }
  const start = run(t, dir, ['npm', 'start'], { ...vars, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info' })
  const port = Number((await start.waitFor(LISTENING))[1])

  const base = `http://127.0.0.1:${port}`
  t.equal((await fetch(`${base}/readyz`)).status, 200, 'the database is migrated and answers')
  if (vars.DATA_DIR) t.same(entriesNotIn(vars.DATA_DIR, 0o700, 0o600), [], 'DATA_DIR, copied from the template, is its user\'s alone')
  const css = await fetch(`${base}/assets/dashboard.css`)
  t.equal(css.status, 200, 'the dashboard assets were copied beside their module')
  t.equal(await css.text(), readFileSync(join(root, 'src/dashboard/assets/dashboard.css'), 'utf8'))

  // npm, and the server: plain node in its own process (no tsx, no shell, no second node).
  const commands = groupCommands(start.pid)
  t.same(commands.filter((command) => !/^npm\b/.test(command)), ['node dist/server.js'], `one server process, plain node (${commands.join(' | ')})`)

  process.kill(start.pid, 'SIGTERM')
  t.same(await start.exited, { code: 0, signal: null }, 'npm exits 0')
  t.match(start.stdout(), /"signal":"SIGTERM".*"msg":"stopping"/, 'the server stopped on the signal')
})
