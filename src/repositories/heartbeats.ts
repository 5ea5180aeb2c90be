// Heartbeat data access: the monitor a ping's token names (locked), a heartbeat's deadline, and the heartbeats
// whose deadline passed without a ping (claimed one at a time, SKIP LOCKED).
import { and, asc, eq, isNull, lte, min } from 'drizzle-orm'
import type { Database, Queryable } from '../db/client.ts'
import { monitors } from '../db/schema.ts'

type MonitorRow = typeof monitors.$inferSelect

const liveHeartbeat = and(isNull(monitors.deletedAt), eq(monitors.monitorType, 'heartbeat'))

/**
 * The live heartbeat monitor of a ping token, locked FOR UPDATE for the rest of the transaction (paused ones
 * too: the caller tells them apart); undefined when no live heartbeat has that token.
 */
export async function lockHeartbeatByToken (tx: Queryable, token: string): Promise<Pick<MonitorRow, 'id' | 'isActive' | 'intervalMinutes' | 'graceMinutes'> | undefined> {
  const [row] = await tx.select({ id: monitors.id, isActive: monitors.isActive, intervalMinutes: monitors.intervalMinutes, graceMinutes: monitors.graceMinutes })
    .from(monitors)
    .where(and(eq(monitors.pingToken, token), liveHeartbeat))
    .for('update')
  return row
}

/** When the heartbeat's next ping is due at the latest (its next_check_at). */
export async function setHeartbeatDeadline (tx: Queryable, monitorId: string, deadline: Date): Promise<void> {
  await tx.update(monitors).set({ nextCheckAt: deadline }).where(eq(monitors.id, monitorId))
}

/**
 * The active heartbeat whose deadline passed longest ago, locked FOR UPDATE for the rest of the transaction;
 * one being pinged or claimed by another checker meanwhile is skipped (SKIP LOCKED), and the deadline is read
 * under the lock, so a ping that moved it is seen. Undefined when none is due.
 */
export async function lockMissedHeartbeat (tx: Queryable, now: Date): Promise<MonitorRow | undefined> {
  const [row] = await tx.select().from(monitors)
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
