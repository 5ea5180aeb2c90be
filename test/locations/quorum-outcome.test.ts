// What a quorum's verdict does to a monitor (src/checks/outcome.ts quorumOutcome), for every status it can have and every
// verdict: the down incident opens and resolves on the edges of `down`, `degraded` opens none, a lost coverage keeps the status.
import t from 'tap'
import { quorumOutcome } from '../../src/checks/outcome.ts'
import { nextSlotAt, type QuorumVerdict } from '../../src/locations/quorum.ts'

const verdictOf = (status: 'up' | 'degraded' | 'down' | null): QuorumVerdict => {
  const tally = { quorum: 2, fresh: 3, failing: status === 'down' ? ['a', 'b'] : status === 'degraded' ? ['a'] : [], slow: [], silent: [] }
  return status === null ? { ...tally, fresh: 1, coverage: 'lost', status: null } : { ...tally, coverage: 'ok', status }
}

t.test('every status before, every verdict', async (t) => {
  const previous = ['pending', 'up', 'degraded', 'down'] as const
  const verdicts = ['up', 'degraded', 'down', null] as const
  for (const before of previous) {
    for (const verdict of verdicts) {
      const outcome = quorumOutcome(before, verdictOf(verdict), 5)
      const after = verdict ?? before
      const name = `${before} + ${verdict ?? 'coverage lost'}`
      t.equal(outcome.status, after, name)
      t.equal(outcome.incident, after === 'down' && before !== 'down' ? 'open' : before === 'down' && after !== 'down' ? 'resolve' : null, `${name}: down incident`)
      t.equal(outcome.degradation, before === 'degraded' && after !== 'degraded' ? 'resolve' : null, `${name}: a degraded incident is only resolved`)
      // recordEventfulCheck starts an opened incident at the nth newest check: this one.
      if (outcome.incident === 'open') t.equal(outcome.consecutiveFailures, 1)
      t.equal(outcome.nextCheckInMs, 5 * 60_000)
    }
  }
})

t.test('the cause names the failing locations', async (t) => {
  t.equal(quorumOutcome('up', verdictOf('down'), 1).cause, 'failing from a, b (2 of 3 locations)')
  t.equal(quorumOutcome('up', verdictOf('up'), 1).cause, null)
})

t.test('a location checks next at the start of the next slot, counted from the anchor', async (t) => {
  const anchor = new Date('2026-12-01T10:00:10.000Z')
  const at = (iso: string) => nextSlotAt(anchor, 5, new Date(iso)).toISOString()
  t.equal(at('2026-12-01T10:00:10.000Z'), '2026-12-01T10:05:10.000Z', 'checked at the slot\'s start')
  t.equal(at('2026-12-01T10:04:59.000Z'), '2026-12-01T10:05:10.000Z', 'checked late in the slot: the same next time')
  t.equal(at('2026-12-01T10:05:10.000Z'), '2026-12-01T10:10:10.000Z')
  t.equal(at('2026-12-01T11:02:00.000Z'), '2026-12-01T11:05:10.000Z', 'after missed slots: the next one, none twice')
})
