// The channels a monitor opted into: read by the monitor's record and by the events that carry it.
import { eq } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { monitorNotificationChannels } from '../db/schema.ts'

/** The ids of the channels a monitor opted into (its field `notification_channel_ids`), in id order like every read. */
export async function monitorChannelIds (db: Database, monitorId: string): Promise<string[]> {
  const rows = await db.select({ id: monitorNotificationChannels.channelId }).from(monitorNotificationChannels)
    .where(eq(monitorNotificationChannels.monitorId, monitorId))
    .orderBy(monitorNotificationChannels.channelId)
  return rows.map((row) => row.id)
}
