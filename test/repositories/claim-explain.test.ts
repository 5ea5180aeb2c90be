// The plans of the checker's claims: monitors without locations from monitors_due_idx, which holds none with
// locations (their own next_check_at may be overdue: their schedule rows stand for it), and a location's schedule rows
// from monitor_schedules_due_idx. Run with ANALYZE, so the rows an index scan dropped show; nothing is due, so nothing changes.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { claimAtLocationQuery, claimDueQuery } from '../../src/monitors/scheduling.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase } from '../helper.ts'
import { describePlan, explain, preparedQuery, type PlanNode } from '../support/explain.ts'

const MONITORS = 1000

t.test('each claim reads only its own due rows from its index', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'claims@example.com')
  // Half without locations, due in an hour; half with three locations, whose own next_check_at is long overdue; their
  // schedule rows due in the future.
  await db.execute(sql`insert into monitors (org_id, name, url, next_check_at, locations)
    select ${user.id}, 'm' || i, 'https://example.com/' || i,
      case when i % 2 = 0 then now() + interval '1 hour' else now() - interval '1 day' end,
      case when i % 2 = 0 then '{}'::text[] else '{eu-west,us-east,ap-south}'::text[] end
    from generate_series(1, ${MONITORS}) i`)
  await db.execute(sql`insert into monitor_schedules (monitor_id, location, next_check_at)
    select m.id, l, now() + (row_number() over ()) * interval '1 second'
    from monitors m cross join unnest(m.locations) l`)
  await db.execute(sql`analyze`)
  const values = { now: new Date().toISOString(), limit: 100, leaseUntil: new Date(Date.now() + 90_000).toISOString(), location: 'eu-west' }
  const plan = (query: () => ReturnType<typeof claimDueQuery>) => explain(handle, preparedQuery(query(), values), { analyze: true })
  const scanOf = (nodes: PlanNode[], index: string) => nodes.find((node) => node['Index Name'] === index)

  const own = await plan(claimDueQuery)
  t.ok(scanOf(own, 'monitors_due_idx'), `monitors without locations: ${describePlan(own)}`)
  t.equal(scanOf(own, 'monitors_due_idx')?.['Rows Removed by Filter'] ?? 0, 0, 'no overdue monitor with locations is read and dropped')
  const located = await plan(claimAtLocationQuery)
  t.ok(scanOf(located, 'monitor_schedules_due_idx'), `a location's schedule rows: ${describePlan(located)}`)

  await t.test('with the index of every monitor, the overdue ones with locations are read and dropped', async (t) => {
    await db.execute(sql`drop index monitors_due_idx`)
    await db.execute(sql`create index monitors_due_idx on monitors (next_check_at) where deleted_at is null and is_active and monitor_type <> 'heartbeat'`)
    await db.execute(sql`analyze`)
    const nodes = await plan(claimDueQuery)
    const removed = nodes.reduce((sum, node) => sum + (node['Rows Removed by Filter'] ?? 0), 0)
    t.equal(removed, MONITORS / 2, describePlan(nodes))
  })
})
