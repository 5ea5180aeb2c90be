// Checker data access: claim due monitors (a lease), the rows a recorded check writes, release leases.
import type { MonitorType } from '../domain/vocabulary.ts'
import { and, desc, eq, notInArray, sql } from 'drizzle-orm'
import { rowsOf, type Database, type Queryable } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { checks, monitors, monitorSchedules } from '../db/schema.ts'
import { slotStartAt } from '../locations/quorum.ts'
import { anyOf, MONITOR_COLUMNS, monitorColumnsOf, monitorRowOf, type MonitorRow } from './repository.ts'

export type { MonitorRow }

/** The types the checker probes: a `heartbeat` is pinged, never claimed. */
type CheckedMonitorType = Exclude<MonitorType, 'heartbeat'>

/** A claimed monitor's row, with when it was due (lateness is the probe's start minus this) and its lease's end. */
export type ClaimedMonitor = MonitorRow & {
  monitorType: CheckedMonitorType
  /** Never null: only a heartbeat has no url (monitors_url_check). */
  url: string
  dueAt: Date
  leaseUntil: Date
  /** Claimed by its own next_check_at (a monitor without locations), or by its schedule row of the checker's location. */
  claimedBy: 'monitor' | 'location'
  /** The slot a location's claim is of (the slot that holds its due time); null for a monitor's own. */
  slotAt: Date | null
}

export interface CheckResult {
  isUp: boolean
  statusCode: number | null
  responseTimeMs: number
  errorMessage: string | null
  /** Up but slower than the monitor allows; sets the monitor's status, not a column of the check. */
  degraded?: boolean
  /** The certificate an HTTPS check saw, verified or not. */
  tls?: { expiresAt: Date, issuer: string | null }
  /** A heartbeat ping's stored body (src/checks/pings.ts); not in the API's check. */
  pingBody?: string | null
  /** The code of the location whose checker made it; absent for a heartbeat's ping. */
  location?: string
  /** The slot a located check was of (its location's unique key); absent for a monitor checked from anywhere. */
  slotAt?: Date
  checkedAt: Date
}

/** The claim of monitors without locations; run prepared (claimStatement): it is asked every second, even when nothing is due. */
export const claimDueQuery = () => sql`
    with due as (
      select id, next_check_at from ${monitors}
      where deleted_at is null and is_active and monitor_type <> 'heartbeat' and next_check_at <= ${sql.placeholder('now')}::timestamptz
        and cardinality(locations) = 0
      order by next_check_at
      limit ${sql.placeholder('limit')}
      for update skip locked
    )
    update ${monitors} m set next_check_at = ${sql.placeholder('leaseUntil')}::timestamptz
    from due where m.id = due.id
    returning ${monitorColumnsOf('m')}, due.next_check_at as due_at`
const claimStatement = preparedSql('claim_due_monitors', claimDueQuery)

/** The same for the schedule rows of one location; a paused, deleted or maintenance-paused monitor's rows wait. */
export const claimAtLocationQuery = () => sql`
    with due as (
      select s.monitor_id, s.next_check_at from ${monitorSchedules} s join ${monitors} m on m.id = s.monitor_id
      where s.location = ${sql.placeholder('location')}::text and s.next_check_at <= ${sql.placeholder('now')}::timestamptz
        and m.deleted_at is null and m.is_active and not m.maintenance_paused
      order by s.next_check_at
      limit ${sql.placeholder('limit')}
      for update of s skip locked
    ), claimed as (
      update ${monitorSchedules} s set next_check_at = ${sql.placeholder('leaseUntil')}::timestamptz
      from due where s.monitor_id = due.monitor_id and s.location = ${sql.placeholder('location')}::text
      returning s.monitor_id, due.next_check_at as due_at
    )
    select ${monitorColumnsOf('m')}, claimed.due_at from claimed join ${monitors} m on m.id = claimed.monitor_id`
const claimAtLocationStatement = preparedSql('claim_due_at_location', claimAtLocationQuery)

/**
 * Claims up to `limit` due checks for a checker of `location`: monitors without locations (by moving next_check_at to the
 * lease end) and those that list it (by their schedule row of it); SKIP LOCKED lets workers claim side by side.
 */
