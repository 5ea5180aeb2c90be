// Which channels a monitor opted into: the monitor field `notification_channel_ids`.
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitorNotificationChannels, notificationChannels } from '../db/schema.ts'
import { InvalidInputError } from '../domain/errors.ts'

/** The ids of the channels a monitor opted into, in id order like every read. */
export async function monitorChannelIds (db: Database, monitorId: string): Promise<string[]> {
  const rows = await db.select({ id: monitorNotificationChannels.channelId }).from(monitorNotificationChannels)
    .where(eq(monitorNotificationChannels.monitorId, monitorId))
    .orderBy(monitorNotificationChannels.channelId)
  return rows.map((row) => row.id)
}

// monitorChannelIds for a select list, as JSON: postgres.js without fetched array types gives a uuid[] as text.
export const channelIdsColumn = (alias: string): string =>
  `coalesce((select json_agg(mc.channel_id order by mc.channel_id) from monitor_notification_channels mc where mc.monitor_id = ${alias}.id), '[]')`

/** Makes `channelIds` the monitor's opt-ins; InvalidInputError names the first that is not the user's channel. */
export async function setMonitorChannels (tx: Database, userId: string, monitorId: string, channelIds: string[]): Promise<void> {
  const wanted = [...new Set(channelIds)]
  await tx.delete(monitorNotificationChannels).where(and(
    eq(monitorNotificationChannels.monitorId, monitorId),
    wanted.length > 0 ? notInArray(monitorNotificationChannels.channelId, wanted) : undefined
  ))
  if (wanted.length === 0) return
  // Found and linked in one statement: a channel deleted meanwhile is not found, never a foreign-key failure.
  const found = rowsOf<{ id: string }>(await tx.execute(sql`
    with mine as (
      select id from ${notificationChannels} where user_id = ${userId} and ${inArray(notificationChannels.id, wanted)}
    ), linked as (
      insert into ${monitorNotificationChannels} (monitor_id, channel_id) select ${monitorId}, id from mine
      on conflict do nothing
    )
    select id from mine`))
  const mine = new Set(found.map((row) => row.id))
  const index = channelIds.findIndex((id) => !mine.has(id))
  if (index >= 0) {
    throw new InvalidInputError('notification_channel_ids', `body/notification_channel_ids/${index} is not one of your notification channels`)
  }
}
