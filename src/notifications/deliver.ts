// Sending what is due to one held channel and recording each attempt; attemptDelivery for one delivery at once.
import { setTimeout as pause } from 'node:timers/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { systemClock, type Clock } from '../runtime/clock.ts'
import type { Config } from '../runtime/config.ts'
import { ACKNOWLEDGE_LINK_TTL_MS, signAcknowledgeLink } from '../auth/acknowledge-links.ts'
import { CHANNEL_TYPES, type NotificationEventType } from '../domain/vocabulary.ts'
import { serverSecret } from '../repositories/server-secrets.ts'
import type { NotificationEvent } from '../schemas/notification-event.ts'
import { withAbsolutePingUrl } from '../monitors/presenter.ts'
import {
  deliveriesLeft, deliveryState, disableChannel, heldDigestAt, leaseChannel, postponeDeliveries, queuedChannel, recordAttempts,
  releaseChannel, takeDelivery, type AttemptRecord, type BringForward, type ClaimedChannel, type QueuedChannel, type QueuedDelivery,
} from '../repositories/delivery-queue.ts'
import { nextAttemptAt } from './backoff.ts'
import { planBatch, STORM_LIMIT, type PlannedSend } from './batch-plan.ts'
import { CHANNEL_ADAPTERS } from './channels/index.ts'
import { acknowledgeUrl, dashboardUrl, maintenancePageUrl } from './message.ts'
import type { Message, SendContext, ToldEvent } from './channels/types.ts'
import { createEmailSender } from './email-sender.ts'
import { createHttpSender, SEND_TIMEOUT_MS } from './http-sender.ts'
import type { TimeoutLeash } from './timeout-leash.ts'
import { createTransport, type SendResult, type Transport } from './transport.ts'

export interface DeliveryOptions {
  transport: Transport
  /** Where the dashboard and the services are (from the config); `now` is added per message. */
  context: Omit<SendContext, 'now'>
  clock?: Clock
  log?: FastifyBaseLogger
  /** For the jitter of retries (tests pass a fixed one). */
  random?: () => number
  /** A worker batches its channels' records into shared statements; recordAttempts at once otherwise. */
  recorder?: AttemptRecorder
  /** Hears the attempts recorded, by the status they left their deliveries in (the metrics). */
  onAttempts?: (result: AttemptRecord['status'], count: number) => void
  /** The shorter timeout of channels that keep timing out (a worker's); the full one always without it. */
  leash?: TimeoutLeash
  /** How long attemptDelivery waits for a worker to give the channel back; a send's timeout by default. */
  channelWaitMs?: number
}

/** Records a message's attempts, with the channel's `release` and `forward` if given; returns the ids recorded. */
export type AttemptRecorder = (
  records: Array<AttemptRecord & { lease: Date }>, release?: { channelId: string, lease: Date }, forward?: BringForward
) => Promise<Set<string>>

/** The process's delivery options from its config; the caller closes `transport`, which keeps connections. */
export function deliveryOptionsFromConfig (config: Config, log?: FastifyBaseLogger): DeliveryOptions {
  return {
    transport: createTransport({
      http: createHttpSender({ allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS }),
      email: createEmailSender(config) ?? undefined,
    }),
    context: {
      publicUrl: config.PUBLIC_URL,
      serviceUrls: { telegram: config.TELEGRAM_API_URL, pagerduty: config.PAGERDUTY_EVENTS_URL, ntfy: config.NTFY_URL },
    },
    log,
  }
}

/** How long a worker holds a channel; a message is sent only while the lease outlasts the send and its recording. */
export const CHANNEL_LEASE_MS = 60_000
const LEASE_MARGIN_MS = SEND_TIMEOUT_MS + 10_000
export const BATCH_SIZE = 50

/** A worker's stop: `stop` ends a channel's turn after the message in flight, `abort` cuts that message short. */
export interface StopSignals { stop: AbortSignal, abort: AbortSignal }

/** Channel types whose receivers are people: their deliveries are ranked for storms when claimed. */
export const PEOPLE_CHANNEL_TYPES = CHANNEL_TYPES.filter((type) => CHANNEL_ADAPTERS[type].forPeople)

/**
 * Sends a claimed channel's deliveries in order and releases it with the last record. A failure holds back its monitor's
 * later events, and a receiver that seems away gets nothing more this turn. Returns how many were attempted.
 */
