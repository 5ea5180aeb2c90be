// docs/deploy/pingward.service, docs/deploy.md's systemd unit: systemd-analyze accepts it, its settings pass the
// configuration's validation, and its ExecStart, run with its Environment= lines (the port, the data
// directory and the database made the test's own), starts Pingward and stops it on SIGTERM with exit 0,
// as `systemctl stop` would.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { loadConfig } from '../../src/runtime/config.ts'
import { trustProxyOption } from '../../src/http/trust-proxy.ts'
import { childDatabase, childEnv, outputWaiter, tempDir } from '../helper.ts'
import { builtProjectCopy } from '../support/project-copy.ts'
import { freePort } from '../support/target-server.ts'

const UNIT = fileURLToPath(new URL('../../docs/deploy/pingward.service', import.meta.url))
const text = readFileSync(UNIT, 'utf8')

/** The values of `key=` lines in [Service], in order. */
const directives = (key: string) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1])
const environment: Record<string, string> = Object.fromEntries(directives('Environment')
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))

t.test('systemd-analyze verifies the unit', { skip: existsSync('/usr/bin/systemd-analyze') ? false : 'systemd-analyze is missing' }, async (t) => {
  t.doesNotThrow(() => execFileSync('/usr/bin/systemd-analyze', ['verify', UNIT], { stdio: 'pipe' }))
})

t.test('its settings are valid, behind a proxy on this machine', async (t) => {
  const config = loadConfig(environment)
  t.equal(config.HOST, '127.0.0.1', 'only the proxy can reach it')
  t.same(trustProxyOption(config.TRUST_PROXY), ['127.0.0.1'])
  t.match(config.PUBLIC_URL, /^https:\/\//)
  t.equal(config.DATA_DIR, '/var/lib/pingward', 'the StateDirectory')
  t.same(directives('StateDirectory'), ['pingward'])
})

t.test('ExecStart starts Pingward, and SIGTERM stops it with exit 0', async (t) => {
  const [command, ...args] = directives('ExecStart')[0].split(' ')
  t.equal(command, '/usr/bin/node')
  const start: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start
  t.same(args.filter((arg) => arg.startsWith('--')), start.split(' ').filter((arg) => arg.startsWith('--')), 'the node flags of npm start')
  t.equal(start, `exec node ${args.join(' ')}`, 'what npm start runs')
  // The unit runs the install's build (npm ci); the unit itself can write nothing there.
  const root = builtProjectCopy(t)
  const vars = {
    ...environment, PORT: String(await freePort()), DATA_DIR: tempDir(t, 'pingward-unit-'), ...await childDatabase(t, 'pingward-unit-'), LOG_LEVEL: 'info',
  }
  // From the built clone, as from WorkingDirectory; without tap's NODE_OPTIONS (its coverage hooks).
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, ...args], {
    cwd: root, env: childEnv(vars),
  })
  let output = ''
  const { wake, waitFor } = outputWaiter(child, () => output, () => output)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; wake() })
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => { wake(); resolve(code) }))
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })

  await waitFor(new RegExp(`Server listening at http://127\\.0\\.0\\.1:${vars.PORT}`))
  // The first start's banner (the first key) is the last thing the start does.
  await waitFor(/sk_[0-9A-Za-z]{38}/)
  const health = await fetch(`http://127.0.0.1:${vars.PORT}/healthz`)
  t.equal(health.status, 200)
  child.kill('SIGTERM')
  t.equal(await closed, 0, 'a graceful stop', { output })
})
