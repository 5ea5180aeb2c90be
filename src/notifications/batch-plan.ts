// What to send of a channel's due deliveries, and in which messages: pure, so that the rules are tested alone.
import type { QueuedDelivery } from '../repositories/delivery-queue.ts'
import type { Message, ToldEvent } from './channels/types.ts'

/** More events than this for one channel within a minute are a storm: the rest go as one digest. */
export const STORM_LIMIT = 10
const DIGEST_WINDOW_MS = 60_000

export interface PlannedSend { message: Message, deliveries: QueuedDelivery[] }

export interface BatchPlan {
  /** In order: a resolution never goes before its incident's opening. */
  sends: PlannedSend[]
  /** Not sent now: a storm waits for its digest, a resolution for its failed opening's retry. */
  held: Array<{ deliveries: QueuedDelivery[], until: Date }>
}

const told = (delivery: QueuedDelivery): ToldEvent => ({ id: delivery.eventId, event: delivery.payload })

/** The edge a delivery tells, so the rules below hold for degraded incidents too (`monitor.degraded` is one type for both). */
function edgeOf (d: QueuedDelivery): 'opened' | 'resolved' | null {
  // A missed heartbeat opens a down incident: its `incident.resolved` is the other edge.
  if (d.type === 'incident.opened' || d.type === 'heartbeat.missed') return 'opened'
  if (d.type === 'incident.resolved') return 'resolved'
  if (d.type !== 'monitor.degraded') return null
  return d.payload.data.incident?.status === 'open' ? 'opened' : 'resolved'
}

/** `deliveries` oldest first: a program gets each event as it is, a person a flap as one message and a storm as a digest. */
export function planBatch (deliveries: QueuedDelivery[], options: { forPeople: boolean, now: Date, heldUntil: Date | null }): BatchPlan {
  const opening = new Map<string, QueuedDelivery>()
  const resolution = new Map<string, QueuedDelivery>()
  for (const d of deliveries) {
    if (d.incidentId === null) continue
    if (edgeOf(d) === 'opened') opening.set(d.incidentId, d)
    if (edgeOf(d) === 'resolved') resolution.set(d.incidentId, d)
  }
  if (!options.forPeople) {
    // A failed opening is retried when its backoff says; its resolution, due sooner, waits for it.
    const held: BatchPlan['held'] = []
    const sends: PlannedSend[] = []
    for (const d of deliveries) {
      const waitingOpening = d.incidentId === null ? undefined : opening.get(d.incidentId)
      if (d.nextAttemptAt > options.now && edgeOf(d) === 'opened') continue
      if (edgeOf(d) === 'resolved' && waitingOpening && waitingOpening.nextAttemptAt > options.now) {
        held.push({ deliveries: [d], until: waitingOpening.nextAttemptAt })
        continue
      }
      sends.push({ message: { kind: 'event', told: told(d) }, deliveries: [d] })
    }
    return { sends, held }
  }
  // A storm's member takes its incident's other half along, so that the two are told in order.
  const storm = new Set(deliveries.filter((d) => d.stormRank > STORM_LIMIT && d.type !== 'test'))
  for (const d of [...storm]) {
    const other = d.incidentId === null ? undefined : (edgeOf(d) === 'opened' ? resolution : opening).get(d.incidentId)
    if (other) storm.add(other)
  }

  const sends: PlannedSend[] = []
  const held: BatchPlan['held'] = []
  const merged = new Set<QueuedDelivery>()
  for (const d of deliveries) {
    if (storm.has(d) || merged.has(d)) continue
    const resolved = edgeOf(d) === 'opened' && d.incidentId !== null ? resolution.get(d.incidentId) : undefined
    if (resolved && d.attempts > 0 && d.nextAttemptAt > options.now) {
      // The failed opening waits for its retry, and its resolution goes with it as one message.
      merged.add(resolved)
      held.push({ deliveries: [d, resolved], until: d.nextAttemptAt })
    } else if (resolved) {
      merged.add(resolved)
      sends.push({ message: { kind: 'flap', opened: told(d), resolved: told(resolved) }, deliveries: [d, resolved] })
    } else {
      sends.push({ message: { kind: 'event', told: told(d) }, deliveries: [d] })
    }
  }

  if (storm.size === 0) return { sends, held }
  const members = deliveries.filter((d) => storm.has(d))
  const digestAt = options.heldUntil ?? new Date(Math.min(...members.map((d) => d.createdAt.getTime())) + DIGEST_WINDOW_MS)
  if (digestAt > options.now) return { sends, held: [...held, { deliveries: members, until: digestAt }] }
  sends.push(members.length === 1
    ? { message: { kind: 'event', told: told(members[0]) }, deliveries: members }
    : { message: { kind: 'digest', told: members.map(told) }, deliveries: members })
  return { sends, held }
}
