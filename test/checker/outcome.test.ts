// The status and incident rules, exhaustively, without a database or a clock.
import t from 'tap'
import { decideOutcome, type CheckVerdict, type MonitorState } from '../../src/checker/outcome.ts'
import type { MonitorStatus } from '../../src/domain/vocabulary.ts'

const CONFIRM = 30_000
const state = (overrides: Partial<MonitorState> = {}): MonitorState => ({
  status: 'pending', consecutiveFailures: 0, consecutiveSuccesses: 0, failureThreshold: 2, recoveryThreshold: 1, intervalMinutes: 5, ...overrides,
})
const UP: CheckVerdict = { isUp: true }
const DEGRADED: CheckVerdict = { isUp: true, degraded: true }
const DOWN: CheckVerdict = { isUp: false }

t.test('every state, threshold and result', async (t) => {
  for (const status of ['pending', 'up', 'degraded', 'down'] as MonitorStatus[]) {
    for (let failureThreshold = 1; failureThreshold <= 10; failureThreshold++) {
      for (let recoveryThreshold = 1; recoveryThreshold <= 10; recoveryThreshold++) {
        for (let failures = 0; failures <= 10; failures++) {
          const s = state({ status, failureThreshold, recoveryThreshold, consecutiveFailures: failures })
          for (const failing of [DOWN, { isUp: false, degraded: true }]) {
            const fail = decideOutcome(s, failing, CONFIRM)
            t.equal(fail.consecutiveFailures, failures + 1)
            t.equal(fail.consecutiveSuccesses, 0)
            if (status === 'down') {
              t.same([fail.status, fail.incident, fail.nextCheckInMs], ['down', null, 300_000])
            } else if (failures + 1 >= failureThreshold) {
              t.same([fail.status, fail.incident, fail.nextCheckInMs], ['down', 'open', 300_000])
            } else {
              t.same([fail.status, fail.incident, fail.nextCheckInMs], [status, null, CONFIRM])
            }
          }
          const successes = failures // reuse the loop for success counts
          // A degraded check is a success like an up one: only the status it leads to differs.
          for (const [passing, passed] of [[UP, 'up'], [DEGRADED, 'degraded']] as const) {
            const ok = decideOutcome(state({ status, failureThreshold, recoveryThreshold, consecutiveSuccesses: successes }), passing, CONFIRM)
            t.equal(ok.consecutiveFailures, 0)
            t.equal(ok.consecutiveSuccesses, successes + 1)
            if (status !== 'down') {
              t.same([ok.status, ok.incident, ok.nextCheckInMs], [passed, null, 300_000])
            } else if (successes + 1 >= recoveryThreshold) {
              t.same([ok.status, ok.incident, ok.nextCheckInMs], [passed, 'resolve', 300_000])
            } else {
              t.same([ok.status, ok.incident, ok.nextCheckInMs], ['down', null, CONFIRM])
            }
          }
        }
      }
    }
  }
})

/** The statuses (with the incident action) a run of results walks through. */
function walk (checks: CheckVerdict[], from: Partial<MonitorState> = {}): string[] {
  let s = state({ failureThreshold: 3, recoveryThreshold: 2, ...from })
  return checks.map((check) => {
    const o = decideOutcome(s, check, CONFIRM)
    s = { ...s, status: o.status, consecutiveFailures: o.consecutiveFailures, consecutiveSuccesses: o.consecutiveSuccesses }
    return `${o.status}${o.incident ? `:${o.incident}` : ''}`
  })
}

t.test('a run of results walks pending -> up -> down -> up with one open and one resolve', async (t) => {
  const run = [true, false, false, true, false, false, false, false, true, true, true].map((isUp) => ({ isUp }))
  t.same(walk(run), ['up', 'up', 'up', 'up', 'up', 'up', 'down:open', 'down', 'down', 'up:resolve', 'up'])
})

t.test('degraded: slow checks make it degraded, a fast one up again, without incidents', async (t) => {
  t.same(walk([DEGRADED, DEGRADED, UP, DEGRADED, UP]), ['degraded', 'degraded', 'up', 'degraded', 'up'])
  t.same(walk([DEGRADED, DOWN, DOWN, DEGRADED]), ['degraded', 'degraded', 'degraded', 'degraded'], 'failures below the threshold keep it degraded')
  t.same(walk([DEGRADED, DOWN, DOWN, DOWN]), ['degraded', 'degraded', 'degraded', 'down:open'], 'a degraded monitor goes down like an up one')
})

t.test('degraded checks count towards recovery; the recovered status is the last check\'s', async (t) => {
  const down = { status: 'down' as const, consecutiveFailures: 3 }
  t.same(walk([DEGRADED, DEGRADED, UP], down), ['down', 'degraded:resolve', 'up'])
  t.same(walk([UP, DEGRADED, DEGRADED], down), ['down', 'degraded:resolve', 'degraded'])
  t.same(walk([DEGRADED, UP], down), ['down', 'up:resolve'])
  t.same(walk([DEGRADED, DOWN, DEGRADED, DEGRADED], down), ['down', 'down', 'down', 'degraded:resolve'], 'a failure restarts the count')
})

t.test('the confirmation delay never exceeds the interval', async (t) => {
  const o = decideOutcome(state({ intervalMinutes: 1 }), DOWN, 120_000)
  t.equal(o.nextCheckInMs, 60_000)
})
