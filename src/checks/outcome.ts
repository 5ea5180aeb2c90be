// The rules of status and incidents, as one pure function: previous state + check result -> new state, and
// what happens to the monitor's two kinds of incident (down, degraded).
import type { MonitorStatus } from '../domain/vocabulary.ts'
import type { QuorumVerdict } from '../locations/quorum.ts'

export interface MonitorState {
  status: MonitorStatus
  consecutiveFailures: number
  /** Passes in a row that count towards leaving the current status: any pass while down, fast passes while degraded. */
  consecutiveSuccesses: number
  /** Passes in a row slower than the monitor allows (a fast pass or a failure resets it). */
  consecutiveSlow: number
  failureThreshold: number
  recoveryThreshold: number
  intervalMinutes: number
}

type IncidentAction = 'open' | 'resolve' | null

export interface Outcome {
  status: MonitorStatus
  consecutiveFailures: number
  consecutiveSuccesses: number
  consecutiveSlow: number
  nextCheckInMs: number
  /** The down incident: `open` starts it at the first failing check of the run, `resolve` ends it at this check. */
  incident: IncidentAction
  /** The degraded incident: `open` starts it at the run's first slow check (this one after a recovery from down); `resolve`
   * ends it here, or where a down incident starts, so that the two never overlap. A resolve comes before an open. */
  degradation: IncidentAction
}

/** What of a check's result decides: whether it passed, and whether it passed slower than allowed. */
export interface CheckVerdict {
  isUp: boolean
  /** Passed, but slower than the monitor allows (only meaningful when isUp). */
  degraded?: boolean
}

/** What a check said, as a status: `down` failed, `degraded` passed slower than allowed, `up` passed. */
export const checkStatus = (check: CheckVerdict): 'up' | 'degraded' | 'down' => !check.isUp ? 'down' : check.degraded ? 'degraded' : 'up'

/** Slow passes follow the rules of failure: `failure_threshold` in a row make `degraded`, `recovery_threshold` fast ones
 * make `up` again. Counts below a threshold are confirmed after `confirmDelayMs`, not a whole interval. While down,
 * every pass counts towards recovery, and the monitor comes back `degraded` when enough slow passes preceded. */
export function decideOutcome (state: MonitorState, check: CheckVerdict, confirmDelayMs: number): Outcome {
  const intervalMs = state.intervalMinutes * 60_000
  const confirmMs = Math.min(confirmDelayMs, intervalMs)
  const settled = { nextCheckInMs: intervalMs, incident: null, degradation: null }
  if (!check.isUp) {
    const failures = state.consecutiveFailures + 1
    const counters = { consecutiveFailures: failures, consecutiveSuccesses: 0, consecutiveSlow: 0 }
    if (state.status === 'down') return { ...settled, ...counters, status: 'down' }
    if (failures < state.failureThreshold) return { ...settled, ...counters, status: state.status, nextCheckInMs: confirmMs }
    return { ...settled, ...counters, status: 'down', incident: 'open', degradation: state.status === 'degraded' ? 'resolve' : null }
  }
  const slow = check.degraded ? state.consecutiveSlow + 1 : 0
  const slowEnough = slow > 0 && slow >= state.failureThreshold
  if (state.status === 'down') {
    const successes = state.consecutiveSuccesses + 1
    const counters = { consecutiveFailures: 0, consecutiveSuccesses: successes, consecutiveSlow: slow }
    if (successes < state.recoveryThreshold) return { ...settled, ...counters, status: 'down', nextCheckInMs: confirmMs }
    // Recovered: the degraded incident, if any, starts at this check (not earlier: it was down until now).
    if (slowEnough) return { ...settled, ...counters, consecutiveSuccesses: 0, status: 'degraded', incident: 'resolve', degradation: 'open' }
    return { ...settled, ...counters, status: 'up', incident: 'resolve' }
  }
  if (state.status === 'degraded') {
    // Only fast passes in a row count towards leaving `degraded`; a slow one starts the count again.
    const successes = slow > 0 ? 0 : state.consecutiveSuccesses + 1
    const counters = { consecutiveFailures: 0, consecutiveSuccesses: successes, consecutiveSlow: slow }
    if (slow > 0) return { ...settled, ...counters, status: 'degraded' }
    if (successes < state.recoveryThreshold) return { ...settled, ...counters, status: 'degraded', nextCheckInMs: confirmMs }
    return { ...settled, ...counters, status: 'up', degradation: 'resolve' }
  }
  // pending or up
  const counters = { consecutiveFailures: 0, consecutiveSuccesses: state.consecutiveSuccesses + 1, consecutiveSlow: slow }
  if (slowEnough) return { ...settled, ...counters, consecutiveSuccesses: 0, status: 'degraded', degradation: 'open' }
  return { ...settled, ...counters, status: 'up', nextCheckInMs: slow > 0 ? confirmMs : intervalMs }
}

/**
 * What a verdict does to a monitor whose status is `previous`, in decideOutcome's terms: the verdict's status (the previous
 * one while coverage is lost), the down incident opened or resolved on the edges of `down`. `degraded` (some locations fail,
 * fewer than the quorum) opens no incident; leaving it resolves one left from before. `cause` names the failing locations.
 */
export function quorumOutcome (previous: MonitorStatus, verdict: QuorumVerdict, intervalMinutes: number): Outcome & { cause: string | null } {
  const status = verdict.status ?? previous
  const incident = status === 'down' && previous !== 'down' ? 'open' : previous === 'down' && status !== 'down' ? 'resolve' : null
  const degradation = previous === 'degraded' && status !== 'degraded' ? 'resolve' : null
  const count = verdict.fresh + verdict.silent.length
  const cause = verdict.failing.length > 0 ? `failing from ${verdict.failing.join(', ')} (${verdict.failing.length} of ${count} locations)` : null
  return {
    status,
    consecutiveFailures: incident === 'open' ? 1 : 0,
    consecutiveSuccesses: 0,
    consecutiveSlow: 0,
    nextCheckInMs: intervalMinutes * 60_000,
    incident,
    degradation,
    cause,
  }
}
