// The claiming loop of the checker and the delivery worker: claims while there is room, sleeps until a slot frees
// or work is due, survives a database outage, and on stop gives what is in flight a grace.
import type { FastifyBaseLogger } from 'fastify'
import { isDatabaseUnavailable } from '../db/unavailable.ts'

export interface ClaimLoopOptions {
  name: string
  log: FastifyBaseLogger
  concurrency: number
  /** Longest sleep of an idle loop: work written meanwhile is noticed within it. */
  pollMs: number
  failureSleepMs: number
  /** Claims up to `free` items and launches each with track(); returns how many it claimed. */
  claim: (free: number) => Promise<number>
  /** With room left and nothing more to claim: how long to sleep (at most pollMs); pollMs when absent. */
  idleSleepMs?: () => Promise<number>
  onClaim?: (count: number) => void
}

/** An item in flight: `done` settles (never rejects) once it is finished and no longer counted. */
export interface InFlight { done: Promise<void> }

export class ClaimLoop<T extends InFlight> {
  readonly inFlight = new Map<string, T>()
  private readonly stopSignal = new AbortController()
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** The claim under way: one at a time, so that drain() sees what the running loop's claim took. */
  private claiming: Promise<unknown> = Promise.resolve()

  private readonly options: ClaimLoopOptions

  constructor (options: ClaimLoopOptions) {
    this.options = options
  }

  get stopping (): AbortSignal {
    return this.stopSignal.signal
  }

  start (): void {
    if (this.running) return
    this.running = true
    this.loop = this.run()
  }

  tick (): Promise<number> {
    const claim = this.claiming.then(() => this.claimFree())
    this.claiming = claim.catch(() => {})
    return claim
  }

  private async claimFree (): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size
    if (free <= 0) return 0
    const claimed = await this.options.claim(free)
    this.options.onClaim?.(claimed)
    return claimed
  }

  /** Counts `work` as in flight under `id` until it settles; a finished one wakes a saturated loop. */
  track (id: string, work: Promise<void>, entry: Omit<T, 'done'>): void {
    const settle = () => {
      this.inFlight.delete(id)
      this.wake?.()
    }
    const done = work.then(settle, (err: unknown) => {
      this.options.log.error({ err, id }, `${this.options.name}: unexpected failure`)
      settle()
    })
    this.inFlight.set(id, { ...entry, done } as T)
  }

  async settled (): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((item) => item.done))
  }

  /** For tests: claims and waits until nothing more is due; returns how many were claimed. */
  async drain (): Promise<number> {
    let total = 0
    for (;;) {
      const claimed = await this.tick()
      await this.settled()
      if (claimed === 0) return total
      total += claimed
    }
  }

  /** Stops claiming and waits up to `graceMs` for what is in flight; returns what is still in flight then. */
  async stop (graceMs: number): Promise<T[]> {
    this.running = false
    this.stopSignal.abort()
    this.wake?.()
    await this.loop
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.settled(), new Promise((resolve) => { timer = setTimeout(resolve, graceMs) })])
    clearTimeout(timer)
    return [...this.inFlight.values()]
  }

  private async run (): Promise<void> {
    const { concurrency, pollMs, log, name } = this.options
    while (this.running) {
      let sleepMs = pollMs
      try {
        const claimed = await this.tick()
        // Room left and more may be due: claim again at once. Saturated: on as soon as one is done (wake).
        if (claimed > 0 && this.inFlight.size < concurrency) continue
        if (this.inFlight.size < concurrency && this.options.idleSleepMs) sleepMs = await this.options.idleSleepMs()
      } catch (err) {
        // A database outage must not end the loop: log, wait, try again.
        if (isDatabaseUnavailable(err)) log.warn({ err }, `${name}: database unavailable`)
        else log.error({ err }, `${name}: claiming failed`)
        sleepMs = this.options.failureSleepMs
      }
      if (!this.running) break
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs)
        this.wake = () => { clearTimeout(timer); resolve() }
      })
      this.wake = undefined
    }
  }
}
