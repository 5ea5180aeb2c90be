// Dashboard sessions: create, look up by token hash (with the user and the organization shown), touch, end.
import { and, eq, gt, lt, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { memberships, organizations, sessions, users } from '../db/schema.ts'
import type { Role } from '../domain/vocabulary.ts'

export interface SessionRecord {
  id: string
  userId: string
  email: string
  /** The organization the dashboard shows, of which the user is a member, and the user's role there. */
  orgId: string
  role: Role
  /** Every organization of the user, by name, for the switcher. */
  organizations: Array<{ id: string, name: string }>
  csrfToken: string
  expiresAt: Date
  lastSeenAt: Date
}

export async function createSession (
  db: Database, input: { id: string, userId: string, orgId?: string, csrfToken: string, now: Date, expiresAt: Date }
): Promise<void> {
  await db.insert(sessions).values({
    id: input.id,
    userId: input.userId,
    orgId: input.orgId ?? null,
    csrfToken: input.csrfToken,
    createdAt: input.now,
    lastSeenAt: input.now,
    expiresAt: input.expiresAt,
  })
}

// The session's organization while the user is a member of it, else the user's personal one. Written out:
// drizzle leaves a column in sql`` unqualified, which a subquery would misread.
const shownOrganization = sql`coalesce(
  (select sm.org_id from ${memberships} sm where sm.user_id = sessions.user_id and sm.org_id = sessions.org_id),
  (select po.id from ${organizations} po where po.personal_user_id = sessions.user_id))`

/**
 * The live session with this id (hash of the cookie's token), its user's email and the organization it shows;
 * undefined when expired or ended.
 */
export async function findSession (db: Database, id: string, now: Date): Promise<SessionRecord | undefined> {
  const [row] = await db.select({
    id: sessions.id,
    userId: sessions.userId,
    email: users.email,
    orgId: memberships.orgId,
    role: memberships.role,
    csrfToken: sessions.csrfToken,
    expiresAt: sessions.expiresAt,
    lastSeenAt: sessions.lastSeenAt,
    organizations: sql<string>`(select json_agg(json_build_object('id', uo.id, 'name', uo.name) order by uo.name, uo.id)::text
      from ${memberships} um join ${organizations} uo on uo.id = um.org_id where um.user_id = sessions.user_id)`,
  }).from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(memberships, and(eq(memberships.userId, sessions.userId), eq(memberships.orgId, shownOrganization)))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, now)))
  return row && { ...row, organizations: JSON.parse(row.organizations) }
}

/** Makes the session show this organization; false when the user is not a member of it. */
export async function switchSessionOrganization (db: Database, id: string, orgId: string): Promise<boolean> {
  const rows = await db.update(sessions).set({ orgId })
    .where(and(eq(sessions.id, id), sql`exists (select 1 from ${memberships} sm where sm.user_id = sessions.user_id and sm.org_id = ${orgId})`))
    .returning({ id: sessions.id })
  return rows.length > 0
}

export async function touchSession (db: Database, id: string, now: Date): Promise<void> {
  await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id))
}

export async function deleteSession (db: Database, id: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, id))
}

/** Ends every session of the user (a new password signs everyone out). */
export async function deleteSessionsOfUser (db: Database, userId: string): Promise<number> {
  const rows = await db.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id })
  return rows.length
}

/** Removes expired sessions; called on sign-in. */
export async function deleteExpiredSessions (db: Database, now: Date): Promise<number> {
  const rows = await db.delete(sessions).where(lt(sessions.expiresAt, now)).returning({ id: sessions.id })
  return rows.length
}
