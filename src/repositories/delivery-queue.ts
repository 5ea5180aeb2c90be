// The delivery worker's rows: claim a channel (a lease), take its due deliveries, record attempts, release.
import { and, eq, sql, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { notificationChannels, notificationDeliveries, notificationEvents } from '../db/schema.ts'
import type { ChannelType, DeliveryStatus, NotificationEventType } from '../domain/vocabulary.ts'
import type { NotificationEvent } from '../schemas/notification-event.ts'

/** A channel as its sender needs it: config and signing secrets in clear. */
export interface QueuedChannel {
  id: string
  name: string
  type: ChannelType
  config: Record<string, unknown>
  /** The signing secrets in effect (see secretsOf). */
  secrets: string[]
}

/** A delivery taken by the worker holding its channel, with its event. */
export interface QueuedDelivery {
  id: string
  eventId: string
  type: NotificationEventType
  /** Deliveries of one monitor to a channel go in event order; null for a `test`. */
  monitorId: string | null
  incidentId: string | null
  payload: NotificationEvent
  status: DeliveryStatus
  attempts: number
  createdAt: Date
  nextAttemptAt: Date
  /** Place among the channel's deliveries of the last minute (1 for a first; past 10 it goes in a digest); 0 when not asked. */
  stormRank: number
}

/** One entry of the attempt log. */
interface AttemptEntry {
  at: string
  status_code: number | null
  duration_ms: number
  error: string | null
  /** The other deliveries the same message carried (an incident told whole, a digest). */
  with?: string[]
}

export interface AttemptRecord {
  id: string
  status: Exclude<DeliveryStatus, 'pending'>
  nextAttemptAt: Date | null
  entry: AttemptEntry
}

const iso = (date: Date) => date.toISOString()

export interface ClaimedChannel {
  channel: QueuedChannel
  ownerId: string
  /** The lease end, also the token under which its attempts are recorded. */
  lease: Date
  deliveries: QueuedDelivery[]
}

/** The secrets in effect at `now`: the current one, and the previous one until its 24 h are over. */
function secretsOf (row: { secret: string | null, previous_secret: string | null, previous_secret_until: unknown }, now: Date): string[] {
  const until = row.previous_secret_until === null ? null : new Date(row.previous_secret_until as string)
  return [row.secret, until && until > now ? row.previous_secret : null].filter((secret): secret is string => Boolean(secret))
}

const STORM_RANK = (channelType: unknown, types: string[]) => sql`case when ${channelType} = any(${`{${types.join(',')}}`}::text[]) then
  (select count(*) from ${notificationDeliveries} w where w.channel_id = taken.channel_id
    and w.created_at > taken.created_at - interval '1 minute' and (w.created_at, w.id) <= (taken.created_at, taken.id))::int else 0 end`

// The order rule: row `d` waits while an older undelivered delivery of its monitor to its channel is not due.
// A `dead` one holds nothing back.
const waitsBehind = (d: string, now: SQL) => sql`exists (
  select 1 from ${notificationDeliveries} o
  where o.channel_id = ${sql.raw(d)}.channel_id and o.monitor_id = ${sql.raw(d)}.monitor_id and o.monitor_id is not null
    and o.status in ('pending', 'failed') and o.created_at < ${sql.raw(d)}.created_at and o.next_attempt_at > ${now})`

const anyDueStatement = preparedSql('any_due_delivery', () => sql`
  select 1 from ${notificationDeliveries} d
  where status in ('pending', 'failed') and next_attempt_at <= ${sql.placeholder('now')}::timestamptz
    and not ${waitsBehind('d', sql`${sql.placeholder('now')}::timestamptz`)}
  limit 1`)

/** Whether any delivery is due: a prepared probe, so an idle worker does not build the claim statement on every tick. */
export async function anyDueDelivery (db: Database, now: Date): Promise<boolean> {
  return rowsOf(await anyDueStatement(db).execute({ now: now.toISOString() })).length > 0
}

/** At most `cap` channels of one owner at once, counting the `busy` ones already in flight. */
export interface OwnerShares { cap: number, busy: ReadonlyMap<string, number> }

/**
 * Leases up to `limit` free channels and takes their due deliveries, in one statement. Owners take turns, and
 * the UPDATE rechecks the lease on the locked row so that two workers never hold one channel.
 */
export async function claimChannels (
  db: Database, now: Date, options: { limit: number, leaseMs: number, batchSize: number, stormTypes: ChannelType[], owners?: OwnerShares }
): Promise<ClaimedChannel[]> {
  const lease = new Date(now.getTime() + options.leaseMs)
  // Channels come from the head of the due index, so a claim costs the same however many are due; all due
  // deliveries are grouped only when the head holds too few free channels.
  const headSize = Math.max(200, options.limit * 4)
  const FREE_CHANNEL = sql`c.is_active and (c.delivery_lease_until is null or c.delivery_lease_until <= ${iso(now)}::timestamptz)`
  const NOW = sql`${iso(now)}::timestamptz`
  const cap = options.owners?.cap ?? options.limit
  const busy = Object.fromEntries(options.owners?.busy ?? [])
  // An owner's n-th channel of this claim is its (busy + n)-th in flight: its turn.
  const turn = (rows: string) => sql`row_number() over (partition by ${sql.raw(rows)}.org_id order by ${sql.raw(rows)}.due, ${sql.raw(rows)}.channel_id)
    + coalesce((select b.n from busy b where b.org_id = ${sql.raw(rows)}.org_id), 0)`
  const result = await db.execute(sql`
    with busy as (
      select key::uuid as org_id, value::int as n from jsonb_each_text(${JSON.stringify(busy)}::jsonb)
    ), head as (
      select channel_id, next_attempt_at from ${notificationDeliveries} d
      where status in ('pending', 'failed') and next_attempt_at <= ${iso(now)}::timestamptz and not ${waitsBehind('d', NOW)}
      order by next_attempt_at
      limit ${headSize}
    ), near as (
      select h.channel_id, c.org_id, min(h.next_attempt_at) as due
      from head h join ${notificationChannels} c on c.id = h.channel_id
      where ${FREE_CHANNEL}
      group by h.channel_id, c.org_id
    ), far as (
      select d.channel_id, c.org_id, min(d.next_attempt_at) as due
      from ${notificationDeliveries} d join ${notificationChannels} c on c.id = d.channel_id
      where d.status in ('pending', 'failed') and d.next_attempt_at <= ${iso(now)}::timestamptz and ${FREE_CHANNEL}
        and (select count(*) from (select ${turn('near')} as turn from near) n where n.turn <= ${cap}) < ${options.limit}
        and (select count(*) from head) = ${headSize} and not ${waitsBehind('d', NOW)}
      group by d.channel_id, c.org_id
    ), pool as (
      select channel_id, org_id, min(due) as due from (select * from near union all select * from far) x
      group by channel_id, org_id
    ), candidates as (
      select channel_id from (select pool.channel_id, pool.due, ${turn('pool')} as turn from pool) p
      where p.turn <= ${cap}
      order by p.turn, p.due
      limit ${options.limit}
    ), claimed as (
      update ${notificationChannels} c set delivery_lease_until = ${iso(lease)}::timestamptz
      from candidates
      where c.id = candidates.channel_id and c.is_active
        and (c.delivery_lease_until is null or c.delivery_lease_until <= ${iso(now)}::timestamptz)
      returning c.id, c.org_id, c.name, c.type, c.config, c.secret, c.previous_secret, c.previous_secret_until
    ), due as (
      select due.id from claimed cross join lateral (
        select id from ${notificationDeliveries} d
        where channel_id = claimed.id and status in ('pending', 'failed') and next_attempt_at <= ${iso(now)}::timestamptz
          and not ${waitsBehind('d', NOW)}
        order by next_attempt_at
        limit ${options.batchSize}) due
    ), ${OPENINGS}, preceding as (
      -- The earlier due deliveries of their monitors, also past the batch's size, so that they go first.
      select o.id from due join ${notificationDeliveries} x on x.id = due.id
      join ${notificationDeliveries} o on o.channel_id = x.channel_id and o.monitor_id = x.monitor_id and o.monitor_id is not null
        and o.status in ('pending', 'failed') and o.created_at < x.created_at and o.next_attempt_at <= ${NOW}
    ), taken as (
      -- The state is asked again of the row as it is now: a claim that began before another worker's
      -- last record committed (and found the channel given back) must not take what that one sent.
      update ${notificationDeliveries} d set lease_until = ${iso(lease)}::timestamptz
      where d.status in ('pending', 'failed') and (
        (d.id in (select id from due union select id from preceding) and d.next_attempt_at <= ${NOW}) or d.id in (select id from openings))
      returning d.*
    )
    select claimed.id as channel_id, claimed.org_id as owner_id, claimed.name, claimed.type as channel_type, claimed.config, claimed.secret,
      claimed.previous_secret, claimed.previous_secret_until, ${SELECT_TAKEN}, ${STORM_RANK(sql`claimed.type`, options.stormTypes)} as storm_rank
    from claimed left join (taken join ${notificationEvents} e on e.id = taken.event_id) on taken.channel_id = claimed.id
    order by claimed.id, e.created_at, ${incidentField('e', 'started_at')}, ${incidentField('e', 'status')} = 'resolved', taken.id`)
  const claimed = new Map<string, ClaimedChannel>()
  for (const row of rowsOf(result)) {
    const id = row.channel_id as string
    let entry = claimed.get(id)
    if (!entry) {
      const channel = {
        id,
        name: row.name as string,
        type: row.channel_type as ChannelType,
        config: jsonValue(row.config) as Record<string, unknown>,
        secrets: secretsOf(row as never, now),
      }
      claimed.set(id, entry = { channel, ownerId: row.owner_id as string, lease, deliveries: [] })
    }
    if (row.id !== null) entry.deliveries.push(queued(row))
  }
  return [...claimed.values()]
}

const jsonValue = (value: unknown) => typeof value === 'string' ? JSON.parse(value) : value

/** Leases one channel, active or not (a test sends to a paused one too); null while a worker holds it. */
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
  const [row] = rowsOf<Record<string, unknown>>(await db.execute(sql`
    select id, name, type, config, secret, previous_secret, previous_secret_until from ${notificationChannels} where id = ${channelId}`))
  if (!row) return undefined
  return {
    id: row.id as string,
    name: row.name as string,
    type: row.type as ChannelType,
    config: jsonValue(row.config) as Record<string, unknown>,
    secrets: secretsOf(row as never, now),
  }
}

