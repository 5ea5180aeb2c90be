// The rules of status and incidents, as one pure function: previous state + check result -> new state.
import type { MonitorStatus } from '../domain/vocabulary.ts'

export interface MonitorState {
  status: MonitorStatus
  consecutiveFailures: number
  consecutiveSuccesses: number
  failureThreshold: number
  recoveryThreshold: number
  intervalMinutes: number
}

export interface Outcome {
  status: MonitorStatus
  consecutiveFailures: number
  consecutiveSuccesses: number
  /** Milliseconds after this check until the next one. */
  nextCheckInMs: number
  /**
   * `open`: open an incident that starts at the first failing check of the current run (the
   * `consecutiveFailures`-th newest check); `resolve`: resolve the open incident at this check.
   */
  incident: 'open' | 'resolve' | null
}

/** What of a check's result decides: whether it passed, and whether it passed slower than allowed. */
export interface CheckVerdict {
  isUp: boolean
  /** Passed, but slower than the monitor's degraded_after_ms (only meaningful when isUp). */
  degraded?: boolean
}

/**
 * Failures below the threshold are confirmed after `confirmDelayMs` rather than a whole interval, and so
 * are successes that have not yet reached the recovery threshold of a monitor that is down. A degraded
 * check is a success like any other (it counts towards recovery); only the status it leads to is
 * `degraded` where it would be `up`.
 */
export function decideOutcome (state: MonitorState, check: CheckVerdict, confirmDelayMs: number): Outcome {
  const intervalMs = state.intervalMinutes * 60_000
  const confirmMs = Math.min(confirmDelayMs, intervalMs)
  if (check.isUp) {
    const up: MonitorStatus = check.degraded ? 'degraded' : 'up'
    const successes = state.consecutiveSuccesses + 1
    if (state.status !== 'down') {
      return { status: up, consecutiveFailures: 0, consecutiveSuccesses: successes, nextCheckInMs: intervalMs, incident: null }
    }
    const recovered = successes >= state.recoveryThreshold
    return {
      status: recovered ? up : 'down',
      consecutiveFailures: 0,
      consecutiveSuccesses: successes,
      nextCheckInMs: recovered ? intervalMs : confirmMs,
      incident: recovered ? 'resolve' : null,
    }
  }
  const failures = state.consecutiveFailures + 1
  if (state.status === 'down') {
    return { status: 'down', consecutiveFailures: failures, consecutiveSuccesses: 0, nextCheckInMs: intervalMs, incident: null }
  }
  const confirmed = failures >= state.failureThreshold
  return {
    status: confirmed ? 'down' : state.status,
    consecutiveFailures: failures,
    consecutiveSuccesses: 0,
    nextCheckInMs: confirmed ? intervalMs : confirmMs,
    incident: confirmed ? 'open' : null,
  }
}
