// The plan of the check list queries (not their timing): a backward scan of checks_monitor_checked_idx,
// never a sort or a sequential scan of checks, on a table large enough that the planner would pick
// something else without the index (the last test drops the index and sees the plan change).
import t from 'tap'
import { sql, type SQL } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { checksQuery, ownedChecksQuery } from '../../src/repositories/checks.ts'
import { createApiKey } from '../../src/repositories/api-keys.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase } from '../helper.ts'
import { backwardScanProblems, describePlan as describe, explain, preparedQuery, type PlanNode } from '../support/explain.ts'

// Like a real fleet, and like bench/: many monitors, more checks each than a page, written in time order.
// (With about a page per monitor, reading all and sorting is cheaper; with a few monitors, walking
// checks_checked_idx backwards is: the planner rightly picks those, and the test would say nothing.)
const MONITORS = 300
const CHECKS_PER_MONITOR = 200

/** What is wrong with a plan of the check list; empty when it is the index scan it should be. */
const problems = (nodes: PlanNode[]) => backwardScanProblems(nodes, 'checks_monitor_checked_idx', 'checks')

t.test('the check list queries scan checks_monitor_checked_idx backwards', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'explain@example.com')
  const key = await createApiKey(db, { userId: user.id, orgId: user.id, name: 'explain', scope: 'read' })
  await db.execute(sql`insert into monitors (org_id, name, url)
    select ${user.id}, 'm' || i, 'https://example.com/' || i from generate_series(1, ${MONITORS}) i`)
  await db.execute(sql`insert into checks (monitor_id, is_up, status_code, response_time_ms, checked_at)
    select m.id, true, 200, 20, now() - g * interval '1 minute' - random() * interval '1 minute'
    from generate_series(${CHECKS_PER_MONITOR}, 1, -1) g cross join monitors m order by g desc`)
  await db.execute(sql`analyze`)
  const rows = await db.execute(sql`select id from monitors limit 1`)
  const monitorId = rowsOf<{ id: string }>(rows)[0].id
  const before = new Date().toISOString()
  // The statement as prepared, with the values of its placeholders.
  const toQuery = (query: SQL, values: Record<string, unknown>) => preparedQuery(query, { monitorId, limit: 100, location: null, ...values })

  const queries = {
    listChecks: () => checksQuery(db, monitorId, { limit: 100 }).toSQL(),
    'listChecks with before': () => checksQuery(db, monitorId, { limit: 100, before: new Date(before) }).toSQL(),
    'listOwnedChecks (dashboard)': () => toQuery(ownedChecksQuery('org', false), { owner: user.id }),
    'listOwnedChecks with before (dashboard)': () => toQuery(ownedChecksQuery('org', true), { owner: user.id, before }),
    'listOwnedChecks (API key)': () => toQuery(ownedChecksQuery('key', false), { owner: key.record.id }),
    'listOwnedChecks with before (API key)': () => toQuery(ownedChecksQuery('key', true), { owner: key.record.id, before }),
  }

  for (const [name, query] of Object.entries(queries)) {
    const nodes = await explain(handle, query())
    t.same(problems(nodes), [], `${name}: ${describe(nodes)}`)
  }

  await t.test('without the index the plan is something else (so the assertions above can fail)', async (t) => {
    await db.execute(sql`drop index checks_monitor_checked_idx`)
    for (const [name, query] of Object.entries(queries)) {
      const nodes = await explain(handle, query())
      t.not(problems(nodes).length, 0, `${name}: ${describe(nodes)}`)
    }
  })
})
