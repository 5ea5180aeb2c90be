// The notification API's rows: the caller's channels and their deliveries; the worker's side is
// src/repositories/delivery-queue.ts. Rows in, rows out: the rules are the service's, the API shape the presenter's.
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { ChannelEventType, ChannelType, DeliveryStatus, NotificationEventType } from '../domain/vocabulary.ts'

export type ChannelRow = typeof notificationChannels.$inferSelect

const owned = (orgId: string, id: string) => and(eq(notificationChannels.id, id), eq(notificationChannels.orgId, orgId))

/** The user's channels, newest created first. */
export async function listChannels (db: Database, orgId: string): Promise<ChannelRow[]> {
  return db.select().from(notificationChannels)
    .where(eq(notificationChannels.orgId, orgId))
    .orderBy(desc(notificationChannels.createdAt), desc(notificationChannels.id))
}

/** The user's channel row; locked until the end of the transaction with `forUpdate`. */
export async function findChannelRow (db: Database, orgId: string, id: string, forUpdate = false): Promise<ChannelRow | undefined> {
  const query = db.select().from(notificationChannels).where(owned(orgId, id))
  const [row] = forUpdate ? await query.for('update') : await query
  return row
}

export interface NewChannelRow {
  name: string
  type: ChannelType
  config: Record<string, unknown>
  events: ChannelEventType[]
  allMonitors: boolean
  isActive: boolean
  reminderMinutes: number | null
  /** A webhook's signing secret; null for the other types. */
  secret: string | null
}

export async function insertChannel (db: Database, orgId: string, values: NewChannelRow, now: Date): Promise<ChannelRow> {
  const [row] = await db.insert(notificationChannels).values({ orgId, ...values, createdAt: now, updatedAt: now }).returning()
  return row
}

export type ChannelChanges = Partial<Pick<ChannelRow, 'name' | 'config' | 'events' | 'allMonitors' | 'isActive' | 'reminderMinutes' | 'disabledReason'>>

export async function updateChannelRow (db: Database, id: string, changes: ChannelChanges, now: Date): Promise<ChannelRow> {
  const [row] = await db.update(notificationChannels).set({ ...changes, updatedAt: now }).where(eq(notificationChannels.id, id)).returning()
  return row
}

/** Deletes the channel and, by cascade, its deliveries and opt-ins; false when there was none. */
/** Deletes the organization's channel; the row it was, or undefined when there was none. */
export async function deleteChannelRow (db: Database, orgId: string, id: string): Promise<ChannelRow | undefined> {
  const [deleted] = await db.delete(notificationChannels).where(owned(orgId, id)).returning()
  return deleted
}

/**
 * Makes `secret` the signing secret and keeps the old one until `previousUntil`, in one statement so two
 * rotations at once cannot both keep the same old secret. Undefined when the organization has no such channel.
 */
export async function replaceSecret (
  db: Database, orgId: string, id: string, secret: string, previousUntil: Date, now: Date
): Promise<ChannelRow | undefined> {
  const [row] = await db.update(notificationChannels)
    .set({
      secret,
      previousSecret: sql`${notificationChannels.secret}`,
      previousSecretUntil: previousUntil,
      updatedAt: now,
    })
    .where(and(owned(orgId, id), eq(notificationChannels.type, 'webhook')))
    .returning()
  return row
}

const d = notificationDeliveries

const listColumns = {
  id: d.id,
  channelId: d.channelId,
  eventId: d.eventId,
  eventType: notificationEvents.type,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt,
}
const detailColumns = { ...listColumns, attemptLog: d.attemptLog }

export type DeliveryRow = Omit<typeof notificationDeliveries.$inferSelect, 'leaseUntil' | 'attemptLog' | 'monitorId'> & { eventType: NotificationEventType }
export type DeliveryDetailRow = DeliveryRow & Pick<typeof notificationDeliveries.$inferSelect, 'attemptLog'>

const withEvent = eq(notificationEvents.id, d.eventId)
const withChannel = eq(notificationChannels.id, d.channelId)

export interface DeliveryPage {
  deliveries: DeliveryRow[]
  /** The `before` of the next page when more deliveries follow; undefined on the last page. */
  nextBefore?: string
}

/**
 * A page of the channel's deliveries, newest first; undefined when the organization has no such channel. A page never
 * ends inside a millisecond shared by several deliveries, so paging by time skips none.
 */
export async function listChannelDeliveries (
  db: Database, orgId: string, channelId: string, query: { status?: DeliveryStatus, limit: number, before?: string }
): Promise<DeliveryPage | undefined> {
  const [channel] = await db.select({ id: notificationChannels.id }).from(notificationChannels)
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.orgId, orgId)))
  if (!channel) return undefined
  const rows = await db.select(listColumns).from(d).innerJoin(notificationEvents, withEvent)
    .where(and(
      eq(d.channelId, channelId),
      query.status ? eq(d.status, query.status) : undefined,
      query.before ? lt(d.createdAt, new Date(query.before)) : undefined
    ))
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(query.limit + 1)
  if (rows.length <= query.limit) return { deliveries: rows }
  const boundary = rows[query.limit].createdAt.getTime()
  const whole = rows.slice(0, query.limit).filter((row) => row.createdAt.getTime() > boundary)
  const page = whole.length > 0 ? whole : rows.slice(0, query.limit)
  return { deliveries: page, nextBefore: page[page.length - 1].createdAt.toISOString() }
}

/** The user's delivery with its attempts, or undefined. */
export async function findDelivery (db: Database, orgId: string, id: string): Promise<DeliveryDetailRow | undefined> {
  const [row] = await db.select(detailColumns).from(d)
    .innerJoin(notificationEvents, withEvent).innerJoin(notificationChannels, withChannel)
    .where(and(eq(d.id, id), eq(notificationChannels.orgId, orgId)))
  return row
}

/** Makes the organization's delivery due now, whatever its status (a delivered one is replayed), keeping its attempt log. */
export async function retryDelivery (db: Database, orgId: string, id: string, now: Date): Promise<DeliveryDetailRow | undefined> {
  const [updated] = await db.update(d)
    .set({ status: 'pending', nextAttemptAt: now })
    .where(and(eq(d.id, id), sql`${d.channelId} in (select id from ${notificationChannels} where org_id = ${orgId})`))
    .returning({ id: d.id })
  return updated && findDelivery(db, orgId, updated.id)
}

/** The id of the delivery of an event to a channel. */
export async function deliveryIdOf (db: Database, channelId: string, eventId: string): Promise<string | undefined> {
  const [row] = await db.select({ id: d.id }).from(d).where(and(eq(d.channelId, channelId), eq(d.eventId, eventId)))
  return row?.id
}

/** Each of these deliveries' attempts, oldest first, by delivery id; only deliveries of the organization's channels. */
export async function attemptLogs (db: Database, orgId: string, ids: string[]): Promise<Map<string, DeliveryDetailRow['attemptLog']>> {
  if (ids.length === 0) return new Map()
  const rows = await db.select({ id: d.id, attemptLog: d.attemptLog }).from(d)
    .innerJoin(notificationChannels, eq(notificationChannels.id, d.channelId))
    .where(and(inArray(d.id, ids), eq(notificationChannels.orgId, orgId)))
  return new Map(rows.map((row) => [row.id, row.attemptLog]))
}