const SELECT_TAKEN = sql`taken.id, taken.event_id, taken.status, taken.attempts, taken.created_at, taken.next_attempt_at,
  e.type, e.monitor_id, e.incident_id, e.payload`

/** A field of the event's incident, from its payload. */
const incidentField = (event: 'e' | 'r' | 'opened', field: 'status' | 'started_at'): SQL =>
  sql.raw(`(${event}.payload->'data'->'incident'->>'${field}')`)

// A resolution is never told before its opening: the untold openings of the resolutions in `due` come along.
const OPENINGS = sql`openings as (
  select d.id from due join ${notificationDeliveries} dd on dd.id = due.id
  join ${notificationEvents} r on r.id = dd.event_id and r.incident_id is not null and ${incidentField('r', 'status')} = 'resolved'
  join ${notificationEvents} opened on opened.incident_id = r.incident_id and ${incidentField('opened', 'status')} = 'open'
  join ${notificationDeliveries} d on d.event_id = opened.id and d.channel_id = dd.channel_id and d.status in ('pending', 'failed'))`

function queued (row: Record<string, unknown>): QueuedDelivery {
  return {
    id: row.id as string,
    eventId: row.event_id as string,
    type: row.type as NotificationEventType,
    monitorId: row.monitor_id as string | null,
    incidentId: row.incident_id as string | null,
    payload: jsonValue(row.payload) as NotificationEvent,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    createdAt: new Date(row.created_at as string),
    nextAttemptAt: new Date(row.next_attempt_at as string),
    stormRank: Number(row.storm_rank ?? 0),
  }
}

