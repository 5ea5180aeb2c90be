// A flood of pings of unknown tokens over real HTTP reaches the database only as far as the address's API limit
// while a key's reads are answered. (Latencies are printed, not asserted: the machine is shared.)
import t from 'tap'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { buildTestApp, limiterStore, makeMonitor, makeUser } from '../helper.ts'
import { countStatements } from '../support/statements.ts'

/** A token as the server makes them (24 base64url characters) that no monitor has. */
const unknownToken = () => randomBytes(18).toString('base64url')

// The flood: the API's limit per window, the unknown tokens pinged, the connections pinging them at once.
const LIMIT = 50
const FLOOD = 2000
const LANES = 10

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

t.test(`${FLOOD} unknown tokens from one address: 429 past the API's limit, the database spared, a key's reads answered`, async (t) => {
  const { app } = await buildTestApp(t, { env: { RATE_LIMIT_MAX: String(LIMIT), ...limiterStore() } })
  const { auth } = await makeUser(app)
  for (let i = 0; i < 5; i++) await makeMonitor(app, auth, { name: `Site ${i}` })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const read = async () => {
    const started = performance.now()
    const res = await fetch(`${base}/api/v1/monitors?limit=5`, { headers: auth })
    await res.arrayBuffer()
    return { status: res.status, ms: performance.now() - started }
  }

  // What one lookup of an unknown token costs, and one read, each alone.
  const probe = countStatements(app.db)
  t.equal((await fetch(`${base}/ping/${unknownToken()}`)).status, 404)
  const perLookup = probe.count
  probe.stop()
  const before = []
  for (let i = 0; i < 10; i++) before.push(await read())
  const reader = countStatements(app.db)
  await read()
  const perRead = reader.count
  reader.stop()

  const statuses: Record<number, number> = {}
  let answered = 0
  let sent = 0
  const waiting: Array<{ at: number, resolve: () => void }> = []
  const answers = (at: number) => new Promise<void>((resolve) => waiting.push({ at, resolve }))
  const counter = countStatements(app.db)
  const lane = async () => {
    while (sent < FLOOD) {
      sent++
      const res = await fetch(`${base}/ping/${unknownToken()}`)
      await res.arrayBuffer()
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      answered++
      for (const waiter of waiting.filter((w) => w.at <= answered)) waiter.resolve()
    }
  }
  const flood = Promise.all(Array.from({ length: LANES }, lane))
  // A read after every 100 answers of the flood (within the key's budget), until 80% of it: each after some
  // answers and before the last.
  const during: Array<{ status: number, ms: number, after: number, until: number }> = []
  for (let at = 100; at <= FLOOD * 0.8; at += 100) {
    await answers(at)
    const after = answered
    during.push({ ...await read(), after, until: answered })
  }
  await flood
  counter.stop()

  t.comment(`reads alone: median ${median(before.map((r) => r.ms)).toFixed(1)} ms; during the flood: median ` +
    `${median(during.map((r) => r.ms)).toFixed(1)} ms, max ${Math.max(...during.map((r) => r.ms)).toFixed(1)} ms (${during.length} reads); ` +
    `flood: ${JSON.stringify(statuses)}, ${counter.count} statements`)
  t.ok(during.length >= 3 && during.every((r) => r.after > 0 && r.until < FLOOD), 'the reads ran during the flood')
  t.same(during.filter((r) => r.status !== 200), [], 'every read answered 200')
  // The address's budget (already spent by one lookup) plus the lookups in flight when it ran out.
  t.ok((statuses[404] ?? 0) <= LIMIT + LANES, `at most ${LIMIT} + ${LANES} unknown tokens looked up (${statuses[404] ?? 0})`)
  t.equal((statuses[404] ?? 0) + (statuses[429] ?? 0), FLOOD, 'the rest refused: 429')
  const bound = (LIMIT + LANES) * perLookup + (during.length + 1) * perRead
  t.ok(counter.count <= bound, `the database saw at most ${bound} statements (${counter.count})`)
})
