// The rows of an incident as the people who answer it see them: one of the organization's, its acknowledgement,
// its notes, and the deliveries that told of it.
import { and, asc, eq, gt, isNull, lt, or } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import type { AuditActor } from '../domain/audit.ts'
import { incidentNotes, incidents, monitorMaintenance, monitors, notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { DeliveryStatus, NotificationEventType } from '../domain/vocabulary.ts'
import type { IncidentRow } from '../repositories/incidents.ts'
import type { MonitorRow } from '../monitors/repository.ts'

export type NoteRow = typeof incidentNotes.$inferSelect

/** The organization's incident (of a live monitor) and its monitor; with `lock`, the incident locked in the caller's transaction. */
export async function findIncident (
  db: Database, orgId: string, id: string, lock?: 'lock'
): Promise<{ incident: IncidentRow, monitor: MonitorRow } | undefined> {
  const query = db.select({ incident: incidents, monitor: monitors }).from(incidents)
    .innerJoin(monitors, eq(monitors.id, incidents.monitorId))
    .where(and(eq(incidents.id, id), eq(monitors.orgId, orgId), isNull(monitors.deletedAt)))
  const [row] = lock ? await query.for('update', { of: incidents }) : await query
  return row
}

/** The incident a link names, with its monitor and the name of the channel the link went to, if both are of one organization. */
export async function findLinkedIncident (
  db: Database, incidentId: string, channelId: string
): Promise<{ incident: IncidentRow, monitor: MonitorRow, channelName: string } | undefined> {
  const [row] = await db.select({ incident: incidents, monitor: monitors, channelName: notificationChannels.name }).from(incidents)
    .innerJoin(monitors, and(eq(monitors.id, incidents.monitorId), isNull(monitors.deletedAt)))
    .innerJoin(notificationChannels, and(eq(notificationChannels.id, channelId), eq(notificationChannels.orgId, monitors.orgId)))
    .where(eq(incidents.id, incidentId))
  return row
}

export async function setAcknowledged (tx: Database, id: string, at: Date, actor: AuditActor): Promise<IncidentRow> {
  const [row] = await tx.update(incidents).set({ acknowledgedAt: at, acknowledgedBy: actor }).where(eq(incidents.id, id)).returning()
  return row
}

export async function insertNote (tx: Database, note: Omit<NoteRow, 'id'>): Promise<NoteRow> {
  const [row] = await tx.insert(incidentNotes).values(note).returning()
  return row
}

export async function notesOf (db: Database, incidentId: string): Promise<NoteRow[]> {
  return db.select().from(incidentNotes).where(eq(incidentNotes.incidentId, incidentId)).orderBy(asc(incidentNotes.createdAt), asc(incidentNotes.id))
}

export interface IncidentDelivery {
  id: string
  channelId: string
  channelName: string
  eventType: NotificationEventType
  status: DeliveryStatus
  createdAt: Date
  deliveredAt: Date | null
}

/** Every delivery of an event about the incident, oldest first. */
export async function deliveriesOf (db: Database, incidentId: string): Promise<IncidentDelivery[]> {
  return db.select({
    id: notificationDeliveries.id,
    channelId: notificationDeliveries.channelId,
    channelName: notificationChannels.name,
    eventType: notificationEvents.type,
    status: notificationDeliveries.status,
    createdAt: notificationDeliveries.createdAt,
    deliveredAt: notificationDeliveries.deliveredAt,
  }).from(notificationEvents)
    .innerJoin(notificationDeliveries, eq(notificationDeliveries.eventId, notificationEvents.id))
    .innerJoin(notificationChannels, eq(notificationChannels.id, notificationDeliveries.channelId))
    .where(eq(notificationEvents.incidentId, incidentId))
    .orderBy(asc(notificationDeliveries.createdAt), asc(notificationDeliveries.id))
}

export type MaintenanceStay = typeof monitorMaintenance.$inferSelect

/** The stays of the incident's monitor in maintenance that overlap the incident, oldest first. */
export async function maintenanceStaysOf (db: Database, incident: IncidentRow): Promise<MaintenanceStay[]> {
  return db.select().from(monitorMaintenance)
    .where(and(
      eq(monitorMaintenance.monitorId, incident.monitorId),
      incident.resolvedAt === null ? undefined : lt(monitorMaintenance.startedAt, incident.resolvedAt),
      or(isNull(monitorMaintenance.endedAt), gt(monitorMaintenance.endedAt, incident.startedAt))
    ))
    .orderBy(asc(monitorMaintenance.startedAt))
}
