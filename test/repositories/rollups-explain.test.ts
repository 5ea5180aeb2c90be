// The plans (not the timings) of a year of daily uptime and of a status page's 90 days of bars: index range reads,
// never a sequential scan or a sort, on a table of many monitors' years written as the job writes them; once vacuumed
// (as autovacuum does), from the covering index of day rows alone (its rows lie on a few pages, the table's on many).
// And the totals the bars show.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { storedRollupsQuery } from '../../src/repositories/uptime.ts'
import { createUser } from '../../src/repositories/users.ts'
import { dailyUptimeQuery } from '../../src/status-pages/repository.ts'
import { createTestDatabase, type Teardown } from '../helper.ts'

const MONITORS = 100
const DAYS = 400
const HOURS = 35 * 24

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows'?: number
  Plans?: PlanNode[]
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

/** Many monitors' rollups, written as the job writes them: day after day for every monitor, hours of the last 35 days too. */
async function rollupsTable (t: Teardown) {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'explain@example.com')
  await db.execute(sql`insert into monitors (org_id, name, url)
    select ${user.id}, 'm' || i, 'https://example.com/' || i from generate_series(1, ${MONITORS}) i`)
  const today = Math.floor(Date.now() / 86_400_000) * 86_400_000
  await db.execute(sql`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts)
    select m.id, 'day', ${new Date(today).toISOString()}::timestamptz - g * interval '24 hours', 1440, 0, 86400000, 0, '{40,41,42}', '{700,500,240}'
    from generate_series(${DAYS}, 1, -1) g cross join monitors m`)
  await db.execute(sql`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts)
    select m.id, 'hour', ${new Date(today).toISOString()}::timestamptz - g * interval '1 hour', 60, 0, 3600000, 0, '{40,41}', '{30,30}'
    from generate_series(${HOURS}, 1, -1) g cross join monitors m`)
  await db.execute(sql`vacuum analyze monitor_rollups`)
  return { db, today }
}

/** The plan's nodes as EXPLAIN ANALYZE gives them, and a line that describes them. */
async function planOf (db: Awaited<ReturnType<typeof rollupsTable>>['db'], query: ReturnType<typeof sql>) {
  const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`explain (analyze, format json) ${query}`))
  const value = Object.values(row)[0]
  const plan = (typeof value === 'string' ? JSON.parse(value) : value) as Array<{ Plan: PlanNode }>
  const nodes = nodesOf(plan[0].Plan)
  const described = nodes.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'], n['Actual Rows']].filter((x) => x !== undefined).join(' ')).join(' > ')
  return { nodes, described }
}

t.test('a year by day is an index range read of at most 366 rows', async (t) => {
  const { db, today } = await rollupsTable(t)
  const [{ id }] = rowsOf<{ id: string }>(await db.execute(sql`select id from monitors order by id limit 1 offset 50`))
  const query = storedRollupsQuery('day', {
    monitorId: id, start: new Date(today - 365 * 86_400_000).toISOString(), end: new Date(today + 86_400_000).toISOString(),
  })
  const { nodes, described } = await planOf(db, query)
  const scan = nodes.find((n) => n['Relation Name'] === 'monitor_rollups')
  t.ok(scan, described)
  t.equal(scan!['Node Type'], 'Index Only Scan', `an index-only scan: ${described}`)
  t.equal(scan!['Index Name'], 'monitor_rollups_days_idx', described)
  t.equal((scan as { 'Heap Fetches'?: number })['Heap Fetches'], 0, `no row read from the table: ${described}`)
  t.notOk(nodes.some((n) => /Sort|Seq Scan/.test(n['Node Type'])), `no sort or sequential scan: ${described}`)
  t.equal(scan!['Actual Rows'], 365)
  t.equal(rowsOf(await db.execute(query)).length, 365)
})

