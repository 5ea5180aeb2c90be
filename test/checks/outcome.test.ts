// The status and incident rules (down and degraded incidents), exhaustively, without a database or a clock.
import t from 'tap'
import { decideOutcome, type CheckVerdict, type MonitorState, type Outcome } from '../../src/checks/outcome.ts'
import type { MonitorStatus } from '../../src/domain/vocabulary.ts'

const CONFIRM = 30_000
const INTERVAL = 300_000
const state = (overrides: Partial<MonitorState> = {}): MonitorState => ({
  status: 'pending',
  consecutiveFailures: 0,
  consecutiveSuccesses: 0,
  consecutiveSlow: 0,
  failureThreshold: 2,
  recoveryThreshold: 1,
  intervalMinutes: 5,
  ...overrides,
})
const UP: CheckVerdict = { isUp: true }
const SLOW: CheckVerdict = { isUp: true, degraded: true }
const DOWN: CheckVerdict = { isUp: false }
const STATUSES: MonitorStatus[] = ['pending', 'up', 'degraded', 'down']

/** What the test reads of an outcome: status, the two actions, when the next check comes. */
const seen = (o: Outcome) => [o.status, o.incident, o.degradation, o.nextCheckInMs]

t.test('a failure: counted; down at the threshold (a degraded incident resolves there too); the status kept below it', async (t) => {
  for (const status of STATUSES) {
    for (let failureThreshold = 1; failureThreshold <= 6; failureThreshold++) {
      for (let failures = 0; failures <= 6; failures++) {
        const s = state({ status, failureThreshold, consecutiveFailures: failures, consecutiveSuccesses: 3, consecutiveSlow: 4 })
        // A failing check's `degraded` means nothing: it failed.
        for (const failing of [DOWN, { isUp: false, degraded: true }]) {
          const o = decideOutcome(s, failing, CONFIRM)
          t.same([o.consecutiveFailures, o.consecutiveSuccesses, o.consecutiveSlow], [failures + 1, 0, 0])
          if (status === 'down') {
            t.same(seen(o), ['down', null, null, INTERVAL])
          } else if (failures + 1 >= failureThreshold) {
            t.same(seen(o), ['down', 'open', status === 'degraded' ? 'resolve' : null, INTERVAL])
          } else {
            t.same(seen(o), [status, null, null, CONFIRM], 'below the threshold: a degraded monitor stays degraded')
          }
        }
      }
    }
  }
})

t.test('a pass while down: slow and fast count towards recovery; back degraded when this one is slow after enough slow ones', async (t) => {
  for (let failureThreshold = 1; failureThreshold <= 5; failureThreshold++) {
    for (let recoveryThreshold = 1; recoveryThreshold <= 5; recoveryThreshold++) {
      for (let successes = 0; successes <= 5; successes++) {
        for (let slow = 0; slow <= 5; slow++) {
          const s = state({ status: 'down', failureThreshold, recoveryThreshold, consecutiveFailures: 0, consecutiveSuccesses: successes, consecutiveSlow: slow })
          const fast = decideOutcome(s, UP, CONFIRM)
          t.same([fast.consecutiveFailures, fast.consecutiveSuccesses, fast.consecutiveSlow], [0, successes + 1, 0])
          const slowPass = decideOutcome(s, SLOW, CONFIRM)
          const recovered = successes + 1 >= recoveryThreshold
          if (!recovered) {
            t.same(seen(fast), ['down', null, null, CONFIRM])
            t.same(seen(slowPass), ['down', null, null, CONFIRM])
            t.same([slowPass.consecutiveSuccesses, slowPass.consecutiveSlow], [successes + 1, slow + 1])
            continue
          }
          t.same(seen(fast), ['up', 'resolve', null, INTERVAL])
          if (slow + 1 >= failureThreshold) {
            t.same(seen(slowPass), ['degraded', 'resolve', 'open', INTERVAL])
            t.same([slowPass.consecutiveSuccesses, slowPass.consecutiveSlow], [0, slow + 1], 'the fast count starts with the degraded incident')
          } else {
            t.same(seen(slowPass), ['up', 'resolve', null, INTERVAL])
            t.same([slowPass.consecutiveSuccesses, slowPass.consecutiveSlow], [successes + 1, slow + 1])
          }
        }
      }
    }
  }
})

t.test('a slow pass while pending or up: up and confirmed soon below the threshold; degraded with its incident at it', async (t) => {
  for (const status of ['pending', 'up'] as MonitorStatus[]) {
    for (let failureThreshold = 1; failureThreshold <= 6; failureThreshold++) {
      for (let slow = 0; slow <= 6; slow++) {
        const o = decideOutcome(state({ status, failureThreshold, consecutiveSuccesses: 2, consecutiveSlow: slow }), SLOW, CONFIRM)
        t.same([o.consecutiveFailures, o.consecutiveSlow], [0, slow + 1])
        if (slow + 1 >= failureThreshold) {
          t.same(seen(o), ['degraded', null, 'open', INTERVAL])
          t.equal(o.consecutiveSuccesses, 0)
        } else {
          t.same(seen(o), ['up', null, null, CONFIRM])
          t.equal(o.consecutiveSuccesses, 3)
        }
        const fast = decideOutcome(state({ status, failureThreshold, consecutiveSuccesses: 2, consecutiveSlow: slow }), UP, CONFIRM)
        t.same(seen(fast), ['up', null, null, INTERVAL])
        t.same([fast.consecutiveSuccesses, fast.consecutiveSlow], [3, 0], 'a fast pass resets the slow count')
      }
    }
  }
})

