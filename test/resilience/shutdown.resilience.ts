// SIGTERM under load: requests in flight finish, later ones get 503 {error} or a refused connection, the
// checker stops cleanly, the process exits 0 within 10 s, and everything answered 2xx is in the database.
import http from 'node:http'
import { setTimeout as pause } from 'node:timers/promises'
import postgres from 'postgres'
import t from 'tap'
import { until } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'
import { firstKey, SKIP_WITHOUT_POSTGRES, startPingward, startPrivatePostgres } from './support.ts'

interface Outcome { status: number | string, id?: string, sentAt: number, at: number }

interface SlowPost {
  /** Resolves once the server has the request (it answered 100 Continue to its headers). */
  started: Promise<void>
  /** Sends the rest of the body. */
  finish: () => void
  outcome: Promise<Outcome>
}

/** A POST whose body is sent in two parts: in flight at the server from `started` until `finish()`. */
function slowPost (base: string, headers: Record<string, string>, body: string): SlowPost {
  const sentAt = Date.now()
  let started!: () => void
  const startedPromise = new Promise<void>((resolve) => { started = resolve })
  const req = http.request(`${base}/api/v1/monitors`, {
    method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  })
  const outcome = new Promise<Outcome>((resolve) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk }).on('end', () => {
        resolve({ status: res.statusCode ?? 0, id: res.statusCode === 201 ? JSON.parse(text).data.id : undefined, sentAt, at: Date.now() })
      })
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      started()
      resolve({ status: err.code ?? err.message, sentAt, at: Date.now() })
    })
  })
  req.on('continue', () => {
    req.write(body.slice(0, 10))
    started()
  })
  req.flushHeaders()
  return { started: startedPromise, finish: () => { req.end(body.slice(10)) }, outcome }
}

t.test('SIGTERM under load', { skip: SKIP_WITHOUT_POSTGRES }, async (t) => {
  const pg = await startPrivatePostgres(t)
  let probesSeen = 0
  // A target that answers after a second: probes are in flight when the signal comes.
  const target = await targetServer(t, (_req, res) => { probesSeen++; setTimeout(() => res.end('ok'), 1000) })
  const targetUrl = `${target.url}/`

  const server = await startPingward(t, { DATABASE_URL: pg.url, CHECKER: 'on', ALLOW_PRIVATE_TARGETS: 'true', CHECK_CONFIRM_DELAY: '1', RATE_LIMIT_MAX: '1000000' })
  const headers = { authorization: `Bearer ${await firstKey(server)}`, 'content-type': 'application/json' }
  const monitorBody = (name: string) => JSON.stringify({ name, url: targetUrl, failure_threshold: 10 })

  // Load: 24 clients on keep-alive connections, creating monitors and reading the list as fast as they can.
  const outcomes: Outcome[] = []
  let loading = true
  let signalAt = 0
  // The first refusal after the signal: from then on the server is closing.
  let refused!: () => void
  const refusing = new Promise<void>((resolve) => { refused = resolve })
  const client = async (n: number) => {
    // eslint-disable-next-line no-unmodified-loop-condition -- cleared by the test once the server has exited
    for (let i = 0; loading; i++) {
      const sentAt = Date.now()
      const write = i % 2 === 0
      try {
        const res = await fetch(`${server.base}/api/v1/monitors`, {
          method: write ? 'POST' : 'GET', headers, signal: AbortSignal.timeout(15_000), ...(write ? { body: monitorBody(`load ${n}.${i}`) } : {}),
        })
        const body = await res.json()
        outcomes.push({ status: res.status, id: res.status === 201 ? body.data.id : undefined, sentAt, at: Date.now() })
        if (res.status >= 400) t.same(body, { error: 'Service unavailable' }, `a refused request gets the {error} body (${res.status})`)
        if (res.status === 503 && signalAt !== 0) refused()
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause
        outcomes.push({ status: cause?.code ?? (err as Error).name, sentAt, at: Date.now() })
        if (signalAt === 0) throw err
        refused()
        // A refused client tries again a moment later, as a real one would (not a wait for anything).
        await pause(20)
      }
    }
  }
  const clients = Array.from({ length: 24 }, (_, n) => client(n))
  // The load runs until the checker probes the monitors it creates.
  await until(() => probesSeen > 0)
  t.ok(probesSeen > 0, `the checker is probing (${probesSeen} probes so far)`)
  const inFlight = Array.from({ length: 5 }, (_, n) => slowPost(server.base, headers, monitorBody(`in flight ${n}`)))
  await Promise.all(inFlight.map((p) => p.started))

  signalAt = Date.now()
  server.child.kill('SIGTERM')
  // The rest of their bodies only once the server refuses requests: they were in flight when it began closing.
  await refusing
  for (const p of inFlight) p.finish()
  const exit = await server.exited
  loading = false
  await Promise.all(clients)

  // A stop that outlasts the server's 10 s grace is ended by close-with-grace: exit code 1, "killed by timeout".
  t.same(exit, { code: 0, signal: null }, 'exit code 0, within the 10 s grace')
  const slow = await Promise.all(inFlight.map((p) => p.outcome))
  t.same(slow.map((o) => o.status), [201, 201, 201, 201, 201], 'requests in flight at SIGTERM finish with 2xx')
  const statuses = new Map<string, number>()
  for (const o of outcomes) statuses.set(String(o.status), (statuses.get(String(o.status)) ?? 0) + 1)
  t.comment(`load: ${outcomes.length} requests, ${JSON.stringify(Object.fromEntries(statuses))}`)
  const unexpected = outcomes.filter((o) => !(o.status === 200 || o.status === 201 || o.status === 503 || ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(String(o.status))))
  t.same(unexpected, [], 'every answer is 2xx, 503 {error} or a refused/closed connection; no 500, no hang')
  // Once a refusal has come back, the server is closing: every request sent after that must be refused too.
  const firstRefusalAt = Math.min(...outcomes.filter((o) => o.status === 503 || typeof o.status === 'string').map((o) => o.at))
  const lateSuccess = outcomes.filter((o) => o.sentAt > firstRefusalAt && o.status !== 503 && typeof o.status === 'number')
  t.same(lateSuccess, [], 'requests sent after the shutdown began are not served')
  t.ok(outcomes.some((o) => o.sentAt > signalAt && (o.status === 503 || typeof o.status === 'string')), 'later requests were refused')

  const output = server.output()
  t.match(output, /"msg":"checker stopped"/, 'the checker stopped cleanly')
  t.equal(output.match(/"level":(50|60)/g), null, 'no errors logged')

  const sql = postgres(pg.url, { max: 1, onnotice: () => {} })
  t.teardown(() => sql.end())
  const written = [...outcomes, ...slow].filter((o) => o.id).map((o) => o.id!)
  const found = await sql`select id from monitors where id = any(${written}::uuid[]) and deleted_at is null`
  t.equal(found.length, written.length, `all ${written.length} monitors answered 201 are in the database`)
  const [{ checks }] = await sql`select count(*)::int as checks from checks`
  t.ok(checks >= probesSeen - 0, `every probe that reached the target was recorded (${checks} checks, ${probesSeen} probes)`)
})
