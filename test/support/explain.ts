// EXPLAIN for the plan tests of test/repositories/: the plan of exactly the text and parameters a statement
// sends, through the driver itself, as a flat list of nodes; one line describing it; what keeps it from a backward index scan.
import { fillPlaceholders, type SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { DatabaseHandle } from '../../src/db/client.ts'

export interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Scan Direction'?: string
  /** With `analyze`: the rows an index scan read and dropped by the rest of the WHERE clause. */
  'Rows Removed by Filter'?: number
  Plans?: PlanNode[]
}

function nodesOf (node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

/** EXPLAIN (FORMAT JSON; ANALYZE, which runs it, when asked) of exactly the text and parameters drizzle sends, through the driver itself. */
export async function explain (handle: DatabaseHandle, query: { sql: string, params: unknown[] }, options: { analyze?: boolean } = {}): Promise<PlanNode[]> {
  const client = (handle.db as unknown as { $client: unknown }).$client
  const text = `explain (${options.analyze ? 'analyze, ' : ''}format json) ${query.sql}`
  const rows = handle.kind === 'postgres'
    ? await (client as { unsafe: (q: string, p: unknown[]) => Promise<Record<string, unknown>[]> }).unsafe(text, query.params)
    : (await (client as { query: (q: string, p: unknown[]) => Promise<{ rows: Record<string, unknown>[] }> }).query(text, query.params)).rows
  const value = Object.values(rows[0])[0]
  const plan = (typeof value === 'string' ? JSON.parse(value) : value) as Array<{ Plan: PlanNode }>
  return nodesOf(plan[0].Plan)
}

export const describePlan = (nodes: PlanNode[]) =>
  nodes.map((n) => [n['Node Type'], n['Scan Direction'], n['Index Name'] ?? n['Relation Name']].filter(Boolean).join(' ')).join(' > ')

const dialect = new PgDialect()

/** A plain-SQL statement (with sql.placeholder()s) as prepared, with the values of its placeholders. */
export function preparedQuery (query: SQL, values: Record<string, unknown>): { sql: string, params: unknown[] } {
  const { sql, params } = dialect.sqlToQuery(query)
  return { sql, params: fillPlaceholders(params, values) }
}

/**
 * What keeps a plan from reading `relation` only by a backward scan of `index` (so in the list's order, and
 * only as far as the page): empty when it does just that.
 */
export function backwardScanProblems (nodes: PlanNode[], index: string, relation: string): string[] {
  const found: string[] = []
  const scan = nodes.find((n) => n['Index Name'] === index)
  if (!scan) found.push(`${index} is not used`)
  else if (!/^Index (Only )?Scan$/.test(scan['Node Type']) || scan['Scan Direction'] !== 'Backward') {
    found.push(`${index} is read by a ${scan['Node Type']} ${scan['Scan Direction'] ?? ''}, not a backward index scan`)
  }
  for (const n of nodes) {
    if (/Sort/.test(n['Node Type'])) found.push(`a ${n['Node Type']} node`)
    if (n['Relation Name'] === relation && n['Node Type'] !== 'Index Scan' && n['Node Type'] !== 'Index Only Scan') {
      found.push(`a ${n['Node Type']} of ${relation}`)
    }
  }
  return found
}