t.test('while degraded: a slow pass restarts the fast count; recovery_threshold fast passes in a row resolve it', async (t) => {
  for (let recoveryThreshold = 1; recoveryThreshold <= 6; recoveryThreshold++) {
    for (let successes = 0; successes <= 6; successes++) {
      const s = state({ status: 'degraded', recoveryThreshold, consecutiveSuccesses: successes, consecutiveSlow: successes ? 0 : 3 })
      const slow = decideOutcome(s, SLOW, CONFIRM)
      t.same(seen(slow), ['degraded', null, null, INTERVAL])
      t.same([slow.consecutiveSuccesses, slow.consecutiveSlow], [0, s.consecutiveSlow + 1])
      const fast = decideOutcome(s, UP, CONFIRM)
      t.same([fast.consecutiveFailures, fast.consecutiveSuccesses, fast.consecutiveSlow], [0, successes + 1, 0])
      if (successes + 1 >= recoveryThreshold) {
        t.same(seen(fast), ['up', null, 'resolve', INTERVAL])
      } else {
        t.same(seen(fast), ['degraded', null, null, CONFIRM])
      }
    }
  }
})

/** The statuses (with the actions: `down` incident, `slow` the degraded one) a run of results walks through. */
function walk (checks: CheckVerdict[], from: Partial<MonitorState> = {}): string[] {
  let s = state({ failureThreshold: 3, recoveryThreshold: 2, ...from })
  return checks.map((check) => {
    const o = decideOutcome(s, check, CONFIRM)
    s = { ...s, status: o.status, consecutiveFailures: o.consecutiveFailures, consecutiveSuccesses: o.consecutiveSuccesses, consecutiveSlow: o.consecutiveSlow }
    return [o.status, o.incident && `down:${o.incident}`, o.degradation && `slow:${o.degradation}`].filter(Boolean).join(' ')
  })
}

t.test('a run of results walks pending -> up -> down -> up with one open and one resolve', async (t) => {
  const run = [true, false, false, true, false, false, false, false, true, true, true].map((isUp) => ({ isUp }))
  t.same(walk(run), ['up', 'up', 'up', 'up', 'up', 'up', 'down down:open', 'down', 'down', 'up down:resolve', 'up'])
})

t.test('threshold 1: one slow pass makes it degraded, one fast one up again', async (t) => {
  const one = { failureThreshold: 1, recoveryThreshold: 1 }
  t.same(walk([SLOW, SLOW, UP, SLOW, UP], one), ['degraded slow:open', 'degraded', 'up slow:resolve', 'degraded slow:open', 'up slow:resolve'])
  t.same(walk([SLOW, DOWN, SLOW], one), ['degraded slow:open', 'down down:open slow:resolve', 'degraded down:resolve slow:open'])
  t.same(walk([SLOW, DOWN, UP], one), ['degraded slow:open', 'down down:open slow:resolve', 'up down:resolve'])
})

t.test('thresholds above 1: slow passes below the threshold keep it up; a fast one breaks the run', async (t) => {
  t.same(walk([SLOW, SLOW, UP, SLOW, SLOW, SLOW, SLOW]), ['up', 'up', 'up', 'up', 'up', 'degraded slow:open', 'degraded'])
  t.same(walk([SLOW, DOWN, SLOW, SLOW]), ['up', 'up', 'up', 'up'], 'a failure breaks the slow run too')
})

t.test('degraded -> up: recovery_threshold fast passes in a row; a slow one between starts again', async (t) => {
  const degraded = { status: 'degraded' as const, consecutiveSlow: 3 }
  t.same(walk([UP, SLOW, UP, UP, UP], degraded), ['degraded', 'degraded', 'degraded', 'up slow:resolve', 'up'])
  t.same(walk([UP, DOWN, UP, UP], degraded), ['degraded', 'degraded', 'degraded', 'up slow:resolve'], 'a failure below the threshold breaks the fast run')
})

t.test('degraded -> down: the down incident opens and the degraded one resolves, in one check', async (t) => {
  t.same(walk([SLOW, SLOW, SLOW, DOWN, DOWN, DOWN, DOWN]), [
    'up', 'up', 'degraded slow:open', 'degraded', 'degraded', 'down down:open slow:resolve', 'down',
  ])
})

t.test('down -> degraded: recovered by slow passes, back degraded only once the slow run reaches the threshold', async (t) => {
  const down = { status: 'down' as const, consecutiveFailures: 3 }
  t.same(walk([SLOW, SLOW, UP], down), ['down', 'up down:resolve', 'up'], 'two slow passes of three: recovered, up')
  t.same(walk([SLOW, SLOW, SLOW], { ...down, recoveryThreshold: 3 }), ['down', 'down', 'degraded down:resolve slow:open'])
  t.same(walk([SLOW, SLOW, UP, SLOW], { ...down, recoveryThreshold: 4 }), ['down', 'down', 'down', 'up down:resolve'], 'a fast pass broke the slow run')
  t.same(walk([SLOW, DOWN, SLOW, SLOW], down), ['down', 'down', 'down', 'up down:resolve'], 'a failure restarts both counts')
})

t.test('the confirmation delay never exceeds the interval', async (t) => {
  t.equal(decideOutcome(state({ intervalMinutes: 1 }), DOWN, 120_000).nextCheckInMs, 60_000)
  t.equal(decideOutcome(state({ intervalMinutes: 1, status: 'up' }), SLOW, 120_000).nextCheckInMs, 60_000)
})