export async function deliverChannel (db: Database, claimed: ClaimedChannel, options: DeliveryOptions, signals?: StopSignals): Promise<number> {
  const clock = options.clock ?? systemClock
  const { channel, lease, deliveries } = claimed
  /** Taken and neither tried nor put off yet: released (due as they were) if the turn ends early. */
  const untried = new Set(deliveries.map((d) => d.id))
  const putOff = async (ids: string[], until: Date) => {
    await postponeDeliveries(db, lease, ids, until)
    for (const id of ids) untried.delete(id)
  }
  let released = false
  let attempted = 0
  try {
    const adapter = CHANNEL_ADAPTERS[channel.type]
    const now = clock()
    const heldUntil = adapter.forPeople && deliveries.some((d) => d.stormRank > STORM_LIMIT) ? await heldDigestAt(db, channel.id, now) : null
    const plan = planBatch(deliveries, { forPeople: adapter.forPeople, now, heldUntil })
    for (const held of plan.held) await putOff(held.deliveries.map((d) => d.id), held.until)
    /** Monitors (or incidents) whose message failed this turn, with its retry: their later events wait for it. */
    const blocked = new Map<string, Date>()
    const orderOf = (d: QueuedDelivery) => d.monitorId ?? d.incidentId
    for (const [index, send] of plan.sends.entries()) {
      if (signals?.stop.aborted || clock().getTime() + LEASE_MARGIN_MS > lease.getTime()) break
      const waitFor = send.deliveries.map((d) => { const key = orderOf(d); return key && blocked.get(key) }).find(Boolean)
      if (waitFor) {
        await putOff(send.deliveries.map((d) => d.id), waitFor)
        continue
      }
      for (const d of send.deliveries) untried.delete(d.id)
      // The turn's last message gives the channel back with its record, in one statement.
      const last = untried.size === 0 && index === plan.sends.length - 1
      const outcome = await sendAndRecord(db, channel, send, lease, options, signals?.abort, last)
      if (outcome === 'aborted') {
        for (const d of send.deliveries) untried.add(d.id)
        break
      }
      released = last
      attempted += send.deliveries.length
      if (outcome === 'delivered') continue
      if (outcome === 'gone') break
      for (const d of send.deliveries) {
        const key = orderOf(d)
        if (key) blocked.set(key, outcome.retryAt)
      }
      if (outcome.receiverAway) {
        await putOff(plan.sends.slice(index + 1).flatMap((s) => s.deliveries.map((d) => d.id)), outcome.retryAt)
        break
      }
    }
  } finally {
    if (!released) await releaseChannel(db, channel.id, lease, untried.size > 0)
  }
  return attempted
}

type Outcome = 'delivered' | 'gone' | 'aborted' | { retryAt: Date, receiverAway: boolean }

/** Sends one message and records its attempt; a 2xx brings waiting retries forward, a 410 turns the channel off. */
async function sendAndRecord (
  db: Database, channel: QueuedChannel, send: PlannedSend, lease: Date, options: DeliveryOptions, signal?: AbortSignal, release = false
): Promise<Outcome> {
  const clock = options.clock ?? systemClock
  const started = clock()
  let result: SendResult
  try {
    const key = isAnswerable(send.message) ? await serverSecret(db, 'acknowledge_links') : null
    const message = asSent(send.message, options.context.publicUrl, acknowledgeLinks(key, options.context.publicUrl, channel.id, started))
    const outgoing = CHANNEL_ADAPTERS[channel.type].render(channel, message, { ...options.context, now: started })
    result = await options.transport.send(outgoing, signal, { short: options.leash?.isShort(channel.id) })
  } catch (err) {
    result = { ok: false, statusCode: null, durationMs: 0, error: `could not build the message: ${(err as Error).message}` }
  }
  // Stopped in the middle: the receiver may or may not have it; it stays due, and is sent again (at least once).
  if (signal?.aborted && !result.ok) return 'aborted'
  options.leash?.heard(channel.id, result)
  const now = clock()
  const ids = send.deliveries.map((d) => d.id)
  const entry = (d: QueuedDelivery) => ({
    at: started.toISOString(),
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    error: result.error,
    ...(ids.length > 1 ? { with: ids.filter((id) => id !== d.id) } : {}),
  })
  let outcome: Outcome
  let records: AttemptRecord[]
  if (result.ok) {
    outcome = 'delivered'
    records = send.deliveries.map((d) => ({ id: d.id, status: 'delivered', nextAttemptAt: null, entry: entry(d) }))
  } else if (result.statusCode === 410) {
    outcome = 'gone'
    records = send.deliveries.map((d) => ({ id: d.id, status: 'dead', nextAttemptAt: null, entry: entry(d) }))
  } else {
    // The deliveries of one message are retried together: the oldest's age and the most attempts decide.
    const retryAt = nextAttemptAt({
      attempts: Math.max(...send.deliveries.map((d) => d.attempts)) + 1,
      createdAt: new Date(Math.min(...send.deliveries.map((d) => d.createdAt.getTime()))),
      now,
      // A date is read against this delivery's clock; a past one means at once, within the bounds.
      retryAfterMs: result.retryAfter instanceof Date ? result.retryAfter.getTime() - now.getTime() : result.retryAfter,
    }, options.random)
    const code = result.statusCode
    outcome = { retryAt: retryAt ?? now, receiverAway: code === null || code === 408 || code === 429 || code >= 500 }
    records = send.deliveries.map((d) => ({ id: d.id, status: retryAt ? 'failed' : 'dead', nextAttemptAt: retryAt, entry: entry(d) }))
  }
  const leased = records.map((r) => ({ ...r, lease }))
  const releasing = release ? { channelId: channel.id, lease } : undefined
  // For people, a delivery put off (pending) may be a digest's or a flap's, held for its own reason.
  const forward = outcome === 'delivered' ? { channelId: channel.id, at: now, pending: !CHANNEL_ADAPTERS[channel.type].forPeople } : undefined
  const recorded = options.recorder
    ? await options.recorder(leased, releasing, forward)
    : await recordAttempts(db, leased, releasing && [releasing], forward && [forward])
  if (recorded.size < records.length) options.log?.warn({ channelId: channel.id, deliveries: ids }, `delivery: ${await whyNotRecorded(db, channel.id, ids)}; the attempt is not recorded`)
  if (options.onAttempts) {
    for (const record of records) if (recorded.has(record.id)) options.onAttempts(record.status, 1)
  }
  if (outcome === 'gone') {
    await disableChannel(db, channel.id, `The receiver answered 410 Gone on ${started.toISOString()}: the channel was turned off. Turn it on again to resume.`, now)
    options.log?.info({ channelId: channel.id }, 'delivery: 410 Gone, channel turned off')
  }
  return outcome
}

