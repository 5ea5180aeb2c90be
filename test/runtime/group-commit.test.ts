// groupCommit: items handed in while a batch is written go together in the next; a failed batch is written item by item.
import t from 'tap'
import { groupCommit } from '../../src/runtime/group-commit.ts'

t.test('what arrives during a write waits for it, then goes in one batch (bounded); results in order', async (t) => {
  const batches: number[][] = []
  let release!: () => void
  const first = new Promise<void>((resolve) => { release = resolve })
  const write = async (items: number[]) => {
    batches.push(items)
    if (batches.length === 1) await first
    return items.map((n) => n * 10)
  }
  const record = groupCommit(write, { maxBatch: 3 })
  const pending = [1, 2, 3, 4, 5, 6].map((n) => record(n))
  t.same(batches, [[1]], 'the first goes at once')
  release()
  t.same(await Promise.all(pending), [10, 20, 30, 40, 50, 60])
  t.same(batches, [[1], [2, 3, 4], [5, 6]], 'the rest in batches of at most 3')
  t.same(await record(7), 70, 'idle again: a new item goes at once')
})

t.test('a failed batch: each item again alone, so only the bad one fails', async (t) => {
  const batches: string[][] = []
  let release!: () => void
  const first = new Promise<void>((resolve) => { release = resolve })
  const record = groupCommit(async (items: string[]) => {
    batches.push(items)
    if (batches.length === 1) await first
    if (items.includes('bad')) throw new Error('refused')
    return items.map((item) => item.toUpperCase())
  }, { maxBatch: 10 })
  const pending = ['a', 'b', 'bad', 'c'].map((item) => Promise.allSettled([record(item)]).then(([r]) => r))
  release()
  const results = await Promise.all(pending)
  t.match(results, [
    { status: 'fulfilled', value: 'A' }, { status: 'fulfilled', value: 'B' },
    { status: 'rejected', reason: { message: 'refused' } }, { status: 'fulfilled', value: 'C' },
  ])
  t.same(batches, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']])
})

t.test('maxInFlight: that many batches are written at once, the rest wait for one of them', async (t) => {
  const batches: number[][] = []
  const releases: Array<() => void> = []
  let thirdStarted!: () => void
  const third = new Promise<void>((resolve) => { thirdStarted = resolve })
  const record = groupCommit(async (items: number[]) => {
    batches.push(items)
    if (batches.length === 3) thirdStarted()
    await new Promise<void>((resolve) => releases.push(resolve))
    return items
  }, { maxBatch: 10, maxInFlight: 2 })
  const pending = [1, 2, 3, 4].map((n) => record(n))
  t.same(batches, [[1], [2]], 'two at once')
  releases[1]()
  await third
  t.same(batches, [[1], [2], [3, 4]], 'the second done: the waiting ones together')
  releases[0]()
  releases[2]()
  t.same(await Promise.all(pending), [1, 2, 3, 4])
})
