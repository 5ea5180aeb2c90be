// The quorum of a multi-location monitor and its coverage events: the scenarios as examples, then properties over
// random policies, interleavings of per-location results and clocks, checked against a restatement of the rule here.
import assert from 'node:assert/strict'
import t from 'tap'
import fc from 'fast-check'
import { coverageTransition, quorumVerdict, type Coverage, type CoverageEvent, type LocationState, type LocationStatus, type QuorumPolicy, type QuorumVerdict } from '../../src/locations/quorum.ts'

const NOW = new Date('2026-03-01T12:00:00Z')
const MINUTE = 60_000
const ago = (ms: number, from = NOW) => new Date(from.getTime() - ms)
const policy = (overrides: Partial<QuorumPolicy> = {}): QuorumPolicy => ({ locations: ['ams', 'nyc', 'sgp'], quorum: null, intervalMinutes: 1, ...overrides })
const state = (location: string, status: LocationStatus, checkedAt: Date | null = ago(10_000)): LocationState => ({ location, status, checkedAt })
/** The states of the three default locations, each checked 10 s ago. */
const three = (ams: LocationStatus, nyc: LocationStatus, sgp: LocationStatus) => [state('ams', ams), state('nyc', nyc), state('sgp', sgp)]

t.test('the issue\'s scenarios: one of three failing is degraded and names it; two of three are down', async (t) => {
  t.match(quorumVerdict(policy(), three('up', 'up', 'up'), NOW), { coverage: 'ok', status: 'up', quorum: 2, fresh: 3, failing: [], silent: [] })
  t.match(quorumVerdict(policy(), three('up', 'down', 'up'), NOW), { coverage: 'ok', status: 'degraded', failing: ['nyc'] })
  t.match(quorumVerdict(policy(), three('down', 'up', 'down'), NOW), { coverage: 'ok', status: 'down', failing: ['ams', 'sgp'] })
  t.match(quorumVerdict(policy(), three('down', 'down', 'down'), NOW), { status: 'down', failing: ['ams', 'nyc', 'sgp'] })
  t.match(quorumVerdict(policy({ quorum: 1 }), three('up', 'down', 'up'), NOW), { status: 'down' }, 'a quorum of one: any failing location')
  t.match(quorumVerdict(policy({ quorum: 3 }), three('down', 'up', 'down'), NOW), { status: 'degraded' }, 'a quorum of three: two are not enough')
  t.match(quorumVerdict(policy(), three('up', 'degraded', 'up'), NOW), { status: 'degraded', failing: [], slow: ['nyc'] }, 'a slow pass somewhere')
  t.match(quorumVerdict(policy(), three('degraded', 'down', 'degraded'), NOW), { status: 'degraded', failing: ['nyc'] })
})

t.test('a killed agent leaves the count after two intervals plus 30 s; the rest still decide', async (t) => {
  const lastCheck = new Date(NOW.getTime() - 10 * MINUTE)
  const staleAt = lastCheck.getTime() + 2 * 5 * MINUTE + 30_000
  const states = (at: Date) => [state('ams', 'down', lastCheck), state('nyc', 'down', ago(5_000, at)), state('sgp', 'up', ago(5_000, at))]
  const p = policy({ intervalMinutes: 5 })
  t.match(quorumVerdict(p, states(new Date(staleAt)), new Date(staleAt)), { fresh: 3, status: 'down', failing: ['ams', 'nyc'] }, 'still counts at the limit')
  t.match(quorumVerdict(p, states(new Date(staleAt + 1)), new Date(staleAt + 1)), { fresh: 2, status: 'degraded', failing: ['nyc'], silent: ['ams'] },
    'gone a millisecond later: its last failure no longer votes')
})

