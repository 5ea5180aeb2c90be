// The checker records results that finish together in group commits: fewer transactions than checks, and a
// monitor paused or deleted while its probe ran is left alone while the others of its batch are recorded.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { Checker } from '../../src/checker/scheduler.ts'
import { createProber, type Prober } from '../../src/checker/probe.ts'
import { rowsOf, type Database } from '../../src/db/client.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'
import { targetServer } from '../support/target-server.ts'

const MONITORS = 20

t.test('results that finish together share a transaction; a monitor paused or deleted meanwhile is left alone', async (t) => {
  const { url } = await targetServer(t, (_req, res) => res.end('ok'))
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  const monitors = []
  for (let i = 0; i < MONITORS; i++) monitors.push(await makeMonitor(app, auth, { url: `${url}/m${i}` }))
  const byUrl = new Map(monitors.map((m) => [m.url as string, m.id as string]))

  // The real prober, watched: the order in which the probes finish, and a promise kept when all have.
  const real = createProber({ allowPrivateTargets: true })
  const finished: string[] = []
  let allProbed!: () => void
  const probed = new Promise<void>((resolve) => { allProbed = resolve })
  const prober: Prober = {
    probe: async (target, signal) => {
      const result = await real.probe(target, signal)
      finished.push(byUrl.get(target.url)!)
      if (finished.length === MONITORS) allProbed()
      return result
    },
    close: () => real.close(),
  }

  // The database, with its transactions counted. The first one (the first result to finish, and those that
  // finished while it gathered company) is held until every probe has finished, so that all the others wait
  // for it together; meanwhile the last two monitors to finish, in the second batch or in the first with
  // others, are paused and deleted through the API.
  let transactions = 0
  let paused: string | undefined
  let deleted: string | undefined
  const db = Object.create(app.db) as Database
  db.transaction = (async (...args: Parameters<Database['transaction']>) => {
    if (++transactions === 1) {
      await probed
      // A turn of the event loop: every finished probe has handed its result in.
      await new Promise((resolve) => setImmediate(resolve))
      paused = finished[MONITORS - 1]
      deleted = finished[MONITORS - 2]
      t.equal((await request(app, auth, { method: 'PATCH', url: `/api/v1/monitors/${paused}`, payload: { is_active: false } })).statusCode, 200)
      t.equal((await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${deleted}` })).statusCode, 204)
    }
    return app.db.transaction(...args)
  }) as Database['transaction']

  const checked: string[] = []
  const checker = new Checker({
    db,
    clock: () => new Date(),
    log: app.log,
    prober,
    concurrency: MONITORS,
    confirmDelayMs: 30_000,
    onCheck: (monitor, latenessMs) => {
      t.ok(Number.isFinite(latenessMs), 'each recorded check is told with its lateness')
      checked.push(monitor.id)
    },
  })
  t.teardown(() => checker.stop())
  t.equal(await checker.runOnce(), MONITORS, 'all claimed at once')

  // The first result (with those that finished within the scheduler's gathering time), then the rest together.
  t.ok(transactions <= 2, `${MONITORS} results in ${transactions} transactions, not ${MONITORS}`)
  const others = monitors.map((m) => m.id as string).filter((id) => id !== paused && id !== deleted)
  t.same(new Set(checked), new Set(others), 'every other check was recorded and told, once each')
  t.equal(checked.length, MONITORS - 2)

  const rows = rowsOf<{ monitor_id: string, n: number }>(await app.db.execute(sql`select monitor_id::text, count(*)::int as n from checks group by monitor_id`))
  t.same(new Map(rows.map((r) => [r.monitor_id, Number(r.n)])), new Map(others.map((id) => [id, 1])), 'one check row each; none for the paused and the deleted')

  const get = async (id: string) => (await request(app, auth, { url: `/api/v1/monitors/${id}` }))
  t.match((await get(paused!)).json().data, { status: 'paused', is_active: false, last_checked_at: null }, 'the paused monitor is left as the pause left it')
  t.equal((await get(deleted!)).statusCode, 404)
  for (const id of others) t.match((await get(id)).json().data, { status: 'up', last_checked_at: String })
})

t.test('results that trickle in (one every 40 ms) are gathered into one transaction', async (t) => {
  // The target answers /m<i> i x 40 ms after all four have asked: the results finish one by one, none while another
  // is written, and every answer's timer is set before the first result starts to gather, however late a request came.
  const asked: Array<() => void> = []
  const { url } = await targetServer(t, (req, res) => {
    asked.push(() => setTimeout(() => res.end('ok'), Number(req.url!.slice(2)) * 40))
    if (asked.length === 4) for (const answer of asked) answer()
  })
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  for (let i = 0; i < 4; i++) await makeMonitor(app, auth, { url: `${url}/m${i}` })
  let transactions = 0
  const db = Object.create(app.db) as Database
  db.transaction = ((...args: Parameters<Database['transaction']>) => {
    transactions++
    return app.db.transaction(...args)
  }) as Database['transaction']
  let checked = 0
  const checker = new Checker({
    db,
    clock: () => new Date(),
    log: app.log,
    prober: createProber({ allowPrivateTargets: true }),
    concurrency: 10,
    confirmDelayMs: 30_000,
    onCheck: () => { checked++ },
  })
  t.teardown(() => checker.stop())
  t.equal(await checker.runOnce(), 4)
  t.equal(checked, 4)
  t.equal(transactions, 1, 'the first result waited for the others (gatherMs) instead of being written alone')
})
