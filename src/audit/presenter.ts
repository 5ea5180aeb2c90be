// The API's shape of an audit event, and the opaque cursor that names a page's end.
import type { AuditEventRow, AuditPosition } from './repository.ts'

export const presentAuditEvent = (row: AuditEventRow) => ({
  id: row.id,
  occurred_at: row.occurredAt.toISOString(),
  actor: { type: row.actorType, id: row.actorId, label: row.actorLabel },
  action: row.action,
  entity_type: row.entityType,
  entity_id: row.entityId,
  changes: row.changes,
  request_id: row.requestId,
  ip: row.ip,
})

export const auditCursor = (position: AuditPosition): string =>
  Buffer.from(`${position.occurredAt.getTime()}/${position.id}`).toString('base64url')

/** The position a cursor names; undefined when it is not one this server made. */
export function auditPosition (cursor: string): AuditPosition | undefined {
  const match = /^(\d{1,15})\/([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString())
  return match ? { occurredAt: new Date(Number(match[1])), id: match[2] } : undefined
}
