// The delivery worker's rows: claim a channel (a lease), take its due deliveries, record attempts, release.
import { and, eq, sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { ChannelType, DeliveryStatus, NotificationEventType } from '../domain/vocabulary.ts'
import type { NotificationEvent } from '../schemas/notification-event.ts'

/** A channel as its sender needs it: config and signing secrets in clear. */
export interface QueuedChannel {
  id: string
  name: string
  type: ChannelType
  config: Record<string, unknown>
  /** The signing secrets in effect: the current one, and the previous one until its 24 h are over. */
  secrets: string[]
}

/** A delivery taken by the worker holding its channel, with its event. */
export interface QueuedDelivery {
  id: string
  eventId: string
  type: NotificationEventType
  incidentId: string | null
  payload: NotificationEvent
  status: DeliveryStatus
  attempts: number
  createdAt: Date
  nextAttemptAt: Date
  /**
   * The delivery's place among its channel's deliveries of the minute up to it (1 for a first): past 10
   * it is part of a storm, told in a digest. 0 when not asked for.
   */
  stormRank: number
}

/** One attempt of the attempt log: [{at, status_code, duration_ms, error}], plus `with` when the message carried other deliveries too. */
interface AttemptEntry {
  at: string
  status_code: number | null
  duration_ms: number
  error: string | null
  /** The other deliveries one message told together with this one (an incident told whole, a digest). */
  with?: string[]
}

/** What an attempt did to one delivery. */
export interface AttemptRecord {
  id: string
  status: Exclude<DeliveryStatus, 'pending'>
  nextAttemptAt: Date | null
  entry: AttemptEntry
}

const iso = (date: Date) => date.toISOString()

/**
 * Claims up to `limit` active channels that have due deliveries and that no worker holds: each gets a
 * lease until `now + leaseMs`, its token (the lease's end) returned. The lease is taken by an UPDATE
 * whose condition is checked again on the locked row, so two workers never both hold a channel.
 */
export async function claimChannels (db: Database, now: Date, limit: number, leaseMs: number): Promise<Array<{ channelId: string, lease: Date }>> {
  const lease = new Date(now.getTime() + leaseMs)
  const result = await db.execute(sql`
    with candidates as (
      select d.channel_id, min(d.next_attempt_at) as due
      from ${notificationDeliveries} d join ${notificationChannels} c on c.id = d.channel_id
      where d.status in ('pending', 'failed') and d.next_attempt_at <= ${iso(now)}::timestamptz
        and c.is_active and (c.delivery_lease_until is null or c.delivery_lease_until <= ${iso(now)}::timestamptz)
      group by d.channel_id
      order by due
      limit ${limit}
    )
    update ${notificationChannels} c set delivery_lease_until = ${iso(lease)}::timestamptz
    from candidates
    where c.id = candidates.channel_id and c.is_active
      and (c.delivery_lease_until is null or c.delivery_lease_until <= ${iso(now)}::timestamptz)
    returning c.id`)
  return rowsOf<{ id: string }>(result).map((row) => ({ channelId: row.id, lease }))
}

/** Takes the lease of one channel, active or not (a test sends to a paused one too); null while a worker holds it. */
export async function leaseChannel (db: Database, channelId: string, now: Date, leaseMs: number): Promise<Date | null> {
  const lease = new Date(now.getTime() + leaseMs)
  const result = await db.execute(sql`
    update ${notificationChannels} set delivery_lease_until = ${iso(lease)}::timestamptz
    where id = ${channelId} and (delivery_lease_until is null or delivery_lease_until <= ${iso(now)}::timestamptz)
    returning id`)
  return rowsOf(result).length > 0 ? lease : null
}

/** The channel a lease is held on, with the secrets in effect at `now`; undefined when it is gone. */
export async function queuedChannel (db: Database, channelId: string, now: Date): Promise<QueuedChannel | undefined> {
  const [row] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, channelId))
  if (!row) return undefined
  const secrets = [row.secret, row.previousSecretUntil && row.previousSecretUntil > now ? row.previousSecret : null]
    .filter((secret): secret is string => Boolean(secret))
  return { id: row.id, name: row.name, type: row.type, config: row.config, secrets }
}

const SELECT_TAKEN = sql`taken.id, taken.event_id, taken.status, taken.attempts, taken.created_at, taken.next_attempt_at,
  e.type, e.incident_id, e.payload`

function queued (row: Record<string, unknown>): QueuedDelivery {
  return {
    id: row.id as string,
    eventId: row.event_id as string,
    type: row.type as NotificationEventType,
    incidentId: row.incident_id as string | null,
    payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as NotificationEvent,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    createdAt: new Date(row.created_at as string),
    nextAttemptAt: new Date(row.next_attempt_at as string),
    stormRank: Number(row.storm_rank ?? 0),
  }
}

/**
 * Marks with the lease and returns, oldest event first, up to `limit` due deliveries of a held channel,
 * together with the untold opening of any incident whose resolution is among them (due or not: a
 * resolution is never told before its opening). With `storms`, each one's storm rank, and when deliveries
 * already wait for a digest (`heldUntil`), so that later ones join that digest.
 */