t.test('two killed agents of three: coverage lost, the status kept, coverage_lost once and coverage_restored once', async (t) => {
  const p = policy({ intervalMinutes: 1 })
  let coverage: Coverage = 'ok'
  const events: Array<CoverageEvent | null> = []
  const verdicts: QuorumVerdict[] = []
  // ams and nyc go silent at 0; sgp keeps checking every minute; ams comes back at 10 minutes.
  for (let minute = 1; minute <= 12; minute++) {
    const now = new Date(NOW.getTime() + minute * MINUTE)
    const amsAt = minute >= 10 ? ago(1_000, now) : NOW
    const verdict = quorumVerdict(p, [state('ams', 'up', amsAt), state('nyc', 'up', NOW), state('sgp', 'down', ago(1_000, now))], now)
    const next = coverageTransition(coverage, verdict)
    coverage = next.coverage
    events.push(next.event)
    verdicts.push(verdict)
  }
  t.same(verdicts.map((v) => v.status), [
    'degraded', 'degraded', // both silent ones still count for two minutes and 30 s
    null, null, null, null, null, null, null, // one fresh location of a quorum of two: keep the status
    'degraded', 'degraded', 'degraded'])
  t.same(verdicts[2].silent, ['ams', 'nyc'])
  t.same(verdicts[2].failing, ['sgp'], 'the failing location is still named while coverage is lost')
  t.same(events.filter(Boolean), ['location.coverage_lost', 'location.coverage_restored'])
  t.equal(events[2], 'location.coverage_lost')
  t.equal(events[9], 'location.coverage_restored')
})

t.test('clocks: a check stamped up to 30 s ahead counts (an agent 5 s ahead); further ahead, it does not', async (t) => {
  const ahead = (ms: number) => [state('ams', 'down', new Date(NOW.getTime() + ms)), state('nyc', 'down'), state('sgp', 'up')]
  t.match(quorumVerdict(policy(), ahead(5_000), NOW), { fresh: 3, status: 'down' })
  t.match(quorumVerdict(policy(), ahead(30_000), NOW), { fresh: 3, status: 'down' })
  t.match(quorumVerdict(policy(), ahead(30_001), NOW), { fresh: 2, status: 'degraded', silent: ['ams'] })
  t.match(quorumVerdict(policy(), [state('ams', 'down', null), state('nyc', 'up'), state('sgp', 'up')], NOW), { fresh: 2, status: 'up', silent: ['ams'] },
    'never checked')
})

t.test('one location\'s states: the newest fresh one stands; at the same instant, the worse one', async (t) => {
  const p = policy({ locations: ['ams'], quorum: 1 })
  t.match(quorumVerdict(p, [state('ams', 'down', ago(20_000)), state('ams', 'up', ago(10_000))], NOW), { status: 'up' })
  t.match(quorumVerdict(p, [state('ams', 'up', ago(10_000)), state('ams', 'down', ago(20_000))], NOW), { status: 'up' })
  t.match(quorumVerdict(p, [state('ams', 'up'), state('ams', 'down'), state('ams', 'degraded')], NOW), { status: 'down' })
  t.match(quorumVerdict(p, [state('ams', 'down', ago(10_000)), state('ams', 'up', new Date(NOW.getTime() + MINUTE))], NOW), { status: 'down' },
    'a newer state stamped too far ahead does not stand')
  t.match(quorumVerdict(p, [state('lhr', 'down'), state('ams', 'up')], NOW), { status: 'up', fresh: 1 }, 'another location\'s state is ignored')
})

