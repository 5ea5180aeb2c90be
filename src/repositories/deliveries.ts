// Delivery reads and the retry for the API, scoped to the channel's owner; the worker's side is delivery-queue.ts.
import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { DeliveryStatus } from '../domain/vocabulary.ts'
import type { Delivery, DeliveryDetail } from '../schemas/delivery.ts'

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

type DeliveryRow = Omit<typeof notificationDeliveries.$inferSelect, 'leaseUntil' | 'attemptLog' | 'monitorId'> & { eventType: Delivery['event_type'] }

function toDelivery (row: DeliveryRow): Delivery {
  return {
    id: row.id,
    channel_id: row.channelId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
  }
}

const toDetail = (row: DeliveryRow & { attemptLog: DeliveryDetail['attempt_log'] }): DeliveryDetail =>
  ({ ...toDelivery(row), attempt_log: row.attemptLog })

const withEvent = eq(notificationEvents.id, d.eventId)
const withChannel = eq(notificationChannels.id, d.channelId)

export interface DeliveryPage {
  deliveries: Delivery[]
  /** The `before` of the next page when more deliveries follow; undefined on the last page. */
  nextBefore?: string
}

/**
 * A page of the channel's deliveries, newest first; undefined when the user has no such channel. A page never
 * ends inside a millisecond shared by several deliveries, so paging by time skips none.
 */
export async function listChannelDeliveries (
  db: Database, userId: string, channelId: string, query: { status?: DeliveryStatus, limit: number, before?: string }
): Promise<DeliveryPage | undefined> {
  const [channel] = await db.select({ id: notificationChannels.id }).from(notificationChannels)
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.userId, userId)))
  if (!channel) return undefined
  const rows = await db.select(listColumns).from(d).innerJoin(notificationEvents, withEvent)
    .where(and(
      eq(d.channelId, channelId),
      query.status ? eq(d.status, query.status) : undefined,
      query.before ? lt(d.createdAt, new Date(query.before)) : undefined
    ))
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(query.limit + 1)
  if (rows.length <= query.limit) return { deliveries: rows.map(toDelivery) }
  const boundary = rows[query.limit].createdAt.getTime()
  const whole = rows.slice(0, query.limit).filter((row) => row.createdAt.getTime() > boundary)
  const page = whole.length > 0 ? whole : rows.slice(0, query.limit)
  return { deliveries: page.map(toDelivery), nextBefore: page[page.length - 1].createdAt.toISOString() }
}

/** The user's delivery with its attempts, or undefined. */
export async function findDelivery (db: Database, userId: string, id: string): Promise<DeliveryDetail | undefined> {
  const [row] = await db.select(detailColumns).from(d)
    .innerJoin(notificationEvents, withEvent).innerJoin(notificationChannels, withChannel)
    .where(and(eq(d.id, id), eq(notificationChannels.userId, userId)))
  return row && toDetail(row)
}

/** Makes the user's delivery due now, whatever its status (a delivered one is replayed), keeping its attempt log. */
export async function retryDelivery (db: Database, userId: string, id: string, now: Date): Promise<DeliveryDetail | undefined> {
  const [updated] = await db.update(d)
    .set({ status: 'pending', nextAttemptAt: now })
    .where(and(eq(d.id, id), sql`${d.channelId} in (select id from ${notificationChannels} where user_id = ${userId})`))
    .returning({ id: d.id })
  return updated && findDelivery(db, userId, updated.id)
}

/** The id of the delivery of an event to a channel. */
export async function deliveryIdOf (db: Database, channelId: string, eventId: string): Promise<string | undefined> {
  const [row] = await db.select({ id: d.id }).from(d).where(and(eq(d.channelId, channelId), eq(d.eventId, eventId)))
  return row?.id
}