t.test('a status page\'s 90 days of bars read the past days from the covering index alone', async (t) => {
  const { db, today } = await rollupsTable(t)
  const ids = rowsOf<{ id: string }>(await db.execute(sql`select id from monitors order by id limit 50`)).map((row) => row.id)
  const query = dailyUptimeQuery(ids, new Date(today - 89 * 86_400_000), new Date(today))
  const { nodes, described } = await planOf(db, query)
  const days = nodes.find((n) => n['Relation Name'] === 'monitor_rollups' && n['Index Name'] === 'monitor_rollups_days_idx')
  t.ok(days, `the days index: ${described}`)
  t.equal(days!['Node Type'], 'Index Only Scan', `an index-only scan: ${described}`)
  t.equal((days as { 'Heap Fetches'?: number })['Heap Fetches'], 0, `no day row read from the table: ${described}`)
  t.equal(days!['Actual Rows'], 50 * 89)
  t.notOk(nodes.some((n) => n['Node Type'] === 'Seq Scan'), `no sequential scan: ${described}`)
  t.ok(nodes[0]['Node Type'] === 'Append' && nodes[0].Plans?.includes(days!), `the day rows are answered as read, neither sorted nor grouped (a day row is the day's total): ${described}`)
  t.equal(rowsOf(await db.execute(query)).length, 50 * 89, 'no hour rows today: 89 past days of 50 monitors')
})

t.test('the bars\' totals: each past day\'s row as it is, today the sum of its built hours', async (t) => {
  const { handle: { db } } = await createTestDatabase(t)
  const user = await createUser(db, 'bars@example.com')
  const [a, b] = rowsOf<{ id: string }>(await db.execute(sql`insert into monitors (org_id, name, url)
    select ${user.id}, 'm' || i, 'https://example.com/' || i from generate_series(1, 2) i returning id`)).map((row) => row.id).sort()
  const today = Date.UTC(2026, 11, 2)
  const at = (ms: number) => new Date(today + ms).toISOString()
  const rollup = (id: string, granularity: string, start: string, [tracked, down, maintenance]: number[]) => sql`(${id}::uuid, ${granularity},
    ${start}::timestamptz, 1, 0, ${tracked}, ${down}, ${maintenance}, '{}', '{}')`
  await db.execute(sql`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms,
    maintenance_ms, hist_buckets, hist_counts) values ${sql.join([
    rollup(a, 'day', at(-2 * 86_400_000), [86_400_000, 60_000, 0]),
    rollup(a, 'day', at(-86_400_000), [82_800_000, 0, 3_600_000]),
    rollup(a, 'hour', at(-3_600_000), [3_600_000, 3_600_000, 0]),
    rollup(a, 'hour', at(0), [3_600_000, 120_000, 0]),
    rollup(a, 'hour', at(3_600_000), [1_800_000, 0, 1_800_000]),
    rollup(b, 'day', at(-3 * 86_400_000), [86_400_000, 0, 0]),
    rollup(b, 'day', at(-86_400_000), [86_400_000, 0, 0]),
  ], sql`, `)}`)
  const rows = rowsOf<{ monitorId: string, day: string }>(await db.execute(dailyUptimeQuery([a, b], new Date(today - 2 * 86_400_000), new Date(today))))
  t.same(rows.sort((x, y) => `${x.monitorId}${x.day}`.localeCompare(`${y.monitorId}${y.day}`)), [
    { monitorId: a, day: '2026-11-30', trackedMs: 86_400_000, downtimeMs: 60_000, maintenanceMs: 0 },
    { monitorId: a, day: '2026-12-01', trackedMs: 82_800_000, downtimeMs: 0, maintenanceMs: 3_600_000 },
    { monitorId: a, day: '2026-12-02', trackedMs: 5_400_000, downtimeMs: 120_000, maintenanceMs: 1_800_000 },
    { monitorId: b, day: '2026-12-01', trackedMs: 86_400_000, downtimeMs: 0, maintenanceMs: 0 },
  ], 'yesterday\'s hours are in its day row, not counted again; a day before `from` is left out')
})
