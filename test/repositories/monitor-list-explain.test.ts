// The plan of the paged monitor list (GET /monitors?limit=..., with a cursor and filters), on a table where one
// user has far more monitors than a page: a page of the list, from its start or from a cursor, is a backward scan
// of monitors_org_created_idx that stops after the page, never a sort or a sequential scan of monitors. A filtered
// page reads the user's rows through the same index; the planner may sort those (top-N) when it expects few
// matches, which it may. The last test drops the index and sees the plans change.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { monitorPageQuery, type ListShape } from '../../src/monitors/repository.ts'
import { createApiKey } from '../../src/repositories/api-keys.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase } from '../helper.ts'
import { backwardScanProblems, describePlan, explain, preparedQuery, type PlanNode } from '../support/explain.ts'

// Like bench/: one big user among smaller ones, so that a user has more monitors than a page on average (the
// planner knows the average, not the user: with fewer, reading them all and sorting is cheaper, rightly).
const BIG_USER_MONITORS = 3000
const OTHER_USERS = 20
const MONITORS_PER_OTHER_USER = 100

/** What keeps a plan from reading only the page, in order: empty when it does. */
const problems = (nodes: PlanNode[]) => backwardScanProblems(nodes, 'monitors_org_created_idx', 'monitors')

/** What keeps a filtered page's plan from reading only the user's rows, through the index: empty when it does. */
function filteredProblems (nodes: PlanNode[]): string[] {
  const found = nodes.some((n) => n['Index Name'] === 'monitors_org_created_idx') ? [] : ['monitors_org_created_idx is not used']
  for (const n of nodes) if (n['Relation Name'] === 'monitors' && /Seq Scan/.test(n['Node Type'])) found.push('a Seq Scan of monitors')
  return found
}

/** A label selector is read off the labels' GIN index (or the organization's), never by a Seq Scan of monitors. */
function labelProblems (nodes: PlanNode[]): string[] {
  const indexes = ['monitors_labels_idx', 'monitors_org_created_idx']
  const found = nodes.some((n) => indexes.includes(n['Index Name'] as string)) ? [] : ['neither the labels\' nor the organization\'s index is used']
  for (const n of nodes) if (n['Relation Name'] === 'monitors' && /Seq Scan/.test(n['Node Type'])) found.push('a Seq Scan of monitors')
  return found
}

t.test('the paged monitor list scans monitors_org_created_idx backwards', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'explain@example.com')
  const key = await createApiKey(db, { userId: user.id, orgId: user.id, name: 'explain', scope: 'read' })
  await db.execute(sql`insert into users (email) select 'other' || i || '@example.com' from generate_series(1, ${OTHER_USERS}) i`)
  await db.execute(sql`insert into monitors (org_id, name, url, status, is_active, created_at)
    select ${user.id}, 'Monitor ' || i, 'https://example.com/' || i, case when i % 10 = 0 then 'down' else 'up' end, i % 7 <> 0,
           now() - i * interval '1 second'
    from generate_series(1, ${BIG_USER_MONITORS}) i`)
  await db.execute(sql`insert into monitors (org_id, name, url, created_at)
    select u.id, 'Other ' || i, 'https://example.org/' || i, now() - i * interval '1 second'
    from users u cross join generate_series(1, ${MONITORS_PER_OTHER_USER}) i where u.id <> ${user.id}`)
  await db.execute(sql`analyze`)
  // A cursor in the middle of the big user's list.
  const [middle] = rowsOf<{ us: string, id: string }>(await db.execute(sql`select (extract(epoch from created_at) * 1000000)::bigint::text as us, id
    from monitors where org_id = ${user.id} order by created_at desc, id desc offset ${BIG_USER_MONITORS / 2} limit 1`))
  const values = { limit: 51, afterUs: middle.us, afterId: middle.id, status: 'down', isActive: true, search: '%monitor 1%', labelValues: '{"env":"prod"}', labelKeys: '["team"]' }

  // The filtered shapes are checked with filteredProblems, the others with problems.
  const shapes: Record<string, Partial<ListShape>> = {
    limit: { limit: true },
    'limit, cursor': { limit: true, cursor: true },
    'filtered: limit, status': { limit: true, status: true },
    'filtered: limit, is_active': { limit: true, isActive: true },
    'filtered: limit, search': { limit: true, search: true },
    'labels: limit, labels': { limit: true, labels: true },
    'filtered: limit, cursor, status, is_active, search': { limit: true, cursor: true, status: true, isActive: true, search: true },
  }
  const queries = Object.entries(shapes).flatMap(([name, shape]) => (['key', 'org'] as const).map((kind) => {
    const full: ListShape = { limit: false, cursor: false, status: false, isActive: false, search: false, labels: false, ...shape }
    const owner = kind === 'key' ? key.record.id : user.id
    return {
      name: `${name} (${kind === 'key' ? 'API key' : 'dashboard'})`,
      check: name.startsWith('filtered') ? filteredProblems : name.startsWith('labels') ? labelProblems : problems,
      query: () => preparedQuery(monitorPageQuery(kind, full), { owner, ...values }),
    }
  }))

  for (const { name, check, query } of queries) {
    const nodes = await explain(handle, query())
    t.same(check(nodes), [], `${name}: ${describePlan(nodes)}`)
  }

  await t.test('without the index the plan is something else (so the assertions above can fail)', async (t) => {
    await db.execute(sql`drop index monitors_org_created_idx`)
    await db.execute(sql`drop index monitors_labels_idx`)
    for (const { name, check, query } of queries) {
      const nodes = await explain(handle, query())
      t.not(check(nodes).length, 0, `${name}: ${describePlan(nodes)}`)
    }
  })
})
