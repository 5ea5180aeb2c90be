// The caller's notification channels; records leave here with their secrets masked.
import { and, desc, eq, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { notificationChannels } from '../db/schema.ts'
import type { ChannelType, NotificationEventType } from '../domain/vocabulary.ts'
import { maskConfig, type NotificationChannel } from '../schemas/notification-channel.ts'

export type ChannelRow = typeof notificationChannels.$inferSelect

/** The API's record of a channel row: secrets masked, no signing secret. */
export function toChannel (row: ChannelRow): NotificationChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: maskConfig(row.type, row.config) as NotificationChannel['config'],
    events: row.events,
    all_monitors: row.allMonitors,
    is_active: row.isActive,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

const owned = (userId: string, id: string) => and(eq(notificationChannels.id, id), eq(notificationChannels.userId, userId))

/** The user's channels, newest created first. */
export async function listChannels (db: Database, userId: string): Promise<NotificationChannel[]> {
  const rows = await db.select().from(notificationChannels)
    .where(eq(notificationChannels.userId, userId))
    .orderBy(desc(notificationChannels.createdAt), desc(notificationChannels.id))
  return rows.map(toChannel)
}

/** The user's channel row; locked until the end of the transaction with `forUpdate`. */
export async function findChannelRow (db: Database, userId: string, id: string, forUpdate = false): Promise<ChannelRow | undefined> {
  const query = db.select().from(notificationChannels).where(owned(userId, id))
  const [row] = forUpdate ? await query.for('update') : await query
  return row
}

export interface NewChannelRow {
  name: string
  type: ChannelType
  config: Record<string, unknown>
  events: NotificationEventType[]
  allMonitors: boolean
  isActive: boolean
  /** A webhook's signing secret; null for the other types. */
  secret: string | null
}

export async function insertChannel (db: Database, userId: string, values: NewChannelRow, now: Date): Promise<ChannelRow> {
  const [row] = await db.insert(notificationChannels).values({ userId, ...values, createdAt: now, updatedAt: now }).returning()
  return row
}

export type ChannelChanges = Partial<Pick<ChannelRow, 'name' | 'config' | 'events' | 'allMonitors' | 'isActive' | 'disabledReason'>>

export async function updateChannelRow (db: Database, id: string, changes: ChannelChanges, now: Date): Promise<ChannelRow> {
  const [row] = await db.update(notificationChannels).set({ ...changes, updatedAt: now }).where(eq(notificationChannels.id, id)).returning()
  return row
}

/** Deletes the channel and, by cascade, its deliveries and opt-ins; false when there was none. */
export async function deleteChannel (db: Database, userId: string, id: string): Promise<boolean> {
  const deleted = await db.delete(notificationChannels).where(owned(userId, id)).returning({ id: notificationChannels.id })
  return deleted.length > 0
}

/**
 * Makes `secret` the signing secret and keeps the old one until `previousUntil`, in one statement so two
 * rotations at once cannot both keep the same old secret. Undefined when the user has no such channel.
 */
export async function replaceSecret (
  db: Database, userId: string, id: string, secret: string, previousUntil: Date, now: Date
): Promise<ChannelRow | undefined> {
  const [row] = await db.update(notificationChannels)
    .set({
      secret,
      previousSecret: sql`${notificationChannels.secret}`,
      previousSecretUntil: previousUntil,
      updatedAt: now,
    })
    .where(and(owned(userId, id), eq(notificationChannels.type, 'webhook')))
    .returning()
  return row
}
