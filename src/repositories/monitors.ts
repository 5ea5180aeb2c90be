// Monitor data access for the API: list, read, create, update and soft-delete, scoped to one user.
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { monitors } from '../db/schema.ts'
import type { CreateMonitor, Monitor, MonitorListItem, UpdateMonitor } from '../schemas/monitor.ts'
import { resolveOpenIncident } from './incidents.ts'

type MonitorRow = typeof monitors.$inferSelect

export function toMonitor (row: MonitorRow): Monitor {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    monitor_type: row.monitorType,
    method: row.method as Monitor['method'],
    expected_status: row.expectedStatus,
    interval_minutes: row.intervalMinutes,
    timeout_seconds: row.timeoutSeconds,
    failure_threshold: row.failureThreshold,
    recovery_threshold: row.recoveryThreshold,
    status: row.status,
    is_active: row.isActive,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

const ownedLive = (userId: string, id: string) =>
  and(eq(monitors.id, id), eq(monitors.userId, userId), isNull(monitors.deletedAt))

export async function listMonitors (db: Database, userId: string): Promise<MonitorListItem[]> {
  const rows = await db.select({
    id: monitors.id,
    name: monitors.name,
    url: monitors.url,
    monitor_type: monitors.monitorType,
    status: monitors.status,
    is_active: monitors.isActive,
    interval_minutes: monitors.intervalMinutes,
    last_checked_at: monitors.lastCheckedAt,
  }).from(monitors)
    .where(and(eq(monitors.userId, userId), isNull(monitors.deletedAt)))
    .orderBy(desc(monitors.createdAt), desc(monitors.id))
  return rows.map((row) => ({ ...row, last_checked_at: row.last_checked_at?.toISOString() ?? null }))
}

export async function findMonitor (db: Database, userId: string, id: string): Promise<Monitor | undefined> {
  const [row] = await db.select().from(monitors).where(ownedLive(userId, id))
  return row && toMonitor(row)
}

/** True when the monitor exists, is not deleted and belongs to the user. */
export async function monitorExists (db: Database, userId: string, id: string): Promise<boolean> {
  const rows = await db.select({ id: monitors.id }).from(monitors).where(ownedLive(userId, id))
  return rows.length > 0
}

function columnsOf (input: UpdateMonitor) {
  return {
    name: input.name?.trim(),
    url: input.url,
    monitorType: input.monitor_type,
    method: input.method,
    expectedStatus: input.expected_status,
    intervalMinutes: input.interval_minutes,
    isActive: input.is_active,
    timeoutSeconds: input.timeout_seconds,
    failureThreshold: input.failure_threshold,
    recoveryThreshold: input.recovery_threshold,
  }
}

export async function createMonitor (db: Database, userId: string, input: CreateMonitor, now: Date): Promise<Monitor> {
  const active = input.is_active ?? true
  const [row] = await db.insert(monitors).values({
    ...columnsOf(input),
    name: input.name.trim(),
    url: input.url,
    userId,
    status: active ? 'pending' : 'paused',
    // A new monitor is due at once, so its first check comes within seconds.
    nextCheckAt: active ? now : null,
    createdAt: now,
    updatedAt: now,
  }).returning()
  return toMonitor(row)
}

export async function updateMonitor (
  db: Database, userId: string, id: string, input: UpdateMonitor, now: Date
): Promise<Monitor | undefined> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(monitors).where(ownedLive(userId, id)).for('update')
    if (!current) return undefined
    const changes: Partial<typeof monitors.$inferInsert> = { ...columnsOf(input), updatedAt: now }
    if (input.is_active === false && current.isActive) {
      Object.assign(changes, { status: 'paused', nextCheckAt: null, consecutiveFailures: 0, consecutiveSuccesses: 0 })
      await resolveOpenIncident(tx, id, now)
    } else if (input.is_active === true && !current.isActive) {
      Object.assign(changes, { status: 'pending', nextCheckAt: now, consecutiveFailures: 0, consecutiveSuccesses: 0 })
    } else if (current.isActive && input.interval_minutes !== undefined && input.interval_minutes !== current.intervalMinutes &&
      current.lastCheckedAt && current.consecutiveFailures === 0) {
      // A new interval counts from the last check, so a shorter one is not held back by the old schedule.
      const next = current.lastCheckedAt.getTime() + input.interval_minutes * 60_000
      changes.nextCheckAt = new Date(Math.max(next, now.getTime()))
    }
    const [row] = await tx.update(monitors).set(changes).where(eq(monitors.id, id)).returning()
    return toMonitor(row)
  })
}

/** Soft-deletes the monitor and resolves its open incident; false when there was nothing to delete. */
export async function deleteMonitor (db: Database, userId: string, id: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx.update(monitors)
      .set({ deletedAt: now, updatedAt: now, nextCheckAt: null })
      .where(ownedLive(userId, id))
      .returning({ id: monitors.id })
    if (deleted.length === 0) return false
    await resolveOpenIncident(tx, id, now)
    return true
  })
}

export async function countMonitors (db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(monitors)
  return row.n
}
