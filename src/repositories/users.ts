// Users: accounts, dashboard passwords, and the operator's list and delete.
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

/** Creates the user only when there is none at all; the unique email stops two processes starting together. */
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

/** Sets the password only while the user has none, so two tabs with one setup link cannot both choose it. */
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

interface UserSummary {
  id: string
  email: string
  createdAt: Date
  hasPassword: boolean
  /** Expired keys included: they are still listed and deletable. */
  keys: number
  monitors: number
}

/** Every user, oldest first, with counts of keys and monitors. */
export async function listUsers (db: Database): Promise<UserSummary[]> {
  return db.select({
    id: users.id,
    email: users.email,
    createdAt: users.createdAt,
    hasPassword: sql<boolean>`${users.passwordHash} is not null`,
    // Written out: drizzle leaves a column in sql`` unqualified, which a subquery would misread.
    keys: sql<number>`(select count(*)::int from api_keys k where k.user_id = users.id)`,
    monitors: sql<number>`(select count(*)::int from monitors m join organizations po on po.id = m.org_id where po.personal_user_id = users.id and m.deleted_at is null)`,
  }).from(users).orderBy(asc(users.createdAt), asc(users.email))
}

/** Deletes the user and, by cascade, everything of theirs; false when there is no such user. */
export async function deleteUserByEmail (db: Database, email: string): Promise<boolean> {
  const rows = await db.delete(users).where(eq(users.email, email.trim().toLowerCase())).returning({ id: users.id })
  return rows.length > 0
}
