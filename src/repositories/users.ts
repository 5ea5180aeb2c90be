// User data access: create, find by email, and the first user of an empty database.
import { eq } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { users } from '../db/schema.ts'

export type User = typeof users.$inferSelect

export class DuplicateUserError extends Error {}

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
