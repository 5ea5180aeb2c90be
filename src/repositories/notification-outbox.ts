// The outbox's write side: an event and one delivery per channel it goes to, in the caller's transaction,
// so that a change that commits is always told and a change that rolls back never is.
import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitorNotificationChannels, notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { Check } from '../schemas/check.ts'
import type { MonitorWithoutChannels } from '../schemas/monitor.ts'
import type { NotificationEventType } from '../domain/vocabulary.ts'
import type { NotificationEvent } from '../schemas/notification-event.ts'
import { toIncident, type IncidentRow } from './incidents.ts'
import { monitorChannelIds } from './monitor-channels.ts'

export interface OutboxEvent {
  userId: string
  /** null for a `test` event. */
  monitorId: string | null
  incidentId: string | null
  payload: NotificationEvent
  /** When the deliveries are first due. */
  at: Date
  /** Only this channel (a `test` event); otherwise every active channel of the owner that covers the monitor and wants the event type. */
  channelId?: string
  /** Also the channels that want one of these types (a `heartbeat.missed` goes to those that want `incident.opened`). */
  alsoFor?: NotificationEventType[]
}

/**
 * Writes the event and its deliveries in one statement; returns the event id and how many deliveries
 * were written (0 when no channel wants it: the event row is kept anyway, it is what happened).
 */
export async function enqueueEvent (tx: Database, event: OutboxEvent): Promise<{ eventId: string, deliveries: number }> {
  const at = event.at.toISOString()
  const wanted = sql.join([event.payload.type, ...event.alsoFor ?? []].map((type) => sql`${type} = any(c.events)`), sql` or `)
  const channelFilter = event.channelId
    ? sql`c.id = ${event.channelId}`
    : sql`c.is_active and (${wanted}) and (c.all_monitors or exists (
        select 1 from ${monitorNotificationChannels} mc where mc.channel_id = c.id and mc.monitor_id = ${event.monitorId}))`
  const result = await tx.execute(sql`
    with event as (
      insert into ${notificationEvents} (user_id, type, monitor_id, incident_id, payload, created_at)
      values (${event.userId}, ${event.payload.type}, ${event.monitorId}, ${event.incidentId}, ${JSON.stringify(event.payload)}::jsonb, ${at}::timestamptz)
      returning id
    ), delivery as (
      insert into ${notificationDeliveries} (channel_id, event_id, monitor_id, next_attempt_at, created_at)
      select c.id, event.id, ${event.monitorId}::uuid, ${at}::timestamptz, ${at}::timestamptz
      from event, ${notificationChannels} c
      where c.user_id = ${event.userId} and ${channelFilter}
      returning id
    )
    select (select id from event) as event_id, (select count(*) from delivery)::int as deliveries`)
  const [row] = rowsOf<{ event_id: string, deliveries: number }>(result)
  return { eventId: row.event_id, deliveries: Number(row.deliveries) }
}

/** The monitor's whole record: its channels are read here, only when something is told. */
const withChannels = async (tx: Database, monitor: MonitorWithoutChannels) =>
  ({ ...monitor, notification_channel_ids: await monitorChannelIds(tx, monitor.id) })

/**
 * The notification of an incident change, from the incident's kind and status: a `down` incident's
 * `incident.opened` (by a check) or `incident.resolved` (by a check, a pause or a delete); a `degraded`
 * incident's `monitor.degraded`, one type for both edges (`data.incident.status` says which), so that a
 * channel takes or leaves slowness as a whole. The records are as they are in the transaction (the
 * monitor's whole record: its channels are read here, only when an incident changes).
 */
export async function enqueueIncidentEvent (
  tx: Database, change: { userId: string, monitor: MonitorWithoutChannels, incident: IncidentRow, check: Check | null, at: Date }
): Promise<void> {
  const monitor = await withChannels(tx, change.monitor)
  const { kind, status } = change.incident
  await enqueueEvent(tx, {
    userId: change.userId,
    monitorId: change.monitor.id,
    incidentId: change.incident.id,
    at: change.at,
    payload: {
      type: kind === 'degraded' ? 'monitor.degraded' : status === 'open' ? 'incident.opened' : 'incident.resolved',
      timestamp: change.at.toISOString(),
      data: { monitor, incident: toIncident(change.incident), check: change.check },
    },
  })
}

/**
 * The notification of a heartbeat whose deadline passed without a ping, which opened its down incident at once:
 * `heartbeat.missed`, with the incident and the failed check, to the channels that want it or `incident.opened`
 * (one message each: a channel with the default events hears that a heartbeat went down). Its end is an
 * `incident.resolved`, as any down incident's.
 */
export async function enqueueHeartbeatMissedEvent (
  tx: Database, change: { userId: string, monitor: MonitorWithoutChannels, incident: IncidentRow, check: Check, at: Date }
): Promise<void> {
  await enqueueEvent(tx, {
    userId: change.userId,
    monitorId: change.monitor.id,
    incidentId: change.incident.id,
    at: change.at,
    alsoFor: ['incident.opened'],
    payload: {
      type: 'heartbeat.missed',
      timestamp: change.at.toISOString(),
      data: { monitor: await withChannels(tx, change.monitor), incident: toIncident(change.incident), check: change.check },
    },
  })
}

/**
 * The notification of a certificate near its expiry, by the check that saw it: `tls.expiring`, with no
 * incident; the monitor's record carries the certificate (`tls_expires_at`, `tls_issuer`). Its deliveries
 * go to the channels that want the event and cover the monitor, as an incident's do.
 */
export async function enqueueTlsExpiringEvent (
  tx: Database, change: { userId: string, monitor: MonitorWithoutChannels, check: Check, at: Date }
): Promise<void> {
  await enqueueEvent(tx, {
    userId: change.userId,
    monitorId: change.monitor.id,
    incidentId: null,
    at: change.at,
    payload: {
      type: 'tls.expiring',
      timestamp: change.at.toISOString(),
      data: { monitor: await withChannels(tx, change.monitor), incident: null, check: change.check },
    },
  })
}