t.test('the quorum: a majority by default (half of an even count is not one), clamped to 1..locations', async (t) => {
  const four = policy({ locations: ['a', 'b', 'c', 'd'] })
  const fourStates = (failing: number) => ['a', 'b', 'c', 'd'].map((code, i) => state(code, i < failing ? 'down' : 'up'))
  t.match(quorumVerdict(four, fourStates(2), NOW), { quorum: 3, status: 'degraded' }, 'a tie is no majority')
  t.match(quorumVerdict(four, fourStates(3), NOW), { quorum: 3, status: 'down' })
  t.match(quorumVerdict(policy({ locations: ['a'] }), [state('a', 'down')], NOW), { quorum: 1, status: 'down' })
  t.match(quorumVerdict(policy({ locations: ['a', 'b'] }), [state('a', 'down'), state('b', 'up')], NOW), { quorum: 2, status: 'degraded' })
  t.match(quorumVerdict(policy({ quorum: 7 }), three('down', 'down', 'up'), NOW), { quorum: 3, status: 'degraded' }, 'larger than the locations')
  t.match(quorumVerdict(policy({ quorum: 7 }), three('down', 'down', 'down'), NOW), { quorum: 3, status: 'down' })
  t.match(quorumVerdict(policy({ quorum: 0 }), three('down', 'up', 'up'), NOW), { quorum: 1, status: 'down' }, 'below one')
  t.match(quorumVerdict(policy({ quorum: Number.NaN }), three('down', 'up', 'up'), NOW), { quorum: 2, status: 'degraded' }, 'not a number: the majority')
  t.match(quorumVerdict(policy({ locations: ['a', 'a', 'b'] }), [state('a', 'down'), state('b', 'down')], NOW), { quorum: 2, fresh: 2, status: 'down' },
    'a duplicated code counts once')
  t.throws(() => quorumVerdict(policy({ locations: [] }), [], NOW), RangeError, 'no locations: not a multi-location monitor')
})

t.test('coverage transitions: each edge once; a monitor that never had coverage sends nothing', async (t) => {
  const cases: Array<[Coverage, 'ok' | 'lost', Coverage, CoverageEvent | null]> = [
    ['pending', 'lost', 'pending', null], ['pending', 'ok', 'ok', null],
    ['ok', 'ok', 'ok', null], ['ok', 'lost', 'lost', 'location.coverage_lost'],
    ['lost', 'lost', 'lost', null], ['lost', 'ok', 'ok', 'location.coverage_restored'],
  ]
  for (const [previous, coverage, next, event] of cases) t.same(coverageTransition(previous, { coverage }), { coverage: next, event }, `${previous} + ${coverage}`)
})

// ---- Properties ----

const SEVERITY: Record<LocationStatus, number> = { up: 0, degraded: 1, down: 2 }
const RANK = { up: 0, degraded: 1, down: 2 } as const
const CODES = ['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7']

/** A generated state: which location (some outside the policy), its status, and its age at NOW (negative: stamped ahead). */
interface Draw { index: number, status: LocationStatus, age: number | null }

const policyArb = fc.record({
  count: fc.integer({ min: 1, max: 7 }),
  quorum: fc.option(fc.integer({ min: -1, max: 9 }), { freq: 3 }),
  intervalMinutes: fc.integer({ min: 1, max: 60 }),
}).map(({ count, quorum, intervalMinutes }): QuorumPolicy => ({ locations: CODES.slice(0, count), quorum, intervalMinutes }))

const staleMs = (p: QuorumPolicy) => 2 * p.intervalMinutes * MINUTE + 30_000
/** Ages that fall often on both edges of freshness (the stale limit and 30 s ahead), and anywhere in between. */
const ageArb = (p: QuorumPolicy) => fc.oneof(
  fc.integer({ min: -2, max: 2 }).map((d) => staleMs(p) + d),
  fc.integer({ min: -2, max: 2 }).map((d) => -30_000 + d),
  fc.integer({ min: -5_000, max: 5_000 }),
  fc.integer({ min: -40_000, max: staleMs(p) + 40_000 }),
  fc.constant(null)
)
const drawArb = (p: QuorumPolicy) => fc.record({
  index: fc.integer({ min: 0, max: p.locations.length }), // p.locations.length: a location outside the policy
  status: fc.constantFrom<LocationStatus>('up', 'degraded', 'down'),
  age: ageArb(p),
})
const toState = (draw: Draw): LocationState =>
  ({ location: CODES[draw.index], status: draw.status, checkedAt: draw.age === null ? null : ago(draw.age) })
const caseArb = policyArb.chain((p) => fc.tuple(fc.constant(p), fc.array(drawArb(p), { maxLength: 14 })))