export async function takeDueDeliveries (
  db: Database, channelId: string, lease: Date, now: Date, options: { limit: number, storms: boolean }
): Promise<{ deliveries: QueuedDelivery[], heldUntil: Date | null }> {
  const stormRank = options.storms
    ? sql`(select count(*) from ${notificationDeliveries} w where w.channel_id = taken.channel_id
        and w.created_at > taken.created_at - interval '1 minute' and (w.created_at, w.id) <= (taken.created_at, taken.id))::int`
    : sql`0`
  const result = await db.execute(sql`
    with due as (
      select id from ${notificationDeliveries}
      where channel_id = ${channelId} and status in ('pending', 'failed') and next_attempt_at <= ${iso(now)}::timestamptz
      order by next_attempt_at, created_at
      limit ${options.limit}
    ), openings as (
      select d.id from ${notificationEvents} opened join ${notificationDeliveries} d on d.event_id = opened.id
      where opened.type = 'incident.opened' and d.channel_id = ${channelId} and d.status in ('pending', 'failed')
        and opened.incident_id in (
          select r.incident_id from due join ${notificationDeliveries} dd on dd.id = due.id
          join ${notificationEvents} r on r.id = dd.event_id where r.type = 'incident.resolved')
    ), taken as (
      update ${notificationDeliveries} d set lease_until = ${iso(lease)}::timestamptz
      where d.id in (select id from due union select id from openings)
      returning d.*
    )
    select ${SELECT_TAKEN}, ${stormRank} as storm_rank
    from taken join ${notificationEvents} e on e.id = taken.event_id
    order by e.created_at, e.type = 'incident.resolved', taken.id`)
  const deliveries = rowsOf(result).map(queued)
  let heldUntil: Date | null = null
  if (options.storms && deliveries.some((d) => d.stormRank > 10)) {
    const [row] = rowsOf<{ at: string | null }>(await db.execute(sql`
      select min(next_attempt_at) as at from ${notificationDeliveries}
      where channel_id = ${channelId} and status = 'pending' and attempts = 0
        and next_attempt_at > ${iso(now)}::timestamptz and created_at > ${iso(now)}::timestamptz - interval '2 minutes'`))
    heldUntil = row?.at ? new Date(row.at) : null
  }
  return { deliveries, heldUntil }
}

/** A delivery's channel and attempts so far; undefined when it is gone. */
export async function deliveryState (db: Database, deliveryId: string): Promise<{ channelId: string, attempts: number, status: DeliveryStatus } | undefined> {
  const [row] = await db.select({ channelId: notificationDeliveries.channelId, attempts: notificationDeliveries.attempts, status: notificationDeliveries.status })
    .from(notificationDeliveries).where(eq(notificationDeliveries.id, deliveryId))
  return row
}

/** One delivery, marked with the lease (its channel held), for an attempt outside the worker's order (a test). */
export async function takeDelivery (db: Database, deliveryId: string, lease: Date): Promise<QueuedDelivery | undefined> {
  const result = await db.execute(sql`
    with taken as (
      update ${notificationDeliveries} set lease_until = ${iso(lease)}::timestamptz
      where id = ${deliveryId} and status in ('pending', 'failed')
      returning *
    )
    select ${SELECT_TAKEN} from taken join ${notificationEvents} e on e.id = taken.event_id`)
  const [row] = rowsOf(result)
  return row ? queued(row) : undefined
}

/**
 * Records one attempt on each delivery a message carried, in one statement; only on deliveries still
 * marked with this lease (a worker whose lease ran out has lost them). Returns how many were recorded.
 */
export async function recordAttempts (db: Database, lease: Date, records: AttemptRecord[]): Promise<number> {
  if (records.length === 0) return 0
  const values = records.map((r) => ({
    id: r.id,
    status: r.status,
    next_attempt_at: r.nextAttemptAt ? iso(r.nextAttemptAt) : null,
    delivered_at: r.status === 'delivered' ? r.entry.at : null,
    status_code: r.entry.status_code,
    error: r.entry.error,
    entry: r.entry,
  }))
  const result = await db.execute(sql`
    update ${notificationDeliveries} d set
      status = v.status, next_attempt_at = v.next_attempt_at, delivered_at = coalesce(v.delivered_at, d.delivered_at),
      attempts = d.attempts + 1, last_status_code = v.status_code, last_error = v.error,
      attempt_log = d.attempt_log || jsonb_build_array(v.entry), lease_until = null
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as v(id uuid, status text, next_attempt_at timestamptz, delivered_at timestamptz, status_code smallint, error text, entry jsonb)
    where d.id = v.id and d.lease_until = ${iso(lease)}::timestamptz
    returning d.id`)
  return rowsOf(result).length
}

/** Moves deliveries that were taken but not tried to `until` (no attempt counted), or later when they were due later anyway. */
export async function postponeDeliveries (db: Database, lease: Date, ids: string[], until: Date): Promise<void> {
  if (ids.length === 0) return
  await db.execute(sql`
    update ${notificationDeliveries} set next_attempt_at = greatest(next_attempt_at, ${iso(until)}::timestamptz), lease_until = null
    where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid) and lease_until = ${iso(lease)}::timestamptz`)
}

/** Gives the channel back, and whatever of its deliveries this lease still marks (untried: due as they were). */
export async function releaseChannel (db: Database, channelId: string, lease: Date): Promise<void> {
  await db.execute(sql`
    update ${notificationDeliveries} set lease_until = null
    where channel_id = ${channelId} and status in ('pending', 'failed') and lease_until = ${iso(lease)}::timestamptz`)
  await db.update(notificationChannels).set({ deliveryLeaseUntil: null })
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.deliveryLeaseUntil, lease)))
}

/** Turns the channel off, saying why (its receiver answered 410 Gone): nothing more is sent until its owner turns it on. */
export async function disableChannel (db: Database, channelId: string, reason: string, now: Date): Promise<void> {
  await db.update(notificationChannels).set({ isActive: false, disabledReason: reason, updatedAt: now })
    .where(eq(notificationChannels.id, channelId))
}
