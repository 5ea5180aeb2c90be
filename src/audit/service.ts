// The audit log's one writer: an event for each change, in the change's own transaction, so a change that commits
// has its event and one that rolls back has none. Values are compared as the API shows them, so secrets stay masked.
import { isDeepStrictEqual } from 'node:util'
import type { Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { entityTypeOf, type AuditAction } from '../domain/vocabulary.ts'
import { insertAuditEvent, type NewAuditEvent } from './repository.ts'

type Shown = Record<string, unknown>

export interface Change {
  orgId: string
  action: AuditAction
  entityId: string
  /** The entity as the API shows it before and after; null before a creation and after a deletion. */
  before: Shown | null
  after: Shown | null
  /** The fields compared: what a caller can set, not what the server keeps up to date. */
  fields: readonly string[]
  at: Date
}

/** `{field: [before, after]}` for each of `fields` that differs; a missing side is null. */
function fieldChanges (before: Shown | null, after: Shown | null, fields: readonly string[]): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {}
  for (const field of fields) {
    const [was, is] = [before?.[field] ?? null, after?.[field] ?? null]
    if (!isDeepStrictEqual(was, is)) changes[field] = [was, is]
  }
  return changes
}

export async function recordChange (tx: Database, audit: AuditContext, change: Change): Promise<void> {
  await insertAuditEvent(tx, auditEvent(audit, change))
}

/** The row of a change's event, for a statement that writes it with the change itself. */
export function auditEvent (audit: AuditContext, change: Change): NewAuditEvent {
  return {
    orgId: change.orgId,
    occurredAt: change.at,
    actorType: audit.actor.type,
    actorId: audit.actor.id,
    actorLabel: audit.actor.label,
    action: change.action,
    entityType: entityTypeOf(change.action),
    entityId: change.entityId,
    changes: fieldChanges(change.before, change.after, change.fields),
    requestId: audit.requestId,
    ip: audit.ip,
  }
}
