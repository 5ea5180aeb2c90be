// The attempt logs of a page of deliveries in one query, for the dashboard's delivery log.
import { and, eq, inArray } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { notificationChannels, notificationDeliveries } from '../db/schema.ts'
import type { DeliveryDetail } from '../schemas/delivery.ts'

/** Each of these deliveries' attempts, oldest first, by delivery id; only deliveries of the user's channels. */
export async function attemptLogs (db: Database, userId: string, ids: string[]): Promise<Map<string, DeliveryDetail['attempt_log']>> {
  if (ids.length === 0) return new Map()
  const d = notificationDeliveries
  const rows = await db.select({ id: d.id, attemptLog: d.attemptLog }).from(d)
    .innerJoin(notificationChannels, eq(notificationChannels.id, d.channelId))
    .where(and(inArray(d.id, ids), eq(notificationChannels.userId, userId)))
  return new Map(rows.map((row) => [row.id, row.attemptLog]))
}
