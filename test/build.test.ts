// The build and the start from a fresh clone, in a copy of the project without dist/ (node_modules linked in):
// `npm start` as the first command builds, runs plain node alone (no tsx), answers, and stops on SIGTERM with
// exit 0; a changed source is built again, an unchanged one is not, two builds at once build once; the database
// template is writable by its builder alone; without TypeScript (npm ci --omit=dev) the sources run through tsx.
import { spawn } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { childDatabase, childEnv, outputWaiter, tempDir, type Teardown } from './helper.ts'
import { groupCommands } from './support/process-group.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const LISTENING = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/

/** What a clone holds that the build and the start read; `node_modules` linked, or all of it but `omit`. */
function projectCopy (t: Teardown, omit?: string): string {
  const dir = tempDir(t, 'pingward-clone-')
  for (const name of ['src', 'scripts', 'drizzle', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, name), join(dir, name), { recursive: true })
  }
  if (!omit) {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  } else {
    mkdirSync(join(dir, 'node_modules'))
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name !== omit && name !== '.bin') symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name))
    }
  }
  return dir
}

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

t.test('fresh clone: npm start builds dist/, runs it with plain node and stops on SIGTERM with exit 0', async (t) => {
  const dir = projectCopy(t)
  const vars = await childDatabase(t, 'pingward-build-')
  const start = run(t, dir, ['npm', 'start'], { ...vars, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info' })
  const port = Number((await start.waitFor(LISTENING))[1])
  t.match(start.stderr(), /pingward build: compiled \d+ files of src\/ to dist\//, 'the first start built dist/')
  t.ok(existsSync(join(dir, 'dist', 'server.js')), 'dist/server.js')

  const base = `http://127.0.0.1:${port}`
  t.equal((await fetch(`${base}/readyz`)).status, 200, 'the database is migrated and answers')
  if (vars.DATA_DIR) t.same(entriesNotIn(vars.DATA_DIR, 0o700, 0o600), [], 'DATA_DIR, copied from the template, is its user\'s alone')
  const css = await fetch(`${base}/assets/dashboard.css`)
  t.equal(css.status, 200, 'the dashboard assets were copied beside their module')
  t.equal(await css.text(), readFileSync(join(root, 'src/dashboard/assets/dashboard.css'), 'utf8'))

  // npm, and the server: node running the launcher in its own process (no tsx, no shell, no second node).
  const commands = groupCommands(start.pid)
  t.same(commands.filter((command) => !/^npm\b/.test(command)), ['node scripts/run.js server'], `one server process, plain node (${commands.join(' | ')})`)

  process.kill(start.pid, 'SIGTERM')
  t.same(await start.exited, { code: 0, signal: null }, 'npm exits 0')
  t.match(start.stdout(), /"signal":"SIGTERM".*"msg":"stopping"/, 'the server stopped on the signal')
})

t.test('npm run build: once for two at once, again only when a source changes; no .ts import is left', async (t) => {
  const dir = projectCopy(t)
  const builds = [run(t, dir, ['npm', 'run', '-s', 'build']), run(t, dir, ['npm', 'run', '-s', 'build'])]
  for (const build of builds) t.same(await build.exited, { code: 0, signal: null })
  const said = builds.map((build) => build.stderr()).join('')
  t.equal(said.match(/compiled \d+ files/g)?.length, 1, `built once (${said})`)
  t.equal(said.match(/dist\/ is up to date/g)?.length, 1, 'the other found it built')

  const leftovers = readdirSync(join(dir, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .filter((name) => /(from\s+|import\()'\.\.?\/[^']*\.ts'/.test(readFileSync(join(dir, 'dist', name), 'utf8')))
  t.same(leftovers, [], 'every relative import points at .js')
  t.ok(existsSync(join(dir, 'dist/dashboard/assets/dashboard.js')))
  t.same(entriesNotIn(join(dir, 'dist/pgdata-template'), 0o755, 0o644), [], 'the template: directories 0755, files 0644 (PGlite wrote 0666)')

  const again = run(t, dir, ['npm', 'run', '-s', 'build'])
  t.same(await again.exited, { code: 0, signal: null })
  t.match(again.stderr(), /dist\/ is up to date/, 'nothing changed: not built')

  appendFileSync(join(dir, 'src', 'worker.ts'), '// changed\n')
  const changed = run(t, dir, ['npm', 'run', '-s', 'build'])
  t.same(await changed.exited, { code: 0, signal: null })
  t.match(changed.stderr(), /compiled \d+ files/, 'a changed source: built again')
  t.match(readFileSync(join(dir, 'dist', 'worker.js'), 'utf8'), /\/\/ changed/)
})

t.test('without TypeScript (npm ci --omit=dev) and no build, the start runs the sources through tsx', async (t) => {
  const dir = projectCopy(t, 'typescript')
  const vars = await childDatabase(t, 'pingward-build-')
  const start = run(t, dir, ['node', 'scripts/run.js', 'server'], { ...vars, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info' })
  await start.waitFor(LISTENING)
  t.match(start.stderr(), /TypeScript is not installed to build it: running src\/ through tsx/)
  t.notOk(existsSync(join(dir, 'dist', 'server.js')), 'nothing was built')
  process.kill(start.pid, 'SIGTERM')
  t.same(await start.exited, { code: 0, signal: null })
})
