// Who asks for a change, as the audit log records it: each edge (API, dashboard, CLI) says it; services pass it on.
import type { AuditActorType } from './vocabulary.ts'

export interface AuditActor { type: AuditActorType, id: string | null, label: string }

/** The actor, and the request the change came in (null outside one: the CLI). */
export interface AuditContext { actor: AuditActor, requestId: string | null, ip: string | null }

/** The server itself as the actor, `label` saying which part (`cli`). */
export const systemAudit = (label: string): AuditContext => ({ actor: { type: 'system', id: null, label }, requestId: null, ip: null })
