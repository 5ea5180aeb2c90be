// Heartbeats: the monitors that ping tokens name, and those whose deadline passed without a ping.
import { and, asc, eq, isNull, lte, min, sql } from 'drizzle-orm'
import { rowsOf, type Database, type Queryable } from '../db/client.ts'
import { monitors } from '../db/schema.ts'
import { anyOf, MONITOR_COLUMNS, monitorRowColumns, monitorRowOf, type MonitorRow } from './repository.ts'

const liveHeartbeat = and(isNull(monitors.deletedAt), eq(monitors.monitorType, 'heartbeat'))

/** The live heartbeats of these tokens, paused ones too, locked in id order so overlapping batches never deadlock. */
export async function lockHeartbeatsByTokens (tx: Pick<Database, 'execute'>, tokens: string[]): Promise<Map<string, MonitorRow>> {
  const rows = rowsOf(await tx.execute(sql`select ${MONITOR_COLUMNS} from ${monitors}
    where ${monitors.pingToken} = ${anyOf(tokens, 'text')} and ${liveHeartbeat}
    order by ${monitors.id} for update`))
  return new Map(rows.map((row) => {
    const monitor = monitorRowOf(row)
    return [monitor.pingToken!, monitor]
  }))
}

/**
 * The most overdue active heartbeat, locked (SKIP LOCKED passes over one being pinged or claimed). The
 * deadline is read under the lock, so a ping that moved it is seen.
 */
export async function lockMissedHeartbeat (tx: Queryable, now: Date): Promise<MonitorRow | undefined> {
  const [row] = await tx.select(monitorRowColumns).from(monitors)
    .where(and(liveHeartbeat, eq(monitors.isActive, true), lte(monitors.nextCheckAt, now)))
    .orderBy(asc(monitors.nextCheckAt))
    .limit(1)
    .for('update', { skipLocked: true })
  return row
}

/** The earliest deadline of an active heartbeat, so that an idle claimer sleeps until then. */
export async function nextHeartbeatDeadline (db: Database): Promise<Date | null> {
  const [row] = await db.select({ at: min(monitors.nextCheckAt) }).from(monitors).where(and(liveHeartbeat, eq(monitors.isActive, true)))
  return row?.at ?? null
}
