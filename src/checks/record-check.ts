// Records checks with their consequences in one transaction: check rows, monitor states, the incidents decideOutcome()
// opens or resolves with their notifications (the outbox), and `tls.expiring` reminders.
import type { Database } from '../db/client.ts'
import type { LocationStateRecord } from '../domain/locations.ts'
import type { IncidentKind } from '../domain/vocabulary.ts'
import { openIncident, resolveOpenIncident, type IncidentRow } from '../repositories/incidents.ts'
import {
  heldSlotKey, insertCheck, insertCheckRows, lockActiveMonitors, nthNewestCheck, rescheduleHeldSlots, saveCheckState, saveCheckStates,
  type CheckResult, type CheckState, type MonitorRow,
} from '../monitors/scheduling.ts'
import { toCheck } from '../repositories/checks.ts'
import { toMonitor } from '../monitors/presenter.ts'
import { enqueueCoverageEvent, enqueueIncidentEvent, enqueueTlsExpiringEvent } from '../repositories/notification-outbox.ts'
import { checkStatus, decideOutcome, quorumOutcome } from './outcome.ts'
import { coverageTransition, locationStatesOf, nextSlotAt, quorumPolicyOf, quorumVerdict } from '../locations/quorum.ts'
import { tlsExpiryReminder } from './tls-expiry.ts'

export interface CheckToRecord {
  monitorId: string
  result: CheckResult
  /** How soon a failure below the threshold is checked again (decideOutcome). */
  confirmDelayMs: number
  /** The next check's time when the caller sets it (a heartbeat's deadline); otherwise decideOutcome's schedule. */
  nextCheckAt?: Date
  /** A checker's claim of its location's slot: recorded only while it holds (a slot claimed again is another's). */
  leaseUntil?: Date
}

/** One check in one transaction, so that check, status, incident and notification never disagree; false when paused or deleted. */
export async function recordCheck (db: Database, monitorId: string, result: CheckResult, confirmDelayMs: number): Promise<boolean> {
  const [recorded] = await recordChecks(db, [{ monitorId, result, confirmDelayMs }])
  return recorded
}

/**
 * Checks of many monitors, in their order, in one transaction; false for each not recorded: its monitor paused or deleted
 * meanwhile, or its location's slot claimed again by another probe.
 */
export async function recordChecks (db: Database, entries: CheckToRecord[]): Promise<boolean[]> {
  return db.transaction(async (tx) => {
    const locked = await lockActiveMonitors(tx, [...new Set(entries.map((entry) => entry.monitorId))])
    const recorded = new Set(await recordLockedChecks(tx, locked, entries))
    return entries.map((entry) => recorded.has(entry))
  })
}

/**
 * Records the checks of the locked monitors and returns those recorded: quiet ones (nearly all) in one insert and one
 * update, the rest one by one. A located check first moves its schedule row to the next slot, if its lease still holds.
 */
export async function recordLockedChecks (tx: Database, locked: Map<string, MonitorRow>, entries: CheckToRecord[]): Promise<CheckToRecord[]> {
  const claimed = entries.filter((entry) => entry.leaseUntil !== undefined && locked.has(entry.monitorId))
  const held = await rescheduleHeldSlots(tx, claimed.map(({ monitorId, result, leaseUntil }) => {
    const monitor = locked.get(monitorId)!
    return { monitorId, location: result.location!, leaseUntil: leaseUntil!, at: nextSlotAt(monitor.createdAt, monitor.intervalMinutes, result.checkedAt) }
  }))
  const recorded = entries.filter((entry) => locked.has(entry.monitorId) &&
    (entry.leaseUntil === undefined || held.has(heldSlotKey(entry.monitorId, entry.result.location!, entry.leaseUntil))))
  const byMonitor = new Map<string, CheckToRecord[]>()
  for (const entry of recorded) byMonitor.set(entry.monitorId, [...(byMonitor.get(entry.monitorId) ?? []), entry])
  const quietChecks: Array<{ monitorId: string, result: CheckResult }> = []
  const quietStates: Array<CheckState & { id: string }> = []
  for (const [monitorId, list] of byMonitor) {
    let monitor = locked.get(monitorId)!
    const folded = foldQuiet(monitor, list)
    if (folded) {
      quietChecks.push(...list.map((entry) => ({ monitorId, result: entry.result })))
      quietStates.push(stateOf(folded))
    } else {
      for (const entry of list) monitor = await recordEventfulCheck(tx, monitor, entry)
    }
  }
  // Sent together: on PostgreSQL they are pipelined in one round trip, which shortens the transaction.
  await Promise.all([insertCheckRows(tx, quietChecks), saveCheckStates(tx, quietStates)])
  return recorded
}

