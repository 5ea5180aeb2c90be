// The API server as a real process: first-start banner, the printed key, graceful SIGTERM, the data-dir lock, bad config.
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import t from 'tap'
import { childDatabase, outputWaiter, spawnPingward, usingPostgres } from './helper.ts'

const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:(\d+))"/
const CURL = /^ {2}curl -H "Authorization: Bearer (sk_[0-9A-Za-z]{38})" (http:\/\/\S+)\/api\/v1\/monitors$/gm

interface Server {
  child: ChildProcessWithoutNullStreams
  output: () => { stdout: string, stderr: string }
  /** Resolves with the first match of the pattern in stdout; rejects when the process exits first. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
}

function startServer (t: { teardown: (fn: () => unknown) => void }, vars: Record<string, string>): Server {
  const child = spawnPingward('src/server.ts', [], { HOST: '127.0.0.1', PORT: '0', CHECKER: 'off', LOG_LEVEL: 'info', ...vars })
  let stdout = ''
  let stderr = ''
  const { wake, waitFor } = outputWaiter(child, () => stdout, () => `stdout: ${stdout}\nstderr: ${stderr}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      wake()
      resolve({ code, signal })
    })
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  return { child, output: () => ({ stdout, stderr }), waitFor, exited }
}

/** Sends SIGTERM and waits for the process to end. */
async function stop (server: Server) {
  server.child.kill('SIGTERM')
  return server.exited
}

t.test('first start prints one key, the key works, SIGTERM stops it; a restart prints none', async (t) => {
  const vars = await childDatabase(t, 'pingward-server-')

  const first = startServer(t, { ...vars, ADMIN_EMAIL: 'owner@example.com' })
  const [, baseUrl, port] = await first.waitFor(LISTENING)
  t.not(port, '0', 'port 0 gave a real port')
  await first.waitFor(/API documentation: \S+\/docs\n/)
  const { stdout } = first.output()
  const curls = [...stdout.matchAll(CURL)]
  t.equal(curls.length, 1, 'the curl line is printed exactly once')
  const [, key, bannerUrl] = curls[0]
  t.equal(bannerUrl, baseUrl, 'the banner shows the address the server listens on')
  t.match(stdout, 'Pingward created the first user (owner@example.com) and this API key with write scope.')
  t.equal(stdout.split(key).length - 1, 2, 'the key appears twice: alone, and in the curl line')
  t.match(stdout, `API documentation: ${baseUrl}/docs`)
  const setup = new RegExp(`^ {2}(${baseUrl}/setup\\?token=[\\w-]{43})$`, 'm').exec(stdout)
  t.ok(setup, 'the banner has a one-time link to set the dashboard password')
  t.equal((await fetch(setup![1])).status, 200, 'it opens the setup page')

  const monitors = await fetch(`${baseUrl}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(monitors.status, 200, 'the printed key works')
  t.same(await monitors.json(), { data: [] })
  const created = await fetch(`${baseUrl}/api/v1/monitors`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Home', url: 'https://example.com' }),
  })
  t.equal(created.status, 201, 'it has write scope')
  const noKey = await fetch(`${baseUrl}/api/v1/monitors`)
  t.equal(noKey.status, 401)
  // Log lines are batched (src/http/log-stream.ts): on a quiet server the timer writes them.
  const requestLine = await first.waitFor(/^\{.*"url":"\/api\/v1\/monitors".*"statusCode":401.*"msg":"request completed"\}$/m)
  t.ok(requestLine, 'the request\'s log line is written without more traffic')

  if (usingPostgres) {
    // On PostgreSQL several processes may share the database: a second one runs, and prints no key.
    const parallel = startServer(t, vars)
    const [, otherUrl] = await parallel.waitFor(LISTENING)
    const seen = await fetch(`${otherUrl}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
    t.equal(seen.status, 200)
    t.equal(((await seen.json()) as { data: unknown[] }).data.length, 1, 'it sees the monitor made through the first')
    const { code } = await stop(parallel)
    t.equal(code, 0)
    t.notMatch(parallel.output().stdout, 'Bearer sk_', 'no banner from the second process')
  } else {
    // A second process on the same directory while the first runs: refused, and the first is unharmed.
    const second = startServer(t, vars)
    const { code } = await second.exited
    t.equal(code, 1, 'the second process exits 1')
    const { stdout: out, stderr } = second.output()
    t.match(stderr, `pingward: The embedded database in ${vars.DATA_DIR} is in use by another Pingward process (pid ${first.child.pid})`)
    t.notMatch(stderr, /\n\s+at /, 'no stack trace')
    t.notMatch(out, 'Bearer sk_')
    const still = await fetch(`${baseUrl}/readyz`)
    t.equal(still.status, 200, 'the first still answers')
  }

  const stopped = await stop(first)
  // A stop that outlasts the server's 10 s grace is ended by close-with-grace: exit code 1, "killed by timeout".
  t.equal(stopped.code, 0, 'SIGTERM exits 0, within the 10 s grace')
  t.match(first.output().stdout, /"signal":"SIGTERM".*"msg":"stopping"/)
  t.equal(first.output().stderr, '', 'nothing on stderr')

  const restart = startServer(t, vars)
  const [, againUrl] = await restart.waitFor(LISTENING)
  const again = await fetch(`${againUrl}/api/v1/monitors`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(again.status, 200, 'the key outlives the restart')
  t.equal(((await again.json()) as { data: unknown[] }).data.length, 1, 'and so does the monitor')
  const restarted = await stop(restart)
  t.equal(restarted.code, 0)
  t.notMatch(restart.output().stdout, /Bearer sk_|Pingward created the first user/, 'no banner on a database that has a user')
})

t.test('invalid configuration exits 1 naming each bad variable, before anything starts', async (t) => {
  const server = startServer(t, { PORT: 'abc', CHECK_CONCURRENCY: '0', DATA_DIR: '/proc/pingward-cannot-be-here' })
  const { code } = await server.exited
  t.equal(code, 1)
  const { stdout, stderr } = server.output()
  t.equal(stdout, '')
  t.match(stderr, /^pingward: Invalid configuration:\n/)
  t.match(stderr, '  PORT="abc"')
  t.match(stderr, '  CHECK_CONCURRENCY=0')
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})