export async function claimDueMonitors (db: Database, location: string, now: Date, limit: number, leaseMs: number): Promise<ClaimedMonitor[]> {
  const leaseUntil = new Date(now.getTime() + leaseMs)
  const params = { now: now.toISOString(), location, limit, leaseUntil: leaseUntil.toISOString() }
  const claimed = (rows: Array<Record<string, unknown>>, claimedBy: ClaimedMonitor['claimedBy']) => rows.map((row) => {
    const monitor = monitorRowOf(row)
    const dueAt = new Date(row.due_at as string)
    const slotAt = claimedBy === 'location' ? slotStartAt(monitor.createdAt, monitor.intervalMinutes, dueAt) : null
    return Object.assign(monitor as ClaimedMonitor, { dueAt, leaseUntil, claimedBy, slotAt })
  })
  const own = claimed(rowsOf(await claimStatement(db).execute(params)), 'monitor')
  if (own.length === limit) return own
  const located = claimed(rowsOf(await claimAtLocationStatement(db).execute({ ...params, limit: limit - own.length })), 'location')
  return [...own, ...located].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime())
}

/** The active, live monitors among `ids`, locked in id order so that overlapping sets cannot deadlock. */
export async function lockActiveMonitors (tx: Pick<Database, 'execute'>, ids: string[]): Promise<Map<string, MonitorRow>> {
  const rows = rowsOf(await tx.execute(sql`select ${MONITOR_COLUMNS} from ${monitors}
    where ${monitors.id} = ${anyOf(ids, 'uuid')} and ${monitors.deletedAt} is null and ${monitors.isActive}
    order by ${monitors.id} for update`))
  return new Map(rows.map((row) => {
    const monitor = monitorRowOf(row)
    return [monitor.id, monitor]
  }))
}

/** Inserts the check and returns its id, for the notifications that quote it. */
export async function insertCheck (tx: Queryable, monitorId: string, result: CheckResult): Promise<string> {
  const { isUp, statusCode, responseTimeMs, errorMessage, checkedAt, pingBody, location, slotAt } = result
  const [row] = await tx.insert(checks).values({ monitorId, isUp, statusCode, responseTimeMs, errorMessage, checkedAt, pingBody, location, slotAt })
    .returning({ id: checks.id })
  return row.id
}

/** The monitor's state after a recorded check. */
export async function saveCheckState (
  tx: Queryable, monitorId: string,
  state: Pick<MonitorRow, 'status' | 'consecutiveFailures' | 'consecutiveSuccesses' | 'consecutiveSlow' | 'lastCheckedAt' | 'nextCheckAt'> &
    Partial<Pick<MonitorRow, 'tlsExpiresAt' | 'tlsIssuer' | 'tlsExpiryToldDays'>>
): Promise<void> {
  await tx.update(monitors).set(state).where(eq(monitors.id, monitorId))
}

/** Inserts checks that no notification quotes, in one statement with one JSON parameter rather than thousands. */
export async function insertCheckRows (tx: Pick<Database, 'execute'>, rows: Array<{ monitorId: string, result: CheckResult }>): Promise<void> {
  if (rows.length === 0) return
  const values = rows.map(({ monitorId, result }) => ({
    monitor_id: monitorId,
    is_up: result.isUp,
    status_code: result.statusCode,
    response_time_ms: result.responseTimeMs,
    error_message: result.errorMessage,
    checked_at: result.checkedAt.toISOString(),
    ping_body: result.pingBody ?? null,
    location: result.location ?? null,
    slot_at: result.slotAt?.toISOString() ?? null,
  }))
  await tx.execute(sql`
    insert into ${checks} (monitor_id, is_up, status_code, response_time_ms, error_message, checked_at, ping_body, location, slot_at)
    select monitor_id, is_up, status_code, response_time_ms, error_message, checked_at, ping_body, location, slot_at
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(monitor_id uuid, is_up boolean, status_code smallint,
      response_time_ms integer, error_message text, checked_at timestamptz, ping_body text, location text, slot_at timestamptz)`)
}

export type CheckState = Pick<MonitorRow, 'status' | 'consecutiveFailures' | 'consecutiveSuccesses' | 'consecutiveSlow' |
  'lastCheckedAt' | 'nextCheckAt' | 'tlsExpiresAt' | 'tlsIssuer' | 'tlsExpiryToldDays' | 'locationStates' | 'locationCoverage'>

/** saveCheckState for many monitors, in one statement. */
export async function saveCheckStates (tx: Pick<Database, 'execute'>, states: Array<CheckState & { id: string }>): Promise<void> {
  if (states.length === 0) return
  const iso = (at: Date | null) => at?.toISOString() ?? null
  const values = states.map((s) => ({
    id: s.id,
    status: s.status,
    failures: s.consecutiveFailures,
    successes: s.consecutiveSuccesses,
    slow: s.consecutiveSlow,
    last_checked_at: iso(s.lastCheckedAt),
    next_check_at: iso(s.nextCheckAt),
    tls_expires_at: iso(s.tlsExpiresAt),
    tls_issuer: s.tlsIssuer,
    told_days: s.tlsExpiryToldDays,
    // Null leaves them: most monitors have none, and their rows need not carry them.
    location_states: s.locationStates.length === 0 ? null : s.locationStates,
    location_coverage: s.locationStates.length === 0 ? null : s.locationCoverage,
  }))
  await tx.execute(sql`
    update ${monitors} m set status = v.status, consecutive_failures = v.failures, consecutive_successes = v.successes,
      consecutive_slow = v.slow, last_checked_at = v.last_checked_at, next_check_at = v.next_check_at,
      tls_expires_at = v.tls_expires_at, tls_issuer = v.tls_issuer, tls_expiry_told_days = v.told_days,
      location_states = coalesce(v.location_states, m.location_states), location_coverage = coalesce(v.location_coverage, m.location_coverage)
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, status text, failures integer, successes integer,
      slow integer, last_checked_at timestamptz, next_check_at timestamptz, tls_expires_at timestamptz, tls_issuer text, told_days smallint,
      location_states jsonb, location_coverage text)
    where m.id = v.id`)
}

