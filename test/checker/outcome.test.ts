// The status and incident rules, exhaustively, without a database or a clock.
import t from 'tap'
import { decideOutcome, type MonitorState } from '../../src/checker/outcome.ts'
import type { MonitorStatus } from '../../src/domain/vocabulary.ts'

const CONFIRM = 30_000
const state = (overrides: Partial<MonitorState> = {}): MonitorState => ({
  status: 'pending', consecutiveFailures: 0, consecutiveSuccesses: 0, failureThreshold: 2, recoveryThreshold: 1, intervalMinutes: 5, ...overrides,
})

t.test('every state, threshold and result', async (t) => {
  for (const status of ['pending', 'up', 'down'] as MonitorStatus[]) {
    for (let failureThreshold = 1; failureThreshold <= 10; failureThreshold++) {
      for (let recoveryThreshold = 1; recoveryThreshold <= 10; recoveryThreshold++) {
        for (let failures = 0; failures <= 10; failures++) {
          const s = state({ status, failureThreshold, recoveryThreshold, consecutiveFailures: failures })
          const fail = decideOutcome(s, false, CONFIRM)
          t.equal(fail.consecutiveFailures, failures + 1)
          t.equal(fail.consecutiveSuccesses, 0)
          if (status === 'down') {
            t.same([fail.status, fail.incident, fail.nextCheckInMs], ['down', null, 300_000])
          } else if (failures + 1 >= failureThreshold) {
            t.same([fail.status, fail.incident, fail.nextCheckInMs], ['down', 'open', 300_000])
          } else {
            t.same([fail.status, fail.incident, fail.nextCheckInMs], [status, null, CONFIRM])
          }
          const successes = failures // reuse the loop for success counts
          const ok = decideOutcome(state({ status, failureThreshold, recoveryThreshold, consecutiveSuccesses: successes }), true, CONFIRM)
          t.equal(ok.consecutiveFailures, 0)
          t.equal(ok.consecutiveSuccesses, successes + 1)
          if (status !== 'down') {
            t.same([ok.status, ok.incident, ok.nextCheckInMs], ['up', null, 300_000])
          } else if (successes + 1 >= recoveryThreshold) {
            t.same([ok.status, ok.incident, ok.nextCheckInMs], ['up', 'resolve', 300_000])
          } else {
            t.same([ok.status, ok.incident, ok.nextCheckInMs], ['down', null, CONFIRM])
          }
        }
      }
    }
  }
})

t.test('a run of results walks pending -> up -> down -> up with one open and one resolve', async (t) => {
  let s = state({ failureThreshold: 3, recoveryThreshold: 2 })
  const seen: string[] = []
  for (const isUp of [true, false, false, true, false, false, false, false, true, true, true]) {
    const o = decideOutcome(s, isUp, CONFIRM)
    seen.push(`${o.status}${o.incident ? `:${o.incident}` : ''}`)
    s = { ...s, status: o.status, consecutiveFailures: o.consecutiveFailures, consecutiveSuccesses: o.consecutiveSuccesses }
  }
  t.same(seen, ['up', 'up', 'up', 'up', 'up', 'up', 'down:open', 'down', 'down', 'up:resolve', 'up'])
})

t.test('the confirmation delay never exceeds the interval', async (t) => {
  const o = decideOutcome(state({ intervalMinutes: 1 }), false, 120_000)
  t.equal(o.nextCheckInMs, 60_000)
})
