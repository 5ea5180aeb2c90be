// Which messages a channel's due deliveries become: each event for programs; for people a flap in one
// message and a storm's deliveries in one digest at the end of its minute.
import t from 'tap'
import { planBatch } from '../../src/notifications/batch-plan.ts'
import type { QueuedDelivery } from '../../src/repositories/delivery-queue.ts'

const now = new Date('2026-01-01T12:00:00Z')
let n = 0
function delivery (type: QueuedDelivery['type'], incidentId: string | null, values: Partial<QueuedDelivery> = {}): QueuedDelivery {
  n++
  return {
    id: `d${n}`,
    eventId: `e${n}`,
    type,
    monitorId: null,
    incidentId,
    payload: { type, timestamp: now.toISOString(), data: { monitor: null, incident: null, check: null } },
    status: 'pending',
    attempts: 0,
    createdAt: now,
    nextAttemptAt: now,
    stormRank: 1,
    ...values,
  }
}
const kinds = (plan: ReturnType<typeof planBatch>) => plan.sends.map((s) => `${s.message.kind}:${s.deliveries.map((d) => d.id).join('+')}`)

t.test('a program gets each event as it is, in order', async (t) => {
  n = 0
  const batch = [delivery('incident.opened', 'i1'), delivery('incident.resolved', 'i1'), delivery('test', null)]
  const plan = planBatch(batch, { forPeople: false, now, heldUntil: null })
  t.same(kinds(plan), ['event:d1', 'event:d2', 'event:d3'])
  t.same(plan.held, [])
})

t.test('a program\'s resolution waits for its opening when that is not due yet', async (t) => {
  n = 0
  const retry = new Date(now.getTime() + 30_000)
  const batch = [delivery('incident.opened', 'i1', { status: 'failed', attempts: 1, nextAttemptAt: retry }), delivery('incident.resolved', 'i1')]
  const plan = planBatch(batch, { forPeople: false, now, heldUntil: null })
  t.same(kinds(plan), [])
  t.same(plan.held.map((h) => [h.deliveries.map((d) => d.id), h.until]), [[['d2'], retry]])
})

t.test('a person gets an incident told whole when its opening was not told', async (t) => {
  n = 0
  const batch = [
    delivery('incident.opened', 'i1', { status: 'failed', attempts: 2, nextAttemptAt: now }),
    delivery('test', null),
    delivery('incident.resolved', 'i1'),
    delivery('incident.opened', 'i2'),
  ]
  const plan = planBatch(batch, { forPeople: true, now, heldUntil: null })
  t.same(kinds(plan), ['flap:d1+d3', 'event:d2', 'event:d4'])
  const flap = plan.sends[0].message
  t.ok(flap.kind === 'flap' && flap.opened.id === 'e1' && flap.resolved.id === 'e3')
  t.same(plan.held, [])
})

t.test('for a person, an opening waiting for its retry (Retry-After, backoff) is not brought forward by its resolution', async (t) => {
  n = 0
  const retry = new Date(now.getTime() + 120_000)
  const batch = [
    delivery('incident.opened', 'i1', { status: 'failed', attempts: 1, nextAttemptAt: retry }),
    delivery('incident.resolved', 'i1'),
    delivery('test', null),
  ]
  const plan = planBatch(batch, { forPeople: true, now, heldUntil: null })
  t.same(kinds(plan), ['event:d3'])
  t.same(plan.held.map((h) => [h.deliveries.map((d) => d.id), h.until]), [[['d1', 'd2'], retry]], 'both wait for the retry')
  const later = planBatch(batch, { forPeople: true, now: retry, heldUntil: null })
  t.same(kinds(later), ['flap:d1+d2', 'event:d3'], 'then they go as one message')
})

t.test('a storm: the members wait for the end of the minute since the first of them, then go as one digest', async (t) => {
  n = 0
  const first = new Date(now.getTime() - 30_000)
  const batch = [
    delivery('incident.opened', 'i1', { stormRank: 10 }),
    delivery('incident.opened', 'i2', { stormRank: 11, createdAt: first }),
    delivery('incident.resolved', 'i2', { stormRank: 10 }), // its opening is in the storm: it goes along
    delivery('test', null, { stormRank: 12 }), // a test is never held
  ]
  const waiting = planBatch(batch, { forPeople: true, now, heldUntil: null })
  t.same(kinds(waiting), ['event:d1', 'event:d4'])
  t.same(waiting.held.map((h) => [h.deliveries.map((d) => d.id), h.until]), [[['d2', 'd3'], new Date(first.getTime() + 60_000)]])

  const later = new Date(first.getTime() + 60_000)
  const sent = planBatch(batch.slice(1, 3), { forPeople: true, now: later, heldUntil: null })
  t.same(kinds(sent), ['digest:d2+d3'])

  const heldUntil = new Date(later.getTime() + 5000)
  const joining = planBatch(batch.slice(1, 3), { forPeople: true, now: later, heldUntil })
  t.same(joining.held.map((h) => h.until), [heldUntil], 'a digest already waiting is joined')
})

