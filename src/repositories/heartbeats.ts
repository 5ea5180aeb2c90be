// Heartbeat data access: the monitors pings' tokens name (locked), and the heartbeats
// whose deadline passed without a ping (claimed one at a time, SKIP LOCKED).
import { and, asc, eq, isNull, lte, min, sql } from 'drizzle-orm'
import { rowsOf, type Database, type Queryable } from '../db/client.ts'
import { monitors } from '../db/schema.ts'
import { anyOf, MONITOR_COLUMNS, monitorRowColumns, monitorRowOf, type MonitorRow } from './monitor-rows.ts'

const liveHeartbeat = and(isNull(monitors.deletedAt), eq(monitors.monitorType, 'heartbeat'))

/**
 * The live heartbeat monitors of ping tokens, locked FOR UPDATE for the rest of the transaction in the order of
 * their ids (as lockActiveMonitors, so overlapping batches never deadlock), paused ones too (the caller tells
 * them apart), by token; a token no live heartbeat has is missing.
 */
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
 * The active heartbeat whose deadline passed longest ago, locked FOR UPDATE for the rest of the transaction;
 * one being pinged or claimed by another checker meanwhile is skipped (SKIP LOCKED), and the deadline is read
 * under the lock, so a ping that moved it is seen. Undefined when none is due.
 */
export async function lockMissedHeartbeat (tx: Queryable, now: Date): Promise<MonitorRow | undefined> {
  const [row] = await tx.select(monitorRowColumns).from(monitors)
    .where(and(liveHeartbeat, eq(monitors.isActive, true), lte(monitors.nextCheckAt, now)))
    .orderBy(asc(monitors.nextCheckAt))
    .limit(1)
    .for('update', { skipLocked: true })
  return row
}

/** The earliest deadline of an active heartbeat (null when there is none), so that an idle claimer sleeps until then. */
export async function nextHeartbeatDeadline (db: Database): Promise<Date | null> {
  const [row] = await db.select({ at: min(monitors.nextCheckAt) }).from(monitors).where(and(liveHeartbeat, eq(monitors.isActive, true)))
  return row?.at ?? null
}