/** The `n`-th newest check of a monitor (1 is the newest). */
export async function nthNewestCheck (tx: Queryable, monitorId: string, n: number) {
  const [check] = await tx.select().from(checks).where(eq(checks.monitorId, monitorId))
    .orderBy(desc(checks.checkedAt), desc(checks.id)).offset(n - 1).limit(1)
  return check
}

/** Gives back the leases of checks abandoned at shutdown by a checker of `location`, so that another one checks them at once. */
export async function releaseMonitors (db: Database, location: string, claimed: ClaimedMonitor[], now: Date): Promise<void> {
  // Only where the lease is still ours: an edit may have rescheduled the monitor.
  for (const monitor of claimed) {
    if (monitor.claimedBy === 'monitor') {
      await db.update(monitors).set({ nextCheckAt: now })
        .where(and(eq(monitors.id, monitor.id), eq(monitors.nextCheckAt, monitor.leaseUntil)))
    } else {
      await db.update(monitorSchedules).set({ nextCheckAt: now }).where(and(
        eq(monitorSchedules.monitorId, monitor.id), eq(monitorSchedules.location, location), eq(monitorSchedules.nextCheckAt, monitor.leaseUntil)))
    }
  }
}

const nextDueStatement = preparedSql('next_due_at', () => sql`select least(
    (select min(next_check_at) from ${monitors}
      where deleted_at is null and is_active and monitor_type <> 'heartbeat' and cardinality(locations) = 0),
    (select min(next_check_at) from ${monitorSchedules} where location = ${sql.placeholder('location')}::text)) as at`)

/** When the next check of a checker of `location` is due (null when none is), so an idle checker can sleep until then. */
export async function nextDueAt (db: Database, location: string): Promise<Date | null> {
  const [row] = rowsOf(await nextDueStatement(db).execute({ location }))
  return row?.at ? new Date(row.at as string) : null
}

/** A monitor's schedule rows made those of `codes`: a new location is due at `now`, one kept keeps its time. */
export async function setMonitorSchedules (tx: Database, monitorId: string, codes: readonly string[], now: Date): Promise<void> {
  await tx.delete(monitorSchedules).where(and(eq(monitorSchedules.monitorId, monitorId), notInArray(monitorSchedules.location, [...codes, ''])))
  if (codes.length === 0) return
  await tx.insert(monitorSchedules).values(codes.map((location) => ({ monitorId, location, nextCheckAt: now }))).onConflictDoNothing()
}

/** The key of a check's schedule row held by its lease, as rescheduleHeldSlots returns it. */
export const heldSlotKey = (monitorId: string, location: string, leaseUntil: Date) => `${monitorId}/${location}/${leaseUntil.getTime()}`

/**
 * Moves the schedule rows of checks about to be recorded to their next time, each only while its lease holds, and returns
 * the keys (heldSlotKey) of those that held: a slot claimed again after a lease ran out is the new claim's to record.
 */
export async function rescheduleHeldSlots (
  tx: Pick<Database, 'execute'>, claims: Array<{ monitorId: string, location: string, leaseUntil: Date, at: Date }>
): Promise<Set<string>> {
  if (claims.length === 0) return new Set()
  const values = claims.map((c) => ({ monitor_id: c.monitorId, location: c.location, lease_until: c.leaseUntil.toISOString(), at: c.at.toISOString() }))
  const rows = rowsOf<{ monitor_id: string, location: string, lease_until: string }>(await tx.execute(sql`
    update ${monitorSchedules} s set next_check_at = v.at
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(monitor_id uuid, location text, lease_until timestamptz, at timestamptz)
    where s.monitor_id = v.monitor_id and s.location = v.location and s.next_check_at = v.lease_until
    returning s.monitor_id, s.location, v.lease_until`))
  return new Set(rows.map((row) => heldSlotKey(row.monitor_id, row.location, new Date(row.lease_until))))
}
