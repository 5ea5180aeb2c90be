// Monitors and notification deliveries by status, for the metrics endpoint: one statement per scrape.
import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitors, notificationDeliveries } from '../db/schema.ts'

export interface StatusCounts { monitors: Record<string, number>, deliveries: Record<string, number> }

/** Both grouped counts in one round trip; the deliveries' count reads the whole table once per scrape. */
export async function statusCounts (db: Database): Promise<StatusCounts> {
  const rows = rowsOf<{ kind: 'monitors' | 'deliveries', status: string, count: number }>(await db.execute(sql`
    select 'monitors' as kind, status, count(*)::int as count from ${monitors} where deleted_at is null group by status
    union all
    select 'deliveries', status, count(*)::int from ${notificationDeliveries} group by status
  `))
  const counts: StatusCounts = { monitors: {}, deliveries: {} }
  for (const row of rows) counts[row.kind][row.status] = Number(row.count)
  return counts
}
