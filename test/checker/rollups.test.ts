// The rollups' job: a catch-up rests between buckets and a stop ends it at its next rest, what was built kept;
// a run that built a day leaves the rollups' pages all-visible, for the uptime read's index-only scan.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { runRollups } from '../../src/checker/rollups.ts'
import { DAY_MS, HOUR_MS } from '../../src/repositories/rollups.ts'
import { buildTestApp, makeMonitor, makeUser } from '../helper.ts'

const T0 = Date.parse('2026-11-01T00:00:00.000Z')

/** How far the hours are built, as epoch ms. */
async function hoursBuiltUntil (db: any): Promise<number> {
  const [row] = rowsOf<{ until: number }>(await db.execute(sql`select (extract(epoch from built_until) * 1000)::float8 as until
    from rollup_progress where granularity = 'hour'`))
  return row.until
}

t.test('a catch-up stopped mid-way ends at its next rest, with what it built kept and the rest left to the next run', async (t) => {
  let now = T0
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { auth } = await makeUser(app)
  await makeMonitor(app, auth)
  // Two days later: 48 hours and 2 days are due.
  now = T0 + 2 * DAY_MS + HOUR_MS
  const stopping = new AbortController()
  let asked = 0
  // The job asks the clock once per bucket: the stop comes while the third is being built.
  const clock = () => {
    if (++asked === 3) stopping.abort()
    return new Date(now)
  }
  t.equal(await runRollups(app.db, clock, { restRatio: 1, signal: stopping.signal }), 3, 'the bucket under way is finished, no other begun')
  t.equal(await hoursBuiltUntil(app.db), T0 + 3 * HOUR_MS, 'its progress is recorded')
  t.equal(await runRollups(app.db, () => new Date(now), { restRatio: 1 }), 48 + 2 - 3, 'the next run builds the rest, resting between buckets')
  t.equal(await runRollups(app.db, () => new Date(now), { signal: AbortSignal.abort() }), 0, 'a run asked to stop before it starts builds nothing')
})

/** The rollups table's pages, and those the visibility map marks all-visible (as of its last vacuum). */
async function visibility (db: any): Promise<{ pages: number, visible: number }> {
  const [row] = rowsOf<{ pages: number, visible: number }>(await db.execute(sql`select relpages as pages, relallvisible as visible
    from pg_class where relname = 'monitor_rollups'`))
  return row
}

t.test('a run that built a day vacuums the rollups; one that built only hours does not', async (t) => {
  let now = T0
  const { app } = await buildTestApp(t, { clock: () => new Date(now) })
  const { auth } = await makeUser(app)
  // Enough monitors for the rows to take several pages.
  for (let i = 0; i < 40; i++) await makeMonitor(app, auth, { name: `m${i}` })
  now = T0 + 23 * HOUR_MS + HOUR_MS / 2
  t.equal(await runRollups(app.db, () => new Date(now)), 23, 'hours only (the 23 that ended 10 minutes ago): the day is not complete')
  t.same(await visibility(app.db), { pages: 0, visible: 0 }, 'not vacuumed: no page counted, none marked')
  now = T0 + DAY_MS + HOUR_MS
  t.equal(await runRollups(app.db, () => new Date(now)), 2, 'the last hour and the day')
  const { pages, visible } = await visibility(app.db)
  t.ok(pages > 1, `the rows take ${pages} pages`)
  t.equal(visible, pages, 'every page is all-visible')
})
