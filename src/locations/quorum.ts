// The quorum of a monitor checked from several locations, as pure functions: its locations' latest states and the
// time -> its status, and the coverage events that follow. A silent location stops counting instead of voting with
// its last word, so a dead probe never reads as the site down or up.
import type { LocationCoverage, LocationStateRecord } from '../domain/locations.ts'
import type { ChannelEventType, MonitorStatus } from '../domain/vocabulary.ts'

/** Slack beyond two intervals before a silent location stops counting, and how far ahead of now a check may be stamped. */
export const QUORUM_GRACE_MS = 30_000

/** What a location's latest check said: `degraded` passed slower than the monitor allows; only `down` fails. */
export type LocationStatus = Extract<MonitorStatus, 'up' | 'degraded' | 'down'>

export interface QuorumPolicy {
  /** The monitor's location codes, at least one (duplicates count once); states of other locations are ignored. */
  locations: readonly string[]
  /** How many fresh locations must fail for `down`; null: a majority, floor(n/2)+1. Clamped to 1..n. */
  quorum: number | null
  intervalMinutes: number
}

export interface LocationState {
  location: string
  status: LocationStatus
  /** When its latest check ran, on the server's clock; null: never checked. */
  checkedAt: Date | null
}

/** What the verdict counted; the location codes come in the policy's order. */
interface Tally {
  /** The quorum applied: the policy's, clamped to 1..n, or the majority. */
  quorum: number
  /** How many of the monitor's locations count (fresh). */
  fresh: number
  /** Fresh locations whose latest check failed: the ones a `partial_outage` names. */
  failing: string[]
  /** Fresh locations whose latest check passed slowly. */
  slow: string[]
  /** The monitor's locations that do not count: silent past the stale time, never checked, or stamped too far ahead. */
  silent: string[]
}

/** `coverage: 'lost'` (fewer fresh locations than the quorum) decides no status: the caller keeps the one it has. */
export type QuorumVerdict = Tally & (
  | { coverage: 'ok', status: Extract<MonitorStatus, 'up' | 'degraded' | 'down'> }
  | { coverage: 'lost', status: null }
)

/** Of two states of one location stamped at the same instant, the worse one stands. */
const SEVERITY: Record<LocationStatus, number> = { down: 2, degraded: 1, up: 0 }

/**
 * The monitor's status from its locations' latest states at `now`. A state is fresh from two intervals plus 30 s before `now`
 * to 30 s after it (an agent's clock ahead); a location's newest fresh state stands. Fewer fresh locations than the quorum:
 * coverage lost, status null. Else `down` when at least the quorum fail; `degraded` when fewer fail (half of an even count is
 * no majority), or none fails and some pass slowly; else `up`. Throws a RangeError for a policy without locations.
 */
export function quorumVerdict (policy: QuorumPolicy, states: readonly LocationState[], now: Date): QuorumVerdict {
  const locations = [...new Set(policy.locations)]
  if (locations.length === 0) throw new RangeError('a quorum needs at least one location')
  const quorum = effectiveQuorum(policy.quorum, locations.length)
  const latest = new Map<string, { status: LocationStatus, at: number }>()
  for (const { location, status, checkedAt } of states) {
    if (checkedAt === null || !isFresh(policy.intervalMinutes, checkedAt, now)) continue
    const at = checkedAt.getTime()
    const kept = latest.get(location)
    if (kept && (kept.at > at || (kept.at === at && SEVERITY[kept.status] >= SEVERITY[status]))) continue
    latest.set(location, { status, at })
  }
  const withStatus = (status: LocationStatus) => locations.filter((code) => latest.get(code)?.status === status)
  const tally: Tally = {
    quorum,
    fresh: locations.filter((code) => latest.has(code)).length,
    failing: withStatus('down'),
    slow: withStatus('degraded'),
    silent: locations.filter((code) => !latest.has(code)),
  }
  // The failing are fresh, so a quorum of them always leaves coverage; below the quorum of fresh ones nothing is decided.
  if (tally.fresh < quorum) return { ...tally, coverage: 'lost', status: null }
  if (tally.failing.length >= quorum) return { ...tally, coverage: 'ok', status: 'down' }
  if (tally.failing.length > 0 || tally.slow.length > 0) return { ...tally, coverage: 'ok', status: 'degraded' }
  return { ...tally, coverage: 'ok', status: 'up' }
}

/** Whether a check made at `checkedAt` counts toward a quorum at `now`: from two intervals plus 30 s before to 30 s after. */
export function isFresh (intervalMinutes: number, checkedAt: Date, now: Date): boolean {
  const at = checkedAt.getTime()
  return at >= now.getTime() - 2 * intervalMinutes * 60_000 - QUORUM_GRACE_MS && at <= now.getTime() + QUORUM_GRACE_MS
}

/** A monitor's quorum policy, from its row's columns. */
export const quorumPolicyOf = (monitor: { locations: readonly string[], locationQuorum: number | null, intervalMinutes: number }): QuorumPolicy =>
  ({ locations: monitor.locations, quorum: monitor.locationQuorum, intervalMinutes: monitor.intervalMinutes })

/** The configured quorum held to 1..count (the API validates it; a location removed since may leave it too large). */
export function effectiveQuorum (quorum: number | null, count: number): number {
  const wanted = quorum === null || !Number.isFinite(quorum) ? Math.floor(count / 2) + 1 : Math.ceil(quorum)
  return Math.min(count, Math.max(1, wanted))
}

/** Coverage as the monitor keeps it between verdicts: `pending` until it first had a quorum of fresh locations. */
export type Coverage = LocationCoverage

export type CoverageEvent = Extract<ChannelEventType, `location.${string}`>

/**
 * The monitor's coverage after a verdict, and the event to send: `location.coverage_lost` on the edge from `ok` to lost,
 * `location.coverage_restored` on the edge back, nothing otherwise. A `pending` monitor (new, or resumed: the caller resets
 * it) sends neither: its locations' first checks arriving one by one are no loss.
 */
export function coverageTransition (previous: Coverage, verdict: Pick<QuorumVerdict, 'coverage'>): { coverage: Coverage, event: CoverageEvent | null } {
  if (verdict.coverage === 'ok') return { coverage: 'ok', event: previous === 'lost' ? 'location.coverage_restored' : null }
  if (previous === 'pending') return { coverage: 'pending', event: null }
  return { coverage: 'lost', event: previous === 'ok' ? 'location.coverage_lost' : null }
}

/** A monitor's `location_states` as the verdict reads them: a location not checked yet is not counted. */
export function locationStatesOf (records: readonly LocationStateRecord[]): LocationState[] {
  return records.flatMap((record) => record.status === 'pending' || record.last_checked_at === null
    ? []
    : [{ location: record.location, status: record.status, checkedAt: new Date(record.last_checked_at) }])
}

/** When a location checks next: the start of the monitor's next slot (intervals from `anchor`), so its locations check together. */
export function nextSlotAt (anchor: Date, intervalMinutes: number, checkedAt: Date): Date {
  return new Date(slotStartAt(anchor, intervalMinutes, checkedAt).getTime() + intervalMinutes * 60_000)
}

/** The start of the monitor's slot (intervals from `anchor`) that holds `at`. */
export function slotStartAt (anchor: Date, intervalMinutes: number, at: Date): Date {
  const intervalMs = intervalMinutes * 60_000
  return new Date(anchor.getTime() + Math.floor((at.getTime() - anchor.getTime()) / intervalMs) * intervalMs)
}
