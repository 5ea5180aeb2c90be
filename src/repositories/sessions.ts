// Dashboard sessions: create, look up by token hash (with the user), touch, end.
import { and, eq, gt, lt } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { sessions, users } from '../db/schema.ts'

export interface SessionRecord {
  id: string
  userId: string
  email: string
  csrfToken: string
  expiresAt: Date
  lastSeenAt: Date
}

export async function createSession (
  db: Database, input: { id: string, userId: string, csrfToken: string, now: Date, expiresAt: Date }
): Promise<void> {
  await db.insert(sessions).values({
    id: input.id,
    userId: input.userId,
    csrfToken: input.csrfToken,
    createdAt: input.now,
    lastSeenAt: input.now,
    expiresAt: input.expiresAt,
  })
}

/** The live session with this id (hash of the cookie's token) and its user's email; undefined when expired or ended. */
export async function findSession (db: Database, id: string, now: Date): Promise<SessionRecord | undefined> {
  const [row] = await db.select({
    id: sessions.id,
    userId: sessions.userId,
    email: users.email,
    csrfToken: sessions.csrfToken,
    expiresAt: sessions.expiresAt,
    lastSeenAt: sessions.lastSeenAt,
  }).from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, now)))
  return row
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
