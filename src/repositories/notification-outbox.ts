// The outbox's write side: an event and one delivery per channel it goes to, in the caller's transaction,
// so that a change that commits is always told and a change that rolls back never is.
import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { monitorNotificationChannels, notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { Check } from '../schemas/check.ts'
import type { NotificationEventType } from '../domain/vocabulary.ts'
import type { NotificationEvent } from '../schemas/notification-event.ts'
import { dependentsDown, toIncident, type IncidentRow } from './incidents.ts'
import { monitorChannelIds } from './monitor-channels.ts'

/** The monitor as the event carries it, before its channels are read. */
type MonitorWithoutChannels = Omit<NonNullable<NotificationEvent['data']['monitor']>, 'notification_channel_ids'>

export interface OutboxEvent {
  orgId: string
  /** null for a `test` event. */
  monitorId: string | null
  incidentId: string | null
  payload: NotificationEvent
  /** When the deliveries are first due. */
  at: Date
  /** Only this channel (a `test` event, a reminder); otherwise every active channel that covers the monitor and wants the type. */
  channelId?: string
  /** Also the channels that want one of these types. */
  alsoFor?: NotificationEventType[]
  /** Every active channel of the organization that wants the type, whatever monitors it covers (a maintenance window's edge). */
  wholeOrganization?: boolean
}

/** Writes the event and its deliveries in one statement; the event is kept even when no channel wants it. */
export async function enqueueEvent (tx: Database, event: OutboxEvent): Promise<{ eventId: string, deliveries: number }> {
  const at = event.at.toISOString()
  const wanted = sql.join([event.payload.type, ...event.alsoFor ?? []].map((type) => sql`${type} = any(c.events)`), sql` or `)
  const channelFilter = event.channelId
    ? sql`c.id = ${event.channelId}`
    : event.wholeOrganization === true
      ? sql`c.is_active and (${wanted})`
      : sql`c.is_active and (${wanted}) and (c.all_monitors or exists (
        select 1 from ${monitorNotificationChannels} mc where mc.channel_id = c.id and mc.monitor_id = ${event.monitorId}))`
  const result = await tx.execute(sql`
    with event as (
      insert into ${notificationEvents} (org_id, type, monitor_id, incident_id, payload, created_at)
      values (${event.orgId}, ${event.payload.type}, ${event.monitorId}, ${event.incidentId}, ${JSON.stringify(event.payload)}::jsonb, ${at}::timestamptz)
      returning id
    ), delivery as (
      insert into ${notificationDeliveries} (channel_id, event_id, monitor_id, next_attempt_at, created_at)
      select c.id, event.id, ${event.monitorId}::uuid, ${at}::timestamptz, ${at}::timestamptz
      from event, ${notificationChannels} c
      where c.org_id = ${event.orgId} and ${channelFilter}
      returning id
    )
    select (select id from event) as event_id, (select count(*) from delivery)::int as deliveries`)
  const [row] = rowsOf<{ event_id: string, deliveries: number }>(result)
  return { eventId: row.event_id, deliveries: Number(row.deliveries) }
}

/**
 * Whether the incident's opening is told: not while a parent's incident suppresses it, nor while its monitor is in
 * maintenance, unless it was still open when the maintenance ended (opening_told_at).
 */
const openingTold = (incident: IncidentRow) =>
  incident.suppressedBy === null && (!incident.duringMaintenance || incident.openingToldAt !== null)

/** The monitor's whole record; its channels are read only when something is told. */
const withChannels = async (tx: Database, monitor: MonitorWithoutChannels) =>
  ({ ...monitor, notification_channel_ids: await monitorChannelIds(tx, monitor.id) })

interface IncidentChange {
  orgId: string
  monitor: MonitorWithoutChannels
  incident: IncidentRow
  check: Check | null
  at: Date
  about?: 'incident.acknowledged' | 'incident.reminder'
  /** Only this channel (a reminder). */
  channelId?: string
}

/**
 * Queues an incident change: its opening or resolution (`monitor.degraded` covers both edges so a channel takes or
 * leaves slowness whole), or `about` it: someone is on it, or a reminder to `channelId` that nobody is yet.
 */
export async function enqueueIncidentEvent (tx: Database, change: IncidentChange): Promise<void> {
  // An opening told to no one (a parent's incident suppressed it, or maintenance): its end is not told either.
  if (!openingTold(change.incident) && change.about === undefined) return
  const monitor = await withChannels(tx, change.monitor)
  const { kind, status } = change.incident
  const edge = kind === 'degraded' ? 'monitor.degraded' : status === 'open' ? 'incident.opened' : 'incident.resolved'
  const type = change.about ?? edge
  const dependents = kind === 'down' && (type === 'incident.opened' || type === 'incident.reminder') ? await dependentsDown(tx, change.orgId, monitor.id) : undefined
  await enqueueEvent(tx, {
    orgId: change.orgId,
    monitorId: change.monitor.id,
    incidentId: change.incident.id,
    at: change.at,
    channelId: change.channelId,
    payload: {
      type,
      timestamp: change.at.toISOString(),
      data: { monitor, incident: toIncident(change.incident), check: change.check, ...(dependents !== undefined && { dependents_down: dependents }) },
    },
  })
}

/** Queues `heartbeat.missed`, also to channels that want `incident.opened` (the default events). */
export async function enqueueHeartbeatMissedEvent (
  tx: Database, change: { orgId: string, monitor: MonitorWithoutChannels, incident: IncidentRow, check: Check, at: Date }
): Promise<void> {
  if (!openingTold(change.incident)) return
  const dependents = await dependentsDown(tx, change.orgId, change.monitor.id)
  await enqueueEvent(tx, {
    orgId: change.orgId,
    monitorId: change.monitor.id,
    incidentId: change.incident.id,
    at: change.at,
    alsoFor: ['incident.opened'],
    payload: {
      type: 'heartbeat.missed',
      timestamp: change.at.toISOString(),
      data: { monitor: await withChannels(tx, change.monitor), incident: toIncident(change.incident), check: change.check, dependents_down: dependents },
    },
  })
}

/** What happened to a monitor without an incident: its record, and the check that saw it (null when none did). */
interface MonitorChange { orgId: string, monitor: MonitorWithoutChannels, check: Check | null, at: Date }

async function enqueueMonitorEvent (tx: Database, change: MonitorChange, type: NotificationEventType, more: Partial<NotificationEvent['data']> = {}): Promise<void> {
  await enqueueEvent(tx, {
    orgId: change.orgId,
    monitorId: change.monitor.id,
    incidentId: null,
    at: change.at,
    payload: {
      type,
      timestamp: change.at.toISOString(),
      data: { monitor: await withChannels(tx, change.monitor), incident: null, check: change.check, ...more },
    },
  })
}

/** Queues a `location.coverage_*` edge; a monitor in maintenance tells it to no one. */
export async function enqueueCoverageEvent (
  tx: Database, change: MonitorChange & { type: 'location.coverage_lost' | 'location.coverage_restored', silent: string[] }
): Promise<void> {
  if (!change.monitor.in_maintenance) await enqueueMonitorEvent(tx, change, change.type, { silent_locations: change.silent })
}

/** Queues `tls.expiring` (the monitor's record carries the certificate). */
export async function enqueueTlsExpiringEvent (tx: Database, change: MonitorChange & { check: Check }): Promise<void> {
  await enqueueMonitorEvent(tx, change, 'tls.expiring')
}
