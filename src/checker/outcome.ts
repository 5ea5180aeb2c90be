// The rules of status and incidents, as one pure function: previous state + check result -> new state, and
// what happens to the monitor's two kinds of incident (down, degraded).
import type { MonitorStatus } from '../domain/vocabulary.ts'

export interface MonitorState {
  status: MonitorStatus
  consecutiveFailures: number
  /** Passes in a row that count towards leaving the current status: any pass while down, fast passes while degraded. */
  consecutiveSuccesses: number
  /** Passes in a row slower than degraded_after_ms (a fast pass or a failure resets it). */
  consecutiveSlow: number
  failureThreshold: number
  recoveryThreshold: number
  intervalMinutes: number
}

/** Open an incident, resolve the open one, or leave it. */
type IncidentAction = 'open' | 'resolve' | null

export interface Outcome {
  status: MonitorStatus
  consecutiveFailures: number
  consecutiveSuccesses: number
  consecutiveSlow: number
  /** Milliseconds after this check until the next one. */
  nextCheckInMs: number
  /**
   * The down incident. `open`: it starts at the first failing check of the current run (the
   * `consecutiveFailures`-th newest check); `resolve`: it ends at this check.
   */
  incident: IncidentAction
  /**
   * The degraded incident. `open`: it starts at the first slow check of the current run (the
   * `consecutiveSlow`-th newest check; this very check when a recovery from down opens it); `resolve`:
   * it ends at this check, or, when the monitor goes down (`incident` is `open` too), at the first failing
   * check, where the down incident starts, so the two never overlap. A resolve is always done before an open.
   */
  degradation: IncidentAction
}

/** What of a check's result decides: whether it passed, and whether it passed slower than allowed. */
export interface CheckVerdict {
  isUp: boolean
  /** Passed, but slower than the monitor's degraded_after_ms (only meaningful when isUp). */
  degraded?: boolean
}

/**
 * Slowness follows the rules of failure: `failure_threshold` slow passes in a row make a monitor `degraded`
 * (below it, it is `up` and the next check comes after `confirmDelayMs`), and `recovery_threshold` fast
 * passes in a row make it `up` again. Failures below the threshold are confirmed after `confirmDelayMs`
 * rather than a whole interval, and so are passes that have not yet reached the recovery threshold of a
 * monitor that is down or degraded. While down, every pass (slow or fast) counts towards recovery; the
 * monitor then comes back `degraded` when this check is slow and enough slow passes preceded it.
 */
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