/** Why a message's attempt found its deliveries gone or taken from it. */
async function whyNotRecorded (db: Database, channelId: string, ids: string[]): Promise<string> {
  const left = await deliveriesLeft(db, channelId, ids)
  if (!left.channel) return 'the channel was deleted during the send'
  if (left.deliveries < ids.length) return 'its deliveries were deleted during the send (with their monitor)'
  return 'the lease on the channel ran out during the send'
}

// The events that ask someone to answer an open incident: they carry a one-click acknowledge link.
const ANSWERABLE = new Set<NotificationEventType>(['incident.opened', 'heartbeat.missed', 'incident.reminder', 'monitor.degraded'])
const asksForAnswer = (event: NotificationEvent) => ANSWERABLE.has(event.type) && event.data.incident?.status === 'open' && !event.data.incident.acknowledged_at
const isAnswerable = (message: Message) => message.kind === 'event' && asksForAnswer(message.told.event)

/** The event's one-click acknowledge link, for 24 hours from this attempt, to this channel; undefined where none. */
function acknowledgeLinks (key: Buffer | null, publicUrl: string, channelId: string, now: Date) {
  return (event: NotificationEvent): string | undefined => {
    if (!key || !asksForAnswer(event)) return undefined
    const token = signAcknowledgeLink(key, { incidentId: event.data.incident!.id, channelId, expiresAt: new Date(now.getTime() + ACKNOWLEDGE_LINK_TTL_MS) })
    return acknowledgeUrl(publicUrl, token)
  }
}

/**
 * Adds what depends on this PUBLIC_URL and this attempt, which the outbox does not keep (it may change before a
 * retry): the event's page in the dashboard, a heartbeat's `ping_url` made absolute as the API shows it, and the
 * one-click acknowledge link of an event about an incident still to be answered.
 */
function asSent (message: Message, publicUrl: string, acknowledgeLink: (event: NotificationEvent) => string | undefined): Message {
  const told = (one: ToldEvent): ToldEvent => {
    const { monitor } = one.event.data
    const link = acknowledgeLink(one.event)
    const data = {
      ...one.event.data,
      monitor: monitor?.ping_url ? withAbsolutePingUrl(monitor, publicUrl) : monitor,
      dashboard_url: one.event.data.maintenance_window ? maintenancePageUrl(publicUrl) : dashboardUrl(publicUrl, monitor?.id ?? null),
      ...(link && { acknowledge_url: link }),
    }
    return { ...one, event: { ...one.event, data } }
  }
  if (message.kind === 'digest') return { kind: 'digest', told: message.told.map(told) }
  if (message.kind === 'flap') return { kind: 'flap', opened: told(message.opened), resolved: told(message.resolved) }
  return { kind: 'event', told: told(message.told) }
}

/** One attempt of a delivery now (the test route), once no worker holds its channel; after SEND_TIMEOUT_MS it stays due. */
export async function attemptDelivery (db: Database, deliveryId: string, options: DeliveryOptions): Promise<void> {
  const clock = options.clock ?? systemClock
  const before = await deliveryState(db, deliveryId)
  if (!before || (before.status !== 'pending' && before.status !== 'failed')) return
  const giveUpAt = Date.now() + (options.channelWaitMs ?? SEND_TIMEOUT_MS)
  for (;;) {
    const lease = await leaseChannel(db, before.channelId, clock(), CHANNEL_LEASE_MS)
    if (lease) {
      try {
        const channel = await queuedChannel(db, before.channelId, clock())
        const delivery = await takeDelivery(db, deliveryId, lease)
        if (!channel || !delivery || delivery.attempts > before.attempts) return
        await sendAndRecord(db, channel, { message: { kind: 'event', told: { id: delivery.eventId, event: delivery.payload } }, deliveries: [delivery] }, lease, options)
      } finally {
        await releaseChannel(db, before.channelId, lease)
      }
      return
    }
    // A worker holds the channel: it may be sending this delivery right now.
    if (Date.now() >= giveUpAt) return
    await pause(100)
    const now = await deliveryState(db, deliveryId)
    if (!now || now.attempts > before.attempts) return
  }
}
