// Audit events, rows only: written in a change's transaction, read newest first, pruned past retention.
import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { auditEvents } from '../db/schema.ts'
import type { AuditAction, AuditEntityType } from '../domain/vocabulary.ts'

export type AuditEventRow = typeof auditEvents.$inferSelect
export type NewAuditEvent = Omit<AuditEventRow, 'id'>

export async function insertAuditEvent (tx: Database, event: NewAuditEvent): Promise<void> {
  await tx.insert(auditEvents).values(event)
}

export interface AuditFilters { action?: AuditAction, entityType?: AuditEntityType, entityId?: string, actorId?: string }
/** The position of the last event of a page: the next holds the events strictly older. */
export interface AuditPosition { occurredAt: Date, id: string }

/** Up to `limit` of the organization's events newest first, after `from`; `next` when more follow. */
export async function listAuditEvents (
  db: Database, orgId: string, filters: AuditFilters, page: { limit: number, from?: AuditPosition }
): Promise<{ events: AuditEventRow[], next?: AuditPosition }> {
  const from = page.from
  const conditions: Array<SQL | undefined> = [
    eq(auditEvents.orgId, orgId),
    filters.action === undefined ? undefined : eq(auditEvents.action, filters.action),
    filters.entityType === undefined ? undefined : eq(auditEvents.entityType, filters.entityType),
    filters.entityId === undefined ? undefined : eq(auditEvents.entityId, filters.entityId),
    filters.actorId === undefined ? undefined : eq(auditEvents.actorId, filters.actorId),
    from && or(lt(auditEvents.occurredAt, from.occurredAt), and(eq(auditEvents.occurredAt, from.occurredAt), lt(auditEvents.id, from.id))),
  ]
  const rows = await db.select().from(auditEvents).where(and(...conditions))
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id)).limit(page.limit + 1)
  if (rows.length <= page.limit) return { events: rows }
  const events = rows.slice(0, page.limit)
  const last = events[events.length - 1]
  return { events, next: { occurredAt: last.occurredAt, id: last.id } }
}

/** Deletes the events that occurred before `cutoff`; how many. */
export async function pruneAuditEvents (db: Database, cutoff: Date): Promise<number> {
  const deleted = await db.delete(auditEvents).where(lt(auditEvents.occurredAt, cutoff)).returning({ id: auditEvents.id })
  return deleted.length
}