/** When the channel's pending digest is due, so later deliveries of a storm join it; null when none waits. */
export async function heldDigestAt (db: Database, channelId: string, now: Date): Promise<Date | null> {
  const [row] = rowsOf<{ at: string | null }>(await db.execute(sql`
    select min(next_attempt_at) as at from ${notificationDeliveries}
    where channel_id = ${channelId} and status = 'pending' and attempts = 0
      and next_attempt_at > ${iso(now)}::timestamptz and created_at > ${iso(now)}::timestamptz - interval '2 minutes'`))
  return row?.at ? new Date(row.at) : null
}

/** A delivery's channel, attempts and status; undefined when it is gone. */
export async function deliveryState (db: Database, deliveryId: string): Promise<{ channelId: string, attempts: number, status: DeliveryStatus } | undefined> {
  const [row] = await db.select({ channelId: notificationDeliveries.channelId, attempts: notificationDeliveries.attempts, status: notificationDeliveries.status })
    .from(notificationDeliveries).where(eq(notificationDeliveries.id, deliveryId))
  return row
}

/** One delivery, marked with the lease, for an attempt outside the worker's order (a test). */
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
 * A channel that answered 2xx at `at`: retries after no answer, 408 or 5xx become due then (with `pending`,
 * those put off behind them too). A 429 or another 4xx keeps its retry: the receiver did answer.
 */
export interface BringForward { channelId: string, at: Date, pending: boolean }