/** The rule restated: the quorum, and each location's standing status (null: it does not count). */
function expected (p: QuorumPolicy, draws: Draw[]) {
  const n = p.locations.length
  const quorum = p.quorum === null ? Math.floor(n / 2) + 1 : Math.min(n, Math.max(1, p.quorum))
  const standing = p.locations.map((_, index) => {
    const fresh = draws.filter((d) => d.index === index && d.age !== null && d.age >= -30_000 && d.age <= staleMs(p))
    // The youngest (smallest age) stands; at the same age, the worst.
    fresh.sort((a, b) => (a.age! - b.age!) || (SEVERITY[b.status] - SEVERITY[a.status]))
    return fresh[0]?.status ?? null
  })
  return { quorum, standing }
}

t.test('property: the verdict is the rule (down iff the fresh failing reach the quorum; degraded iff some fail or are slow below it)', async (t) => {
  t.doesNotThrow(() => fc.assert(fc.property(caseArb, ([p, draws]) => {
    const verdict = quorumVerdict(p, draws.map(toState), NOW)
    const { quorum, standing } = expected(p, draws)
    const fresh = standing.filter((s) => s !== null).length
    const failing = p.locations.filter((_, i) => standing[i] === 'down')
    const slow = p.locations.filter((_, i) => standing[i] === 'degraded')
    assert.deepEqual([verdict.quorum, verdict.fresh, verdict.failing, verdict.slow, verdict.silent],
      [quorum, fresh, failing, slow, p.locations.filter((_, i) => standing[i] === null)])
    if ((verdict.status === 'down') !== (failing.length >= quorum)) throw new Error('down iff the failing reach the quorum')
    if ((verdict.coverage === 'lost') !== (fresh < quorum)) throw new Error('coverage lost iff fewer fresh than the quorum')
    if ((verdict.status === null) !== (verdict.coverage === 'lost')) throw new Error('no status iff coverage lost')
    const someBad = failing.length > 0 || slow.length > 0
    if ((verdict.status === 'degraded') !== (fresh >= quorum && failing.length < quorum && someBad)) throw new Error('degraded')
    if ((verdict.status === 'up') !== (fresh >= quorum && !someBad)) throw new Error('up')
  }), { numRuns: 2000, seed: 46 }))
})

t.test('property: stale, far-future, never-checked and foreign states change nothing', async (t) => {
  const ignoredArb = caseArb.chain(([p, draws]) => fc.tuple(fc.constant(p), fc.constant(draws), fc.array(fc.record({
    index: fc.integer({ min: 0, max: 7 }),
    status: fc.constantFrom<LocationStatus>('up', 'degraded', 'down'),
    age: fc.oneof(fc.integer({ min: staleMs(p) + 1, max: staleMs(p) + 10 * MINUTE }), fc.integer({ min: -10 * MINUTE, max: -30_001 }), fc.constant(null)),
  }).map((d) => d.index >= p.locations.length ? { ...d, age: 0 } : d), { minLength: 1, maxLength: 6 })))
  t.doesNotThrow(() => fc.assert(fc.property(ignoredArb, fc.nat(), ([p, draws, ignored], at) => {
    const mixed = draws.map(toState)
    mixed.splice(at % (mixed.length + 1), 0, ...ignored.map(toState))
    assert.deepEqual(quorumVerdict(p, mixed, NOW), quorumVerdict(p, draws.map(toState), NOW))
  }), { numRuns: 1000, seed: 4601 }))
})

t.test('property: the order of the states does not matter', async (t) => {
  const permutedArb = caseArb.chain(([p, draws]) => fc.tuple(fc.constant(p), fc.constant(draws), fc.shuffledSubarray(draws, { minLength: draws.length })))
  t.doesNotThrow(() => fc.assert(fc.property(permutedArb, ([p, draws, permuted]) => {
    assert.deepEqual(quorumVerdict(p, permuted.map(toState), NOW), quorumVerdict(p, draws.map(toState), NOW))
  }), { numRuns: 1000, seed: 4602 }))
})

