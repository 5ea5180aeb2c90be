// The delivery worker of a checker process: claims channels with due deliveries and sends to them, a bounded number at once.
import { setMaxListeners } from 'node:events'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { anyDueDelivery, claimChannels, releaseChannel, type ClaimedChannel } from '../repositories/delivery-queue.ts'
import { ClaimLoop, type InFlight } from '../runtime/claim-loop.ts'
import { systemClock, type Clock } from '../runtime/clock.ts'
import { ConfigSchema, type Config } from '../runtime/config.ts'
import type { Metrics } from '../runtime/metrics.ts'
import { attemptBatcher } from './attempt-batcher.ts'
import { TimeoutLeash } from './timeout-leash.ts'
import {
  BATCH_SIZE, CHANNEL_LEASE_MS, deliverChannel, deliveryOptionsFromConfig, PEOPLE_CHANNEL_TYPES, type DeliveryOptions,
} from './deliver.ts'

export interface DeliveryWorkerOptions extends DeliveryOptions {
  db: Database
  log: FastifyBaseLogger
  /** DELIVERY_CONCURRENCY: channels sent to at once, one message at a time each. */
  concurrency: number
  /** DELIVERY_OWNER_SHARE: the percent of `concurrency` one owner may take, so that hanging receivers cannot hold every slot. */
  ownerShare?: number
  /** Sleep of an idle loop: how long a new delivery may wait before it is claimed. */
  pollMs?: number
  /** How long stop() lets messages in flight finish (and be recorded) before abandoning them. */
  stopGraceMs?: number
  onClaim?: (count: number) => void
}

export class DeliveryWorker {
  private readonly loop: ClaimLoop<InFlight>
  private readonly aborting = new AbortController()
  private readonly clock: Clock
  private readonly options: DeliveryWorkerOptions
  private idle = false
  /** Channels in flight by owner, and how many one owner may have. */
  private readonly busy = new Map<string, number>()
  private readonly ownerCap: number

  constructor (options: DeliveryWorkerOptions) {
    this.options = { recorder: attemptBatcher(options.db), leash: new TimeoutLeash(), ...options }
    const share = options.ownerShare ?? ConfigSchema.properties.DELIVERY_OWNER_SHARE.default
    this.ownerCap = Math.max(1, Math.ceil(options.concurrency * share / 100))
    this.clock = options.clock ?? systemClock
    // Every send in flight listens to it (up to the concurrency), and removes its listener when done.
    setMaxListeners(0, this.aborting.signal)
    const pollMs = options.pollMs ?? 200
    this.loop = new ClaimLoop({
      name: 'delivery',
      log: options.log,
      concurrency: options.concurrency,
      pollMs,
      failureSleepMs: pollMs * 10,
      onClaim: options.onClaim,
      claim: async (free) => {
        // After a claim that found nothing, a cheap probe first (anyDueDelivery says why).
        if (this.idle && !await anyDueDelivery(this.options.db, this.clock())) return 0
        const owners = { cap: this.ownerCap, busy: this.busy }
        const claimed = await claimChannels(this.options.db, this.clock(), {
          limit: free, leaseMs: CHANNEL_LEASE_MS, batchSize: BATCH_SIZE, stormTypes: PEOPLE_CHANNEL_TYPES, owners,
        })
        this.idle = claimed.length === 0
        for (const channel of claimed) {
          this.launch(channel)
          // Yield between launches: each turn signs its first message synchronously, which would hold up the checker's probes.
          await nextTurn()
        }
        return claimed.length
      },
    })
  }

  start (): void {
    this.loop.start()
  }

  /** Claims channels with due deliveries (up to the free concurrency) and starts sending to them; returns how many. */
  tick (): Promise<number> {
    return this.loop.tick()
  }

  /** Sends everything due now, to the end (for tests). */
  runOnce (): Promise<number> {
    return this.loop.drain()
  }

  private launch (claimed: ClaimedChannel): void {
    const { channel: { id: channelId }, ownerId, lease } = claimed
    const signals = { stop: this.loop.stopping, abort: this.aborting.signal }
    this.busy.set(ownerId, (this.busy.get(ownerId) ?? 0) + 1)
    const work = deliverChannel(this.options.db, claimed, this.options, signals)
      .then(() => {}, async (err: unknown) => {
        if (isDatabaseUnavailable(err)) this.options.log.warn({ err, channelId }, 'delivery: database unavailable')
        else this.options.log.error({ err, channelId }, 'delivery: sending to a channel failed')
        // Released once more (its own release may be what failed); else its lease runs out: nothing is lost.
        await releaseChannel(this.options.db, channelId, lease).catch((err: unknown) => {
          this.options.log.warn({ err, channelId }, 'delivery: could not give a channel back; its lease will expire')
        })
      })
      .finally(() => {
        const left = this.busy.get(ownerId)! - 1
        if (left > 0) this.busy.set(ownerId, left)
        else this.busy.delete(ownerId)
      })
    this.loop.track(channelId, work, {})
  }

  /** Stops claiming, lets messages in flight finish briefly, then aborts the rest (they stay due) and releases their channels. */
  async stop (): Promise<void> {
    await this.loop.stop(this.options.stopGraceMs ?? 3000)
    // Each abandoned turn gives its channel back as it ends (deliverChannel, or launch's error path).
    this.aborting.abort()
    await this.loop.settled()
    await this.options.transport.close()
  }
}

/** The delivery worker of a checker process, from its config; stop() ends it (see DeliveryWorker.stop). */
export function startDeliveryWorker (options: { config: Config, db: Database, log: FastifyBaseLogger, clock?: Clock, metrics?: Metrics }) {
  const { log, metrics } = options
  const delivery = deliveryOptionsFromConfig(options.config, log)
  const worker = new DeliveryWorker({
    ...delivery,
    db: options.db,
    log,
    clock: options.clock,
    concurrency: options.config.DELIVERY_CONCURRENCY,
    ownerShare: options.config.DELIVERY_OWNER_SHARE,
    onClaim: metrics && ((count) => metrics.claimed('delivery', count)),
    onAttempts: metrics && ((result, count) => metrics.deliveryAttempts(result, count)),
  })
  worker.start()
  // SMTP_URL is tried at start so that a wrong host or password shows now; a failure does not stop the process.
  delivery.transport.verifyEmail().then((result) => {
    if (result === 'ok') log.info('email channels: the SMTP server accepted the connection')
  }, (err: Error) => {
    log.error({ err }, `email channels cannot send: ${err.message}`)
  })
  return worker
}