t.test('a storm of one goes as its event', async (t) => {
  n = 0
  const plan = planBatch([delivery('incident.opened', 'i1', { stormRank: 11, createdAt: new Date(now.getTime() - 61_000) })], { forPeople: true, now, heldUntil: null })
  t.same(kinds(plan), ['event:d1'])
})

t.test('a certificate\'s reminder has no incident: told as it is, to a program and to a person, and in a storm\'s digest', async (t) => {
  n = 0
  const batch = [delivery('tls.expiring', null), delivery('incident.opened', 'i1'), delivery('incident.resolved', 'i1'), delivery('tls.expiring', null)]
  t.same(kinds(planBatch(batch, { forPeople: false, now, heldUntil: null })), ['event:d1', 'event:d2', 'event:d3', 'event:d4'])
  t.same(kinds(planBatch(batch, { forPeople: true, now, heldUntil: null })), ['event:d1', 'flap:d2+d3', 'event:d4'])
  n = 0
  const storm = Array.from({ length: 12 }, (_, i) => delivery('tls.expiring', null, { stormRank: i + 1, createdAt: new Date(now.getTime() - 61_000) }))
  const plan = planBatch(storm, { forPeople: true, now, heldUntil: null })
  t.same(kinds(plan), [...storm.slice(0, 10).map((d) => `event:${d.id}`), 'digest:d11+d12'])
  t.same(plan.held, [])
})

/** A `monitor.degraded` delivery: one type for both edges, its incident's status says which. */
function degraded (edge: 'open' | 'resolved', incidentId: string, values: Partial<QueuedDelivery> = {}): QueuedDelivery {
  const d = delivery('monitor.degraded', incidentId, values)
  const resolved = edge === 'resolved'
  const incident = {
    id: incidentId,
    monitor_id: 'm1',
    kind: 'degraded' as const,
    status: edge,
    cause: 'response took 900 ms, degraded after 200 ms',
    status_code: 200,
    started_at: now.toISOString(),
    resolved_at: resolved ? now.toISOString() : null,
    duration_seconds: resolved ? 0 : null,
    acknowledged_at: null,
    acknowledged_by: null,
    during_maintenance: false,
    suppressed_by: null,
  }
  return { ...d, payload: { ...d.payload, data: { ...d.payload.data, incident } } }
}

t.test('a degraded incident\'s two edges follow the rules of a down incident\'s: in order, held for a failed opening, a flap for a person', async (t) => {
  n = 0
  const retry = new Date(now.getTime() + 30_000)
  const waiting = [degraded('open', 'g1', { status: 'failed', attempts: 1, nextAttemptAt: retry }), degraded('resolved', 'g1')]
  const program = planBatch(waiting, { forPeople: false, now, heldUntil: null })
  t.same(kinds(program), [], 'PagerDuty never gets the resolve before its trigger')
  t.same(program.held.map((h) => [h.deliveries.map((d) => d.id), h.until]), [[['d2'], retry]])
  t.same(kinds(planBatch(waiting, { forPeople: false, now: retry, heldUntil: null })), ['event:d1', 'event:d2'])

  n = 0
  const batch = [degraded('open', 'g1'), degraded('resolved', 'g1'), delivery('incident.opened', 'i1'), degraded('open', 'g2')]
  t.same(kinds(planBatch(batch, { forPeople: true, now, heldUntil: null })), ['flap:d1+d2', 'event:d3', 'event:d4'])
  t.same(kinds(planBatch(batch, { forPeople: false, now, heldUntil: null })), ['event:d1', 'event:d2', 'event:d3', 'event:d4'])
})

t.test('a storm with degraded deliveries: a member takes its other edge along into the digest', async (t) => {
  n = 0
  const old = new Date(now.getTime() - 61_000)
  const batch = [degraded('open', 'g1', { stormRank: 11, createdAt: old }), degraded('resolved', 'g1', { stormRank: 5, createdAt: old })]
  t.same(kinds(planBatch(batch, { forPeople: true, now, heldUntil: null })), ['digest:d1+d2'])
})