t.test('property: a state turned worse never makes the verdict better, nor changes coverage', async (t) => {
  const worseArb = caseArb.filter(([, draws]) => draws.length > 0).chain(([p, draws]) =>
    fc.tuple(fc.constant(p), fc.constant(draws), fc.nat({ max: draws.length - 1 }), fc.constantFrom<LocationStatus>('degraded', 'down')))
  t.doesNotThrow(() => fc.assert(fc.property(worseArb, ([p, draws, which, worse]) => {
    fc.pre(SEVERITY[worse] > SEVERITY[draws[which].status])
    const before = quorumVerdict(p, draws.map(toState), NOW)
    const after = quorumVerdict(p, draws.map((d, i) => toState(i === which ? { ...d, status: worse } : d)), NOW)
    if (after.coverage !== before.coverage || after.fresh !== before.fresh) throw new Error('a status changed freshness')
    if (before.status !== null && after.status !== null && RANK[after.status] < RANK[before.status]) throw new Error(`${before.status} -> ${after.status}`)
  }), { numRuns: 1000, seed: 4603 }))
})

t.test('property: along any run of results and clocks, coverage events alternate, lost first, one per edge', async (t) => {
  // Each step moves the server's clock on and delivers a location's result, stamped by a clock up to 5 s off and
  // possibly late; some steps only move the clock (silent agents). The monitor is evaluated after every step.
  const runArb = policyArb.chain((p) => fc.tuple(fc.constant(p), fc.array(fc.record({
    advance: fc.integer({ min: 0, max: 3 * p.intervalMinutes * MINUTE }),
    result: fc.option(fc.record({
      index: fc.integer({ min: 0, max: p.locations.length - 1 }),
      status: fc.constantFrom<LocationStatus>('up', 'degraded', 'down'),
      skew: fc.integer({ min: -5_000, max: 5_000 }),
      late: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 * MINUTE })),
    }), { freq: 4 }),
  }), { minLength: 1, maxLength: 40 })))
  t.doesNotThrow(() => fc.assert(fc.property(runArb, ([p, steps]) => {
    let now = NOW.getTime()
    const states: LocationState[] = []
    let coverage: Coverage = 'pending'
    const coverages: Array<'ok' | 'lost'> = []
    const events: CoverageEvent[] = []
    for (const step of steps) {
      now += step.advance
      if (step.result) {
        const { index, status, skew, late } = step.result
        states.push({ location: p.locations[index], status, checkedAt: new Date(now + skew - late) })
      }
      const verdict = quorumVerdict(p, states, new Date(now))
      const next = coverageTransition(coverage, verdict)
      if (next.event) events.push(next.event)
      // Coverage follows the verdict once it was first had.
      if (coverages.includes('ok') || verdict.coverage === 'ok') {
        if (next.coverage !== verdict.coverage) throw new Error(`coverage ${next.coverage} after a verdict of ${verdict.coverage}`)
      } else if (next.coverage !== 'pending') throw new Error('pending until the quorum is first reached')
      coverage = next.coverage
      coverages.push(verdict.coverage)
    }
    // One lost per run of lost verdicts after the first ok one; one restored per such run that ends in an ok.
    const sinceOk = coverages.slice(Math.max(0, coverages.indexOf('ok')))
    const edges: CoverageEvent[] = []
    if (coverages.includes('ok')) {
      for (let i = 1; i < sinceOk.length; i++) {
        if (sinceOk[i] !== sinceOk[i - 1]) edges.push(sinceOk[i] === 'lost' ? 'location.coverage_lost' : 'location.coverage_restored')
      }
    }
    assert.deepEqual(events, edges)
    events.forEach((event, i) => {
      if (event !== (i % 2 === 0 ? 'location.coverage_lost' : 'location.coverage_restored')) throw new Error(`event ${i}: ${event}`)
    })
  }), { numRuns: 1000, seed: 4604 }))
})
