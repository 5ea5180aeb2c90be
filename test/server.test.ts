// The API server as a real process: first-start banner, the printed key, graceful SIGTERM (also during the first start's writes), the data-dir lock, bad config.
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net'
import postgres from 'postgres'
import t from 'tap'
import { childDatabase, outputWaiter, spawnPingward, until, usingPostgres } from './helper.ts'
import { freePort } from './support/target-server.ts'

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

  // A connection that never sends a request (a browser's preconnect) does not hold the stop up.
  const preconnect = createConnection(Number(port), '127.0.0.1')
  const preconnectClosed = new Promise((resolve) => preconnect.on('close', resolve))
  await new Promise((resolve) => preconnect.on('connect', resolve))
  const stopped = await stop(first)
  // A stop that outlasts the server's 10 s grace is ended by close-with-grace: exit code 1, "killed by timeout".
  t.equal(stopped.code, 0, 'SIGTERM exits 0, within the 10 s grace, though a connection has sent no request')
  await preconnectClosed
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

/** Whether `path` on the port answers 200 now (false while nothing listens there). */
const answers = (port: number, path = '/healthz') => fetch(`http://127.0.0.1:${port}${path}`).then((res) => res.status === 200, () => false)
/** Whether nothing listens on the port now (a stopping server closes it first). */
const refuses = (port: number) => fetch(`http://127.0.0.1:${port}/healthz`).then(() => false, () => true)

/**
 * Holds an ACCESS EXCLUSIVE lock on `users`, in a transaction of its own, until the returned function is
 * called: the server's first-user work waits at its first query (nothing before listen reads that table).
 */
async function holdUsersTable (t: { teardown: (fn: () => unknown) => void }, url: string): Promise<() => Promise<void>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  let locked!: () => void
  const holding = new Promise<void>((resolve) => { locked = resolve })
  const transaction = sql.begin(async (tx) => {
    await tx`lock table users in access exclusive mode`
    locked()
    await released
  }).finally(() => sql.end())
  await Promise.race([holding, transaction])
  const end = async () => {
    release()
    await transaction
  }
  t.teardown(end)
  return end
}

/**
 * A TCP proxy to PostgreSQL whose connections, after `holdCloses()`, are closed towards the client only at
 * `releaseCloses()`: postgres.js waits for an idle connection's socket to close before its end() resolves,
 * so the server's pool takes that long to close, as on a slow network.
 */
async function slowClosingProxy (t: { teardown: (fn: () => unknown) => void }, target: URL) {
  let holding = false
  const held = new Set<Socket>()
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy()) }
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname)
    track(client)
    track(upstream)
    client.pipe(upstream)
    upstream.pipe(client, { end: false })
    upstream.on('close', () => { if (holding) held.add(client); else client.end() })
    client.on('close', () => upstream.destroy())
  })
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  const releaseCloses = () => {
    holding = false
    for (const client of held) client.end()
    held.clear()
  }
  t.teardown(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  }))
  const url = new URL(target.href)
  url.host = `127.0.0.1:${port}`
  return { url: url.href, holdCloses: () => { holding = true }, releaseCloses }
}

t.test('SIGTERM right after the first answer, while the start still writes the first user: a quiet stop, exit 0', async (t) => {
  // After listen, main() writes the first user, its key and a setup link. A stop then closed the database
  // under those writes: main() failed, and the process exited 1 printing the failed query with its parameters
  // (a setup token's hash). Later rounds start on a database whose user has no password yet, and so still
  // write a setup link. On PostgreSQL each round makes the window certain: the first-user work waits on a lock
  // until the stop has closed the port, and the pool's other connection (opened by a /readyz while the first
  // one waits) finishes closing only once that work is done or the process has ended, so the pool's close is
  // still under way when that work goes on (without these, none of 17 rounds hit it on PostgreSQL). The
  // embedded database has one process and one connection: there the rounds rely on timing.
  const vars = await childDatabase(t, 'pingward-server-')
  for (let round = 1; round <= 3; round++) {
    const port = await freePort()
    const proxy = vars.DATABASE_URL ? await slowClosingProxy(t, new URL(vars.DATABASE_URL)) : undefined
    const release = vars.DATABASE_URL ? await holdUsersTable(t, vars.DATABASE_URL) : undefined
    const server = startServer(t, { ...vars, ...(proxy && { DATABASE_URL: proxy.url }), PORT: String(port), ADMIN_EMAIL: 'owner@example.com' })
    const ended = () => server.child.exitCode !== null || server.child.signalCode !== null
    // Asked again at once: the stop follows the first answer as closely as it can.
    await until(async () => ended() || await answers(port), 0)
    if (proxy && release) {
      t.ok(await answers(port, '/readyz'), `round ${round}: the database answers on a second connection (precondition)`)
      proxy.holdCloses()
      server.child.kill('SIGTERM')
      await until(async () => ended() || await refuses(port), 0)
      await release()
      // The pool may close once the first start is done (its banner ends with the setup link) or the process has ended.
      await server.waitFor(/set the password of owner@example\.com with this link/).catch(() => {})
      proxy.releaseCloses()
    } else {
      server.child.kill('SIGTERM')
    }
    const { code } = await server.exited
    const { stdout, stderr } = server.output()
    t.notMatch(stderr, /params:|Failed query/, `round ${round}: no failed query on stderr`)
    t.equal(stderr, '', `round ${round}: nothing on stderr`)
    t.equal(code, 0, `round ${round}: exits 0, as for any graceful stop`)
    t.match(stdout, /"signal":"SIGTERM".*"msg":"stopping"/, `round ${round}: it stopped on the signal`)
    if (round === 1) t.match(stdout, 'Pingward created the first user (owner@example.com)', 'the new key is printed all the same: it is shown only this once')
  }
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