/** What a check does to its monitor: decideOutcome's verdict, the certificate reminder, and the row's new state. */
function decide (monitor: MonitorRow, { result, confirmDelayMs, nextCheckAt }: CheckToRecord) {
  const locationStates = withLocationCheck(monitor.locationStates, result)
  // A check of one of the monitor's locations moves its status by the quorum of their latest checks.
  const verdict = locationStates === monitor.locationStates ? null : quorumVerdict(quorumPolicyOf(monitor), locationStatesOf(locationStates), result.checkedAt)
  const outcome = verdict === null
    ? { ...decideOutcome(monitor, result, confirmDelayMs), cause: null }
    : quorumOutcome(monitor.status, verdict, monitor.intervalMinutes)
  const coverage = verdict === null ? null : { ...coverageTransition(monitor.locationCoverage, verdict), silent: verdict.silent }
  // The check's own time decides, not the wall clock's: a reminder is as of the check that saw the certificate.
  const reminder = result.tls
    ? tlsExpiryReminder({ expiresAt: monitor.tlsExpiresAt, toldDays: monitor.tlsExpiryToldDays }, result.tls.expiresAt, result.checkedAt)
    : null
  const row: MonitorRow = {
    ...monitor,
    status: outcome.status,
    consecutiveFailures: outcome.consecutiveFailures,
    consecutiveSuccesses: outcome.consecutiveSuccesses,
    consecutiveSlow: outcome.consecutiveSlow,
    lastCheckedAt: result.checkedAt,
    // A `pause` window keeps the monitor unscheduled; its end schedules it (src/maintenance/).
    nextCheckAt: monitor.maintenancePaused ? null : nextCheckAt ?? new Date(result.checkedAt.getTime() + outcome.nextCheckInMs),
    // The certificate as the latest HTTPS check saw it; a check that saw none (refused, timed out) leaves it.
    ...(result.tls && { tlsExpiresAt: result.tls.expiresAt, tlsIssuer: result.tls.issuer }),
    ...(reminder && { tlsExpiryToldDays: reminder.toldDays }),
    locationStates,
    ...(coverage && { locationCoverage: coverage.coverage }),
  }
  return { outcome, reminder, coverage, row, eventful: Boolean(outcome.incident || outcome.degradation || reminder?.tell || coverage?.event) }
}

/** The monitor's row after all its checks, when none of them changes an incident or tells anything; undefined otherwise. */
function foldQuiet (monitor: MonitorRow, list: CheckToRecord[]): MonitorRow | undefined {
  let row = monitor
  for (const entry of list) {
    const decided = decide(row, entry)
    if (decided.eventful) return undefined
    row = decided.row
  }
  return row
}

const stateOf = (row: MonitorRow): CheckState & { id: string } => ({
  id: row.id,
  status: row.status,
  consecutiveFailures: row.consecutiveFailures,
  consecutiveSuccesses: row.consecutiveSuccesses,
  consecutiveSlow: row.consecutiveSlow,
  lastCheckedAt: row.lastCheckedAt,
  nextCheckAt: row.nextCheckAt,
  tlsExpiresAt: row.tlsExpiresAt,
  tlsIssuer: row.tlsIssuer,
  tlsExpiryToldDays: row.tlsExpiryToldDays,
  locationStates: row.locationStates,
  locationCoverage: row.locationCoverage,
})

/** The monitor's location states with the check's location's entry made this check's; the same array when it has none. */
function withLocationCheck (states: LocationStateRecord[], result: CheckResult): LocationStateRecord[] {
  const index = states.findIndex((state) => state.location === result.location)
  if (index === -1) return states
  const state = { location: states[index].location, status: checkStatus(result), last_checked_at: result.checkedAt.toISOString(), error_message: result.errorMessage } as const
  return states.with(index, state)
}

async function recordEventfulCheck (tx: Database, monitor: MonitorRow, entry: CheckToRecord): Promise<MonitorRow> {
  const { monitorId, result } = entry
  const { outcome, reminder, coverage, row } = decide(monitor, entry)
  // The notifications quote the check by the id its column made (time-ordered, schema.ts).
  const checkId = await insertCheck(tx, monitorId, result)
  const { id: _, ...state } = stateOf(row)
  await saveCheckState(tx, monitorId, state)
  const told = () => ({
    orgId: monitor.orgId,
    monitor: toMonitor(row),
    check: toCheck({ id: checkId, monitorId, ...result }),
    at: result.checkedAt,
  })
  const opened = (kind: IncidentKind, first: Parameters<typeof incidentFrom>[1]) => ({ ...incidentFrom(kind, first), ...(outcome.cause !== null && { cause: outcome.cause }) })
  const tell = async (incident: IncidentRow | undefined) => {
    if (incident) await enqueueIncidentEvent(tx, { ...told(), incident })
  }
  // The first failing check of this run: where a down incident starts, and where the degraded one it ends stops.
  const firstFailing = outcome.incident === 'open' ? await nthNewestCheck(tx, monitorId, outcome.consecutiveFailures) : undefined
  // Resolve before open: at most one incident of either kind is open (incidents_one_open_idx).
  if (outcome.degradation === 'resolve') {
    await tell(await resolveOpenIncident(tx, monitorId, firstFailing?.checkedAt ?? result.checkedAt, 'degraded'))
  }
  if (outcome.incident === 'resolve') await tell(await resolveOpenIncident(tx, monitorId, result.checkedAt, 'down'))
  if (firstFailing) await tell(await openIncident(tx, monitorId, opened('down', firstFailing)))
  if (outcome.degradation === 'open') {
    // The first slow check of this run; after a recovery from down, this check (it was down until now).
    const first = await nthNewestCheck(tx, monitorId, outcome.incident === 'resolve' ? 1 : outcome.consecutiveSlow)
    await tell(await openIncident(tx, monitorId, opened('degraded', first)))
  }
  if (reminder?.tell) await enqueueTlsExpiringEvent(tx, told())
  if (coverage?.event) await enqueueCoverageEvent(tx, { ...told(), type: coverage.event, silent: coverage.silent })
  return row
}

/** A new incident of `kind`, as the check that started it says: its error is the cause. */
function incidentFrom (kind: IncidentKind, first: { errorMessage: string | null, statusCode: number | null, checkedAt: Date }) {
  return { kind, cause: first.errorMessage ?? (kind === 'down' ? 'check failed' : 'check slower than allowed'), statusCode: first.statusCode, startedAt: first.checkedAt }
}
