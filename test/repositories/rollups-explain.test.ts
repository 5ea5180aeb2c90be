// The plans (not the timings) of a year of daily uptime and of a status page's 90 days of bars: index range reads,
// never a sequential scan or a sort, on a table of many monitors' years written as the job writes them; once vacuumed
// (as autovacuum does), from the covering index of day rows alone (its rows lie on a few pages, the table's on many).
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
  t.equal(rowsOf(await db.execute(query)).length, 50 * 89, 'no hour rows today: 89 past days of 50 monitors')
})
