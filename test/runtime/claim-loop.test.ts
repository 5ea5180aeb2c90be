// The claiming loop shared by the checker and the delivery worker: never more in flight than its
// concurrency, a finished item wakes a saturated loop, a failed claim is logged and retried, and stop()
// returns what is still in flight after the grace.
import t from 'tap'
import { ClaimLoop, type InFlight } from '../../src/runtime/claim-loop.ts'

interface Item extends InFlight { finish: () => void }

function recordingLog () {
  const lines: string[] = []
  const keep = (level: string) => (obj: unknown, msg?: string) => { lines.push(`${level}: ${typeof obj === 'string' ? obj : msg}`) }
  const log = { info: keep('info'), warn: keep('warn'), error: keep('error'), debug () {}, trace () {}, fatal () {}, child: () => log, level: 'info' }
  return { log: log as never, lines }
}

/** A loop over `total` items that finish when told; the poll is an hour, so only a wake can move it on. */
function itemLoop (total: number, concurrency: number, log = recordingLog().log) {
  let next = 0
  let maxInFlight = 0
  const started: Item[] = []
  const loop: ClaimLoop<Item> = new ClaimLoop<Item>({
    name: 'test',
    log,
    concurrency,
    pollMs: 3_600_000,
    failureSleepMs: 3_600_000,
    claim: async (free) => {
      const count = Math.min(free, total - next)
      for (let i = 0; i < count; i++) {
        let finish!: () => void
        const work = new Promise<void>((resolve) => { finish = resolve })
        loop.track(String(next++), work, { finish })
        started.push(loop.inFlight.get(String(next - 1))!)
        maxInFlight = Math.max(maxInFlight, loop.inFlight.size)
      }
      return count
    },
  })
  return { loop, started, max: () => maxInFlight }
}

t.test('never more in flight than the concurrency; each finished item lets the next one in at once', async (t) => {
  const { loop, started, max } = itemLoop(10, 3)
  loop.start()
  for (let done = 0; done < 10; done++) {
    while (started.length <= done) await new Promise((resolve) => setImmediate(resolve))
    started[done].finish()
  }
  await loop.settled()
  t.equal(started.length, 10, 'all ten claimed, with no poll in between (it is an hour)')
  t.equal(max(), 3)
  t.same(await loop.stop(1000), [])
})

t.test('stop() waits the grace for what is in flight and returns what is still running', async (t) => {
  const { loop, started } = itemLoop(2, 2)
  await loop.tick()
  started[0].finish()
  const abandoned = await loop.stop(50)
  t.equal(loop.stopping.aborted, true)
  t.same(abandoned.map((item) => item === started[1]), [true], 'the unfinished one')
  started[1].finish()
  await loop.settled()
  t.equal(loop.inFlight.size, 0)
})

t.test('a claim that fails is logged and the loop goes on; an item that throws is logged and no longer counted', async (t) => {
  const { log, lines } = recordingLog()
  let calls = 0
  let fourth!: () => void
  const fourCalls = new Promise<void>((resolve) => { fourth = resolve })
  const loop = new ClaimLoop<InFlight>({
    name: 'test',
    log,
    concurrency: 2,
    pollMs: 1,
    failureSleepMs: 1,
    claim: async () => {
      if (++calls === 4) fourth()
      if (calls === 1) throw new Error('boom')
      if (calls === 2) loop.track('x', Promise.reject(new Error('item failed')), {})
      return calls === 2 ? 1 : 0
    },
  })
  loop.start()
  await fourCalls
  await loop.stop(100)
  t.same(lines, ['error: test: claiming failed', 'error: test: unexpected failure'])
  t.equal(loop.inFlight.size, 0)
})

t.test('drain() claims until nothing more is due', async (t) => {
  const { loop, started } = itemLoop(5, 2)
  const draining = loop.drain()
  while (started.length < 5) {
    await new Promise((resolve) => setImmediate(resolve))
    for (const item of started) item.finish()
  }
  t.equal(await draining, 5)
})

t.test('drain() waits for a claim the running loop has begun, and for what that claim took', async (t) => {
  const due = ['a']
  let openGate!: () => void
  const gate = new Promise<void>((resolve) => { openGate = resolve })
  let finish!: () => void
  const work = new Promise<void>((resolve) => { finish = resolve })
  let loopClaimBegun!: () => void
  const begun = new Promise<void>((resolve) => { loopClaimBegun = resolve })
  let calls = 0
  const loop = new ClaimLoop<InFlight>({
    name: 'test',
    log: recordingLog().log,
    concurrency: 4,
    pollMs: 3_600_000,
    failureSleepMs: 3_600_000,
    claim: async (free) => {
      // Taken at once, as a leasing UPDATE takes rows; the loop's first claim then waits, as a slow query would.
      const taken = due.splice(0, free)
      if (++calls === 1) {
        loopClaimBegun()
        await gate
      }
      for (const id of taken) loop.track(id, work, {})
      return taken.length
    },
  })
  t.teardown(() => loop.stop(0))
  loop.start()
  await begun
  let finished = false
  const drained = loop.drain().then(() => finished)
  // Let every pending callback run: a drain() that ignored the loop's claim would be over now.
  await new Promise((resolve) => setImmediate(resolve))
  openGate()
  await new Promise((resolve) => setImmediate(resolve))
  finished = true
  finish()
  t.equal(await drained, true, 'drain() returned only once the item the loop claimed was done')
})
