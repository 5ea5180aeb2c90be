// The plan of the check list queries (not their timing): a backward scan of checks_monitor_checked_idx,
// never a sort or a sequential scan of checks, on a table large enough that the planner would pick
// something else without the index (the last test drops the index and sees the plan change).
import t from 'tap'
import { fillPlaceholders, sql, type SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { rowsOf, type DatabaseHandle } from '../../src/db/client.ts'
import { checksQuery, ownedChecksQuery } from '../../src/repositories/checks.ts'
import { createApiKey } from '../../src/repositories/api-keys.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase } from '../helper.ts'

// Like a real fleet, and like bench/: many monitors, more checks each than a page, written in time order.
// (With about a page per monitor, reading all and sorting is cheaper; with a few monitors, walking
// checks_checked_idx backwards is: the planner rightly picks those, and the test would say nothing.)
const MONITORS = 300
const CHECKS_PER_MONITOR = 200

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Scan Direction'?: string
  Plans?: PlanNode[]
}

function nodesOf (node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

/** EXPLAIN (FORMAT JSON) of exactly the text and parameters drizzle sends, through the driver itself. */
async function explain (handle: DatabaseHandle, query: { sql: string, params: unknown[] }): Promise<PlanNode[]> {
  const client = (handle.db as unknown as { $client: unknown }).$client
  const text = `explain (format json) ${query.sql}`
  const rows = handle.kind === 'postgres'
    ? await (client as { unsafe: (q: string, p: unknown[]) => Promise<Record<string, unknown>[]> }).unsafe(text, query.params)
    : (await (client as { query: (q: string, p: unknown[]) => Promise<{ rows: Record<string, unknown>[] }> }).query(text, query.params)).rows
  const value = Object.values(rows[0])[0]
  const plan = (typeof value === 'string' ? JSON.parse(value) : value) as Array<{ Plan: PlanNode }>
  return nodesOf(plan[0].Plan)
}

const describe = (nodes: PlanNode[]) =>
  nodes.map((n) => [n['Node Type'], n['Scan Direction'], n['Index Name'] ?? n['Relation Name']].filter(Boolean).join(' ')).join(' > ')

/** What is wrong with a plan of the check list; empty when it is the index scan it should be. */
function problems (nodes: PlanNode[]): string[] {
  const found: string[] = []
  const scan = nodes.find((n) => n['Index Name'] === 'checks_monitor_checked_idx')
  if (!scan) found.push('checks_monitor_checked_idx is not used')
  else if (!/^Index (Only )?Scan$/.test(scan['Node Type']) || scan['Scan Direction'] !== 'Backward') {
    found.push(`checks_monitor_checked_idx is read by a ${scan['Node Type']} ${scan['Scan Direction'] ?? ''}, not a backward index scan`)
  }
  for (const n of nodes) {
    if (/Sort/.test(n['Node Type'])) found.push(`a ${n['Node Type']} node`)
    if (n['Relation Name'] === 'checks' && n['Node Type'] !== 'Index Scan' && n['Node Type'] !== 'Index Only Scan') {
      found.push(`a ${n['Node Type']} of checks`)
    }
  }
  return found
}

t.test('the check list queries scan checks_monitor_checked_idx backwards', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'explain@example.com')
  const key = await createApiKey(db, { userId: user.id, name: 'explain', scope: 'read' })
  await db.execute(sql`insert into monitors (user_id, name, url)
    select ${user.id}, 'm' || i, 'https://example.com/' || i from generate_series(1, ${MONITORS}) i`)
  await db.execute(sql`insert into checks (monitor_id, is_up, status_code, response_time_ms, checked_at)
    select m.id, true, 200, 20, now() - g * interval '1 minute' - random() * interval '1 minute'
    from generate_series(${CHECKS_PER_MONITOR}, 1, -1) g cross join monitors m order by g desc`)
  await db.execute(sql`analyze`)
  const rows = await db.execute(sql`select id from monitors limit 1`)
  const monitorId = rowsOf<{ id: string }>(rows)[0].id
  const before = new Date().toISOString()
  const dialect = new PgDialect()
  // The statement as prepared, with the values of its placeholders.
  const toQuery = (query: SQL, values: Record<string, unknown>) => {
    const { sql, params } = dialect.sqlToQuery(query)
    return { sql, params: fillPlaceholders(params, { monitorId, limit: 100, ...values }) }
  }

  const queries = {
    listChecks: () => checksQuery(db, monitorId, { limit: 100 }).toSQL(),
    'listChecks with before': () => checksQuery(db, monitorId, { limit: 100, before: new Date(before) }).toSQL(),
    'listOwnedChecks (dashboard)': () => toQuery(ownedChecksQuery('user', false), { owner: user.id }),
    'listOwnedChecks with before (dashboard)': () => toQuery(ownedChecksQuery('user', true), { owner: user.id, before }),
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
