// The delivery worker of a checker process: claims channels with due deliveries and sends to them, a bounded
// number at once; stop() lets what is in flight finish briefly, then gives the rest back.
import { setMaxListeners } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { claimChannels, releaseChannel, type ClaimedChannel } from '../repositories/delivery-queue.ts'
import { systemClock, type Clock } from '../runtime/clock.ts'
import type { Config } from '../runtime/config.ts'
import { attemptBatcher } from './attempt-batcher.ts'
import {
  BATCH_SIZE, CHANNEL_LEASE_MS, deliverChannel, deliveryOptionsFromConfig, PEOPLE_CHANNEL_TYPES, type DeliveryOptions,
} from './deliver.ts'

export interface DeliveryWorkerOptions extends DeliveryOptions {
  db: Database
  log: FastifyBaseLogger
  /** Channels being sent to at once by this process (one message at a time each). */
  concurrency?: number
  /**
   * Sleep of an idle loop: a delivery written meanwhile waits at most this long (plus the claim) before it
   * is sent. The idle query is one range probe of the due index, empty.
   */
  pollMs?: number
  /** How long stop() lets messages in flight finish (and be recorded) before abandoning them. */
  stopGraceMs?: number
}

// Channels in flight per process. A turn is mostly waiting (the receiver, the database); 100 at once sent
// about 1.3x the deliveries per second of 50 to one local receiver, 200 no more (bench/results.md).
const CONCURRENCY = 100

export class DeliveryWorker {
  private readonly inFlight = new Map<string, { done: Promise<void> }>()
  private readonly stopping = new AbortController()
  private readonly aborting = new AbortController()
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  private readonly clock: Clock

  private readonly options: DeliveryWorkerOptions

  constructor (options: DeliveryWorkerOptions) {
    // The attempts of all its channels are recorded in shared statements.
    this.options = { recorder: attemptBatcher(options.db), ...options }
    this.clock = options.clock ?? systemClock
    // Every send in flight listens to it (up to the concurrency), and removes its listener when done.
    setMaxListeners(0, this.aborting.signal)
  }

  start (): void {
    if (this.running) return
    this.running = true
    this.loop = this.run()
  }

  /** Claims channels with due deliveries (up to the free concurrency) and starts sending to them; returns how many. */
  async tick (): Promise<number> {
    const free = (this.options.concurrency ?? CONCURRENCY) - this.inFlight.size
    if (free <= 0) return 0
    const claimed = await claimChannels(this.options.db, this.clock(), {
      limit: free, leaseMs: CHANNEL_LEASE_MS, batchSize: BATCH_SIZE, stormTypes: PEOPLE_CHANNEL_TYPES,
    })
    for (const channel of claimed) this.launch(channel)
    return claimed.length
  }

  /** Sends everything due now, to the end (for tests). */
  async runOnce (): Promise<number> {
    let total = 0
    for (;;) {
      const claimed = await this.tick()
      await Promise.all([...this.inFlight.values()].map((channel) => channel.done))
      if (claimed === 0) return total
      total += claimed
    }
  }

  private launch (claimed: ClaimedChannel): void {
    const { channel: { id: channelId }, lease } = claimed
    const signals = { stop: this.stopping.signal, abort: this.aborting.signal }
    const done = deliverChannel(this.options.db, claimed, this.options, signals)
      .then(() => {}, async (err: unknown) => {
        if (isDatabaseUnavailable(err)) this.options.log.warn({ err, channelId }, 'delivery: database unavailable')
        else this.options.log.error({ err, channelId }, 'delivery: sending to a channel failed')
        // Given back once more (its own release may be what failed); else its lease runs out and the channel
        // is claimed again: nothing is lost either way.
        await releaseChannel(this.options.db, channelId, lease).catch((err: unknown) => {
          this.options.log.warn({ err, channelId }, 'delivery: could not give a channel back; its lease will expire')
        })
      })
      .finally(() => {
        this.inFlight.delete(channelId)
        this.wake?.()
      })
    this.inFlight.set(channelId, { done })
  }

  private async run (): Promise<void> {
    const pollMs = this.options.pollMs ?? 200
    while (this.running) {
      let sleepMs = pollMs
      try {
        const claimed = await this.tick()
        // Saturated or more to claim: go on as soon as a channel is done (wake) or at once.
        if (claimed > 0 && this.inFlight.size < (this.options.concurrency ?? CONCURRENCY)) continue
      } catch (err) {
        if (isDatabaseUnavailable(err)) this.options.log.warn({ err }, 'delivery: database unavailable')
        else this.options.log.error({ err }, 'delivery: claiming failed')
        sleepMs = pollMs * 10
      }
      if (!this.running) break
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs)
        this.wake = () => { clearTimeout(timer); resolve() }
      })
      this.wake = undefined
    }
  }

  /**
   * Stops claiming and lets the messages in flight finish for a moment; then aborts the rest (not
   * recorded: they stay due and are sent again, at least once) and gives their channels back, so that
   * another worker takes them at once instead of after the lease.
   */
  async stop (): Promise<void> {
    this.running = false
    this.stopping.abort()
    this.wake?.()
    await this.loop
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all([...this.inFlight.values()].map((c) => c.done)),
      new Promise((resolve) => { timer = setTimeout(resolve, this.options.stopGraceMs ?? 3000) }),
    ])
    clearTimeout(timer)
    // Each abandoned turn gives its channel back as it ends (deliverChannel, or launch's error path).
    this.aborting.abort()
    await Promise.all([...this.inFlight.values()].map((c) => c.done))
    await this.options.transport.close()
  }
}

/** The delivery worker of a checker process, from its config; stop() ends it (see DeliveryWorker.stop). */
export function startDeliveryWorker (options: { config: Config, db: Database, log: FastifyBaseLogger, clock?: Clock }) {
  const worker = new DeliveryWorker({
    ...deliveryOptionsFromConfig(options.config, options.log),
    db: options.db,
    log: options.log,
    clock: options.clock,
  })
  worker.start()
  return worker
}
