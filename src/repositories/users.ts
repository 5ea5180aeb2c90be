// User data access: create, find by email, the first user of an empty database, dashboard passwords, and the
// operator's list and delete.
import { ConflictError } from '../domain/errors.ts'
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { users } from '../db/schema.ts'

export type User = typeof users.$inferSelect

class DuplicateUserError extends ConflictError {}

export async function createUser (db: Database, email: string): Promise<User> {
  const [row] = await db.insert(users).values({ email: email.trim().toLowerCase() }).onConflictDoNothing().returning()
  if (!row) throw new DuplicateUserError(`A user with the email ${email} already exists`)
  return row
}

export async function findUserByEmail (db: Database, email: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()))
  return row
}

/**
 * Creates the user only when there is no user at all; undefined otherwise. Two processes starting
 * together on one empty database may both see none: the unique email lets only one insert.
 */
export async function createFirstUser (db: Database, email: string): Promise<User | undefined> {
  const existing = await db.select({ id: users.id }).from(users).limit(1)
  if (existing.length > 0) return undefined
  const [row] = await db.insert(users).values({ email: email.trim().toLowerCase() }).onConflictDoNothing().returning()
  return row
}

export async function findUserById (db: Database, id: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id))
  return row
}

/** Sets (or replaces) the user's password hash; false when there is no such user. */
export async function setPasswordHash (db: Database, userId: string, passwordHash: string): Promise<boolean> {
  const rows = await db.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning({ id: users.id })
  return rows.length > 0
}

/**
 * Sets the password only while the user has none (the one-time setup link): false when one was set
 * meanwhile, so two tabs with the same link cannot both choose it.
 */
export async function setFirstPasswordHash (db: Database, userId: string, passwordHash: string): Promise<boolean> {
  const rows = await db.update(users).set({ passwordHash })
    .where(and(eq(users.id, userId), isNull(users.passwordHash))).returning({ id: users.id })
  return rows.length > 0
}

/** True when at least one user can sign in to the dashboard. */
export async function anyUserHasPassword (db: Database): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).where(isNotNull(users.passwordHash)).limit(1)
  return rows.length > 0
}

/** A user as the operator's `users list` shows it. */
interface UserSummary {
  id: string
  email: string
  createdAt: Date
  hasPassword: boolean
  /** API keys, expired ones included (they are still listed and deletable). */
  keys: number
  /** Monitors not deleted. */
  monitors: number
}

/** Every user, oldest first, with counts of keys and monitors (one statement). */
export async function listUsers (db: Database): Promise<UserSummary[]> {
  return db.select({
    id: users.id,
    email: users.email,
    createdAt: users.createdAt,
    hasPassword: sql<boolean>`${users.passwordHash} is not null`,
    // Written out: drizzle leaves a column in sql`` unqualified, and in a subquery "id" would be the inner table's.
    keys: sql<number>`(select count(*)::int from api_keys k where k.user_id = users.id)`,
    monitors: sql<number>`(select count(*)::int from monitors m where m.user_id = users.id and m.deleted_at is null)`,
  }).from(users).orderBy(asc(users.createdAt), asc(users.email))
}

/**
 * Deletes the user and, by the tables' cascades, everything of theirs: keys (refused at once), sessions,
 * monitors with their checks and incidents, notification channels. False when there is no such user.
 */
export async function deleteUserByEmail (db: Database, email: string): Promise<boolean> {
  const rows = await db.delete(users).where(eq(users.email, email.trim().toLowerCase())).returning({ id: users.id })
  return rows.length > 0
}
