// Maintenance window rows: the organization's windows, the due edges, and which monitors are in maintenance (their
// in_maintenance and maintenance_paused, their stays in monitor_maintenance). It reads and writes; the rules are the service's.
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { incidents, maintenanceWindows, monitorMaintenance, monitors } from '../db/schema.ts'
import type { IncidentRow } from '../repositories/incidents.ts'
import type { MonitorRow } from '../monitors/repository.ts'

export type WindowRow = typeof maintenanceWindows.$inferSelect
export type WindowInsert = typeof maintenanceWindows.$inferInsert

const owned = (orgId: string, id: string) => and(eq(maintenanceWindows.id, id), eq(maintenanceWindows.orgId, orgId))

/** The organization's windows: the next to start first, then those with none to come, newest first. */
export async function listWindows (db: Database, orgId: string): Promise<WindowRow[]> {
  return db.select().from(maintenanceWindows).where(eq(maintenanceWindows.orgId, orgId))
    .orderBy(sql`${maintenanceWindows.nextStartsAt} asc nulls last`, sql`${maintenanceWindows.createdAt} desc`, asc(maintenanceWindows.id))
}

/** The organization's window; with `lock`, locked in the caller's transaction. */
export async function findWindow (db: Database, orgId: string, id: string, lock?: 'lock'): Promise<WindowRow | undefined> {
  const query = db.select().from(maintenanceWindows).where(owned(orgId, id))
  const [row] = lock ? await query.for('update') : await query
  return row
}

export async function insertWindow (tx: Database, values: WindowInsert): Promise<WindowRow> {
  const [row] = await tx.insert(maintenanceWindows).values(values).returning()
  return row
}

export async function updateWindow (tx: Database, id: string, changes: Partial<WindowInsert>): Promise<WindowRow> {
  const [row] = await tx.update(maintenanceWindows).set(changes).where(eq(maintenanceWindows.id, id)).returning()
  return row
}

export async function deleteWindow (tx: Database, id: string): Promise<void> {
  await tx.delete(maintenanceWindows).where(eq(maintenanceWindows.id, id))
}

/** The ids among `ids` that are not live monitors of the organization. */
export async function unknownMonitorIds (db: Database, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const found = await db.select({ id: monitors.id }).from(monitors)
    .where(and(eq(monitors.orgId, orgId), inArray(monitors.id, ids), isNull(monitors.deletedAt)))
  const known = new Set(found.map((row) => row.id))
  return ids.filter((id) => !known.has(id))
}

/** One window whose start or end is due at `now`, locked (SKIP LOCKED: sweeps side by side take different ones). */
export async function lockDueWindow (tx: Database, now: Date): Promise<WindowRow | undefined> {
  const [row] = await tx.select().from(maintenanceWindows)
    .where(or(
      and(isNull(maintenanceWindows.cancelledAt), eq(maintenanceWindows.active, false), sql`${maintenanceWindows.nextStartsAt} <= ${now.toISOString()}::timestamptz`),
      and(eq(maintenanceWindows.active, true), sql`${maintenanceWindows.nextEndsAt} <= ${now.toISOString()}::timestamptz`)
    ))
    .limit(1)
    .for('update', { skipLocked: true })
  return row
}

/**
 * Brings the organization's monitors in line with its active windows at `now`: in_maintenance, maintenance_paused (a
 * paused one is not scheduled; leaving, it is due at once, a heartbeat's deadline a whole interval and grace away)
 * and their stays. Returns the monitors that left maintenance. One change at a time per organization; with
 * `monitorId`, that one monitor only, which the caller has locked (its labels changed).
 */
export async function refreshMaintenance (tx: Database, orgId: string, now: Date, monitorId?: string): Promise<string[]> {
  if (monitorId === undefined) await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`maintenance:${orgId}`}))`)
  const at = sql`${now.toISOString()}::timestamptz`
  const rows = rowsOf<{ id: string }>(await tx.execute(sql`
    with wanted as (
      select m.id, m.in_maintenance as was, w.id as window_id, coalesce(w.mode = 'pause', false) as paused
      from ${monitors} m left join ${maintenanceWindows} w on w.id = maintenance_window_of(m.org_id, m.id, m.labels)
      where m.org_id = ${orgId} and m.deleted_at is null${monitorId === undefined ? sql`` : sql` and m.id = ${monitorId}`}
    ), changed as (
      update ${monitors} m set in_maintenance = t.window_id is not null, maintenance_paused = t.paused,
        next_check_at = case
          when not m.is_active then m.next_check_at
          when t.paused and not m.maintenance_paused then null
          when m.maintenance_paused and not t.paused then case when m.monitor_type = 'heartbeat'
            then ${at} + (m.interval_minutes + coalesce(m.grace_minutes, 0)) * interval '1 minute' else ${at} end
          else m.next_check_at end,
        -- Its locations were silent because nothing checked: no coverage was lost, it is decided afresh.
        location_coverage = case when m.maintenance_paused and not t.paused then 'pending' else m.location_coverage end
      from wanted t
      where m.id = t.id and (m.in_maintenance <> (t.window_id is not null) or m.maintenance_paused <> t.paused)
      returning m.id, t.was, t.window_id
    ), entered as (
      insert into ${monitorMaintenance} (monitor_id, window_id, started_at)
      select id, window_id, ${at} from changed where not was and window_id is not null
      on conflict do nothing
    ), ended as (
      update ${monitorMaintenance} mm set ended_at = greatest(mm.started_at, ${at})
      from changed c where mm.monitor_id = c.id and c.was and c.window_id is null and mm.ended_at is null
    )
    select id from changed where was and window_id is null`))
  return rows.map((row) => row.id)
}

/** The open incidents of these monitors that opened in maintenance and were told to no one yet, with their monitors, locked. */
export async function untoldOpenings (tx: Database, monitorIds: string[]): Promise<Array<{ incident: IncidentRow, monitor: MonitorRow }>> {
  if (monitorIds.length === 0) return []
  return tx.select({ incident: incidents, monitor: monitors }).from(incidents)
    .innerJoin(monitors, eq(monitors.id, incidents.monitorId))
    .where(and(
      inArray(incidents.monitorId, monitorIds), eq(incidents.status, 'open'), eq(incidents.duringMaintenance, true),
      isNull(incidents.openingToldAt), isNull(incidents.suppressedBy)
    ))
    .for('update', { of: incidents })
}

export async function markOpeningTold (tx: Database, id: string, at: Date): Promise<IncidentRow> {
  const [row] = await tx.update(incidents).set({ openingToldAt: at }).where(eq(incidents.id, id)).returning()
  return row
}
