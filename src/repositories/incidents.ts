// Incidents of both kinds (down, degraded): list, open, resolve the open one.
import { and, desc, eq, isNull, lt, sql } from 'drizzle-orm'
import type { Database, Queryable } from '../db/client.ts'
import type { IncidentKind } from '../domain/vocabulary.ts'
import { incidents, monitors } from '../db/schema.ts'
import type { Incident } from '../schemas/incident.ts'

export type IncidentRow = typeof incidents.$inferSelect

/** The API's record of an incident row. */
export function toIncident (row: IncidentRow): Incident {
  return {
    id: row.id,
    monitor_id: row.monitorId,
    status: row.status,
    kind: row.kind,
    cause: row.cause,
    status_code: row.statusCode,
    started_at: row.startedAt.toISOString(),
    resolved_at: row.resolvedAt?.toISOString() ?? null,
    duration_seconds: row.resolvedAt ? Math.round((row.resolvedAt.getTime() - row.startedAt.getTime()) / 1000) : null,
    acknowledged_at: row.acknowledgedAt?.toISOString() ?? null,
    acknowledged_by: row.acknowledgedBy,
    during_maintenance: row.duringMaintenance,
    suppressed_by: row.suppressedBy,
  }
}

export async function listIncidents (
  db: Database, monitorId: string, page: { limit?: number, before?: string }
): Promise<Incident[]> {
  const query = db.select().from(incidents)
    .where(and(eq(incidents.monitorId, monitorId), page.before ? lt(incidents.startedAt, new Date(page.before)) : undefined))
    .orderBy(desc(incidents.startedAt), desc(incidents.id))
  const rows = page.limit ? await query.limit(page.limit) : await query
  return rows.map(toIncident)
}

/**
 * Opens an incident of `kind` unless one of either kind is open already; returns the new one. A down incident while a
 * monitor it depends on is down is suppressed by that one's incident, and one of a monitor in maintenance is marked
 * `during_maintenance`, in the same statement.
 */
export async function openIncident (
  db: Queryable, monitorId: string, values: { kind?: IncidentKind, cause: string, statusCode: number | null, startedAt: Date }
): Promise<IncidentRow | undefined> {
  const suppressedBy = (values.kind ?? 'down') === 'down'
    ? sql`(select i.id from ${monitors} child
        join ${monitors} parent on parent.id = any(child.depends_on) and parent.deleted_at is null
        join ${incidents} i on i.monitor_id = parent.id and i.status = 'open' and i.kind = 'down'
        where child.id = ${monitorId} order by i.started_at limit 1)`
    : null
  const duringMaintenance = sql`(select in_maintenance from ${monitors} where id = ${monitorId})`
  const [row] = await db.insert(incidents).values({ monitorId, ...values, suppressedBy, duringMaintenance }).onConflictDoNothing().returning()
  return row
}

/**
 * How many live monitors that depend on this one are down, or failing towards it (their failure threshold not yet
 * reached: the same outage, seen a check earlier): a parent's notification says it.
 */
export async function dependentsDown (db: Database, orgId: string, monitorId: string): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(monitors)
    .where(and(eq(monitors.orgId, orgId), isNull(monitors.deletedAt), sql`${monitors.dependsOn} @> array[${monitorId}::uuid]`,
      sql`(${monitors.status} = 'down' or ${monitors.consecutiveFailures} > 0)`))
  return Number(row.count)
}

/** Resolves the monitor's open incident and returns it; with `kind`, only one of that kind (a check's outcome). */
export async function resolveOpenIncident (db: Queryable, monitorId: string, at: Date, kind?: IncidentKind): Promise<IncidentRow | undefined> {
  const [row] = await db.update(incidents)
    .set({ status: 'resolved', resolvedAt: at })
    .where(and(eq(incidents.monitorId, monitorId), eq(incidents.status, 'open'), kind ? eq(incidents.kind, kind) : undefined))
    .returning()
  return row
}