/** Records attempts (only where the lease still holds), releases and brings forward, in one commit; returns the ids recorded. */
export async function recordAttempts (
  db: Database, records: Array<AttemptRecord & { lease: Date }>, releases: Array<{ channelId: string, lease: Date }> = [],
  forwards: BringForward[] = []
): Promise<Set<string>> {
  if (records.length === 0 && releases.length === 0 && forwards.length === 0) return new Set()
  const values = records.map((r) => ({
    id: r.id,
    lease: iso(r.lease),
    status: r.status,
    next_attempt_at: r.nextAttemptAt ? iso(r.nextAttemptAt) : null,
    delivered_at: r.status === 'delivered' ? r.entry.at : null,
    status_code: r.entry.status_code,
    error: r.entry.error,
    entry: r.entry,
  }))
  const released = releases.map((r) => ({ id: r.channelId, lease: iso(r.lease) }))
  const forwarded = forwards.map((f) => ({ id: f.channelId, at: iso(f.at), pending: f.pending }))
  const result = await db.execute(sql`
    with recorded as (
      update ${notificationDeliveries} d set
        status = v.status, next_attempt_at = v.next_attempt_at, delivered_at = coalesce(v.delivered_at, d.delivered_at),
        attempts = d.attempts + 1, last_status_code = v.status_code, last_error = v.error,
        attempt_log = d.attempt_log || jsonb_build_array(v.entry), lease_until = null
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, lease timestamptz, status text,
        next_attempt_at timestamptz, delivered_at timestamptz, status_code smallint, error text, entry jsonb)
      where d.id = v.id and d.lease_until = v.lease
      returning d.id
    ), released as (
      update ${notificationChannels} c set delivery_lease_until = null
      from jsonb_to_recordset(${JSON.stringify(released)}::jsonb) as r(id uuid, lease timestamptz)
      where c.id = r.id and c.delivery_lease_until = r.lease
    ), forwarded as (
      -- Not the rows recorded above: those are marked with a lease.
      update ${notificationDeliveries} w set next_attempt_at = f.at
      from jsonb_to_recordset(${JSON.stringify(forwarded)}::jsonb) as f(id uuid, at timestamptz, pending boolean)
      where w.channel_id = f.id and w.status in ('pending', 'failed') and w.next_attempt_at > f.at and w.lease_until is null
        and ((w.status = 'failed' and (w.last_status_code is null or w.last_status_code = 408 or w.last_status_code >= 500))
          or (w.status = 'pending' and f.pending))
    )
    select id from recorded`)
  return new Set(rowsOf<{ id: string }>(result).map((row) => row.id))
}

/** Why attempts were not recorded: whether the channel and how many of the deliveries are still there. */
export async function deliveriesLeft (db: Database, channelId: string, ids: string[]): Promise<{ channel: boolean, deliveries: number }> {
  const [row] = rowsOf<{ channel: boolean, deliveries: number }>(await db.execute(sql`
    select exists (select 1 from ${notificationChannels} where id = ${channelId}) as channel,
      (select count(*) from ${notificationDeliveries} where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid))::int as deliveries`))
  return { channel: Boolean(row.channel), deliveries: Number(row.deliveries) }
}

/** Moves deliveries that were taken but not tried to `until` (no attempt counted), or later when they were due later anyway. */
export async function postponeDeliveries (db: Database, lease: Date, ids: string[], until: Date): Promise<void> {
  if (ids.length === 0) return
  await db.execute(sql`
    update ${notificationDeliveries} set next_attempt_at = greatest(next_attempt_at, ${iso(until)}::timestamptz), lease_until = null
    where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid) and lease_until = ${iso(lease)}::timestamptz`)
}

/** Gives the channel back, and with `untried` the deliveries this lease still marks, due as they were. */
export async function releaseChannel (db: Database, channelId: string, lease: Date, untried = true): Promise<void> {
  if (untried) {
    await db.execute(sql`
      update ${notificationDeliveries} set lease_until = null
      where channel_id = ${channelId} and status in ('pending', 'failed') and lease_until = ${iso(lease)}::timestamptz`)
  }
  await db.update(notificationChannels).set({ deliveryLeaseUntil: null })
    .where(and(eq(notificationChannels.id, channelId), eq(notificationChannels.deliveryLeaseUntil, lease)))
}

/** Turns the channel off with a reason (410 Gone): nothing is sent until its owner turns it back on. */
export async function disableChannel (db: Database, channelId: string, reason: string, now: Date): Promise<void> {
  await db.update(notificationChannels).set({ isActive: false, disabledReason: reason, updatedAt: now })
    .where(eq(notificationChannels.id, channelId))
}
