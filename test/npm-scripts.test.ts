// What the README tells users to run (npm start, npm run worker), spawned as a user would in a fresh clone after its
// install's build: SIGTERM or SIGINT to npm stops it cleanly.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { buildTestApp, childDatabase, childEnv, makeUser, outputWaiter, request, tempDir } from './helper.ts'
import { groupCommands } from './support/process-group.ts'
import { builtProjectCopy } from './support/project-copy.ts'

const project = builtProjectCopy(t)
const LISTENING = /"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/
/** A Pingward process: an entry point, compiled or not. */
const PINGWARD = /src\/|dist\//

/** Whether this process can listen on the port, i.e. nothing holds it any more. */
function portFree (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/**
 * `npm <args>` in the project's copy, as a user runs it, in a process group of its own: the signal goes to
 * npm's pid alone, and the group lets the test see (and at teardown kill) anything npm left behind.
 */
function npm (t: { teardown: (fn: () => unknown) => void }, args: string[], vars: Record<string, string>) {
  // env -u: tap's process tracking re-adds NODE_OPTIONS to spawns; env execs npm, so the pid is npm's.
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', 'npm', ...args], { cwd: project, env: childEnv(vars), detached: true })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  // npm's exit ('exit', not 'close': an orphan left behind would hold the output pipes open).
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => { wake(); resolve({ code, signal }) })
  })
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
  const killLeftovers = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // the group is empty
    }
  }
  t.teardown(killLeftovers)
  /** All of the output, once every process of the group is gone (leftovers are killed first). */
  const output = async () => {
    killLeftovers()
    await closed
    return stdout
  }
  return { pid: child.pid!, waitFor, exited, output, stderr: () => stderr }
}

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`npm start: ${signal} to npm stops the server, exits 0 and frees the port`, async (t) => {
    t.match(readme, /^npm install && npm start /m, 'the README tells users to run npm start')
    const vars = await childDatabase(t, 'pingward-npm-')
    const run = npm(t, ['start'], { ...vars, HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info' })
    const port = Number((await run.waitFor(LISTENING))[1])
    t.notOk(await portFree(port), 'the server holds its port (precondition)')

    process.kill(run.pid, signal)
    t.same(await run.exited, { code: 0, signal: null }, 'npm exits 0')
    t.ok(await portFree(port), 'the port is free')
    // npm waits for its script to end before it exits.
    t.same(groupCommands(run.pid).filter((command) => PINGWARD.test(command)), [], 'no Pingward process is left running')
    t.match(await run.output(), new RegExp(`"signal":"${signal}".*"msg":"stopping"`), 'the server stopped on the signal')
  })

  t.test(`npm run worker: ${signal} to npm stops the checker and exits 0`, async (t) => {
    t.match(readme, /^npm run worker /m, 'the README tells users to run npm run worker')
    const vars = await childDatabase(t, 'pingward-npm-')
    const run = npm(t, ['run', 'worker'], { ...vars, LOG_LEVEL: 'info' })
    await run.waitFor(/"msg":"checker started"/)

    process.kill(run.pid, signal)
    t.same(await run.exited, { code: 0, signal: null }, 'npm exits 0')
    t.same(groupCommands(run.pid).filter((command) => PINGWARD.test(command)), [], 'no Pingward process is left running')
    t.match(await run.output(), /"msg":"checker stopped"/, 'the checker stopped on the signal')
  })

  t.test(`npm run agent: it says hello to the API, and ${signal} to npm stops it and exits 0`, async (t) => {
    t.match(readme, /^PINGWARD_AGENT_TOKEN=pwa_\S+ npm run agent -- --server /m, 'the README tells users to run npm run agent')
    const { app } = await buildTestApp(t)
    const server = await app.listen({ host: '127.0.0.1', port: 0 })
    const owner = await makeUser(app)
    const token = (await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'lab', name: 'Lab' } })).json().data.agent_token
    const run = npm(t, ['run', 'agent', '--', '--server', server], { PINGWARD_AGENT_TOKEN: token })
    await run.waitFor(/"location":"lab".*"msg":"agent: hello"/)
    t.match((await request(app, owner.auth, { url: '/api/v1/locations/lab' })).json().data, { online: true }, 'the location is online')

    process.kill(run.pid, signal)
    t.same(await run.exited, { code: 0, signal: null }, 'npm exits 0')
    t.same(groupCommands(run.pid).filter((command) => PINGWARD.test(command)), [], 'no Pingward process is left running')
    t.match(await run.output(), /"msg":"agent stopped"/, 'the agent stopped on the signal')
  })
}

t.test('npm run agent without a server or a token says how to run it, and exits 2', async (t) => {
  const run = npm(t, ['run', '-s', 'agent'], {})
  t.same(await run.exited, { code: 2, signal: null })
  t.match(run.stderr(), /^usage: npm run agent -- --server URL --token TOKEN/m)
})

t.test('pingward, the package\'s command once installed: pingward agent says hello and stops on SIGTERM; other words are the CLI\'s', async (t) => {
  const prefix = tempDir(t, 'pingward-global-')
  execFileSync('/usr/bin/env', ['-u', 'NODE_OPTIONS', 'npm', 'install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', project], { env: childEnv({}) })
  const pingward = join(prefix, 'bin', 'pingward')
  const usage = spawnSync(pingward, ['agent'], { env: childEnv({}), encoding: 'utf8' })
  t.same([usage.status, /^ {3}or: pingward agent --server URL --token TOKEN/m.test(usage.stderr)], [2, true], 'pingward agent: its usage, exit 2')
  const help = spawnSync(pingward, ['--help'], { env: childEnv({}), encoding: 'utf8' })
  t.same([help.status, /users create EMAIL/.test(help.stdout)], [0, true], 'pingward --help: the CLI\'s')

  const { app } = await buildTestApp(t)
  const server = await app.listen({ host: '127.0.0.1', port: 0 })
  const owner = await makeUser(app)
  const token = (await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: 'lab', name: 'Lab' } })).json().data.agent_token
  const agent = spawn(pingward, ['agent', '--server', server], { env: childEnv({ PINGWARD_AGENT_TOKEN: token }) })
  let out = ''
  const { wake, waitFor } = outputWaiter(agent, () => out, () => out)
  agent.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; wake() })
  const exited = new Promise<number | null>((resolve) => agent.on('exit', (code) => { wake(); resolve(code) }))
  t.teardown(() => agent.kill('SIGKILL'))
  await waitFor(/"location":"lab".*"msg":"agent: hello"/)
  agent.kill('SIGTERM')
  t.equal(await exited, 0, 'stopped on SIGTERM, exit 0')
})
