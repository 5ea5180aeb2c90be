// Records the attempts of a worker's channels in shared statements: one commit for many deliveries.
import type { Database } from '../db/client.ts'
import { recordAttempts, type AttemptRecord, type BringForward } from '../repositories/delivery-queue.ts'
import type { AttemptRecorder } from './deliver.ts'

interface Pending {
  records: Array<AttemptRecord & { lease: Date }>
  release?: { channelId: string, lease: Date }
  forward?: BringForward
  resolve: (recorded: Set<string>) => void
  reject: (err: unknown) => void
}

// A statement's size bound: a burst is recorded in several.
const MAX_RECORDS = 500

/** One statement at a time, with what arrived meanwhile in the next: one commit carries many channels, and no timer waits. */
export function attemptBatcher (db: Database): AttemptRecorder {
  const queue: Pending[] = []
  let running = false

  async function flush (): Promise<void> {
    running = true
    while (queue.length > 0) {
      let count = 0
      const batch: Pending[] = []
      while (queue.length > 0 && (batch.length === 0 || count + queue[0].records.length <= MAX_RECORDS)) {
        const next = queue.shift()!
        count += next.records.length
        batch.push(next)
      }
      try {
        const recorded = await recordAttempts(db, batch.flatMap((p) => p.records), batch.flatMap((p) => p.release ? [p.release] : []),
          batch.flatMap((p) => p.forward ? [p.forward] : []))
        for (const p of batch) p.resolve(new Set(p.records.map((r) => r.id).filter((id) => recorded.has(id))))
      } catch (err) {
        for (const p of batch) p.reject(err)
      }
    }
    running = false
  }

  return (records, release, forward) => new Promise((resolve, reject) => {
    queue.push({ records, release, forward, resolve, reject })
    if (!running) flush().catch(() => {}) // flush() settles every promise itself
  })
}
