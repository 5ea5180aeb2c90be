// The webhook adapter: the event's JSON as it is, signed as the Standard Webhooks specification says, checked by a
// real receiver that verifies with the `standardwebhooks` package; each event type, tls.expiring with no incident,
// monitor.degraded with its degraded incident at each edge.
import t from 'tap'
import { webhookAdapter } from '../../../src/notifications/channels/webhook.ts'
import { webhookReceiver } from '../../support/webhook-receiver.ts'
import { newSecret } from '../delivery-helper.ts'
import { channel, degradedEvent, expiringEvent, flap, openedEvent, post, sendContext } from '../support.ts'

t.test('a machine reads it: no flaps or digests', async (t) => {
  t.equal(webhookAdapter.forPeople, false)
  t.throws(() => webhookAdapter.render(channel('webhook', { url: 'http://127.0.0.1:9/' }), flap, sendContext()), /one by one, not a flap/)
})

t.test('a certificate near its expiry: the event as it is (the monitor with its certificate, no incident, the check), signed', async (t) => {
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const hook = { ...channel('webhook', { url: `${receiver.url}/hooks/pingward` }), secrets: [secret] }
  // The receiver refuses a signature more than 5 minutes from its own clock: the attempt is signed now.
  const now = new Date()
  for (const told of [expiringEvent(), openedEvent()]) {
    t.equal(await post(webhookAdapter.render(hook, { kind: 'event', told }, sendContext(undefined, now.toISOString()))), 204)
  }
  const [expiring, opened] = receiver.received
  t.strictSame(expiring.verifiedWith, [secret], 'verified')
  t.equal(expiring.id, 'a1a1a1a1-0000-4000-8000-000000000004', 'webhook-id: the event id')
  t.equal(expiring.timestamp, String(Math.floor(now.getTime() / 1000)))
  t.equal(expiring.headers['content-type'], 'application/json')
  t.equal(expiring.body, JSON.stringify(expiringEvent().event), 'the body is the event, byte for byte')
  t.strictSame(expiring.payload, {
    type: 'tls.expiring',
    timestamp: '2026-05-01T12:01:05.000Z',
    data: { monitor: expiringEvent().event.data.monitor, incident: null, check: expiringEvent().event.data.check },
  })
  t.match(expiring.payload.data.monitor, { tls_expires_at: '2026-05-08T11:59:59.000Z', tls_issuer: 'Let\'s Encrypt, R11' })
  t.strictSame(opened.verifiedWith, [secret])
  t.equal(opened.payload.type, 'incident.opened')
})

t.test('monitor.degraded: both edges of a degraded incident as they are, signed; the incident\'s status says which', async (t) => {
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const hook = { ...channel('webhook', { url: `${receiver.url}/hooks/pingward` }), secrets: [secret] }
  const now = new Date()
  const edges = [degradedEvent('opened'), degradedEvent('resolved'), degradedEvent('resolved', 'pause')]
  for (const told of edges) {
    t.equal(await post(webhookAdapter.render(hook, { kind: 'event', told }, sendContext(undefined, now.toISOString()))), 204)
  }
  t.equal(receiver.received.length, 3)
  for (const [i, received] of receiver.received.entries()) {
    t.strictSame(received.verifiedWith, [secret], 'verified')
    t.equal(received.id, edges[i].id, 'webhook-id: the event id')
    t.equal(received.body, JSON.stringify(edges[i].event), 'the body is the event, byte for byte')
  }
  const [opened, resolved, paused] = receiver.received.map((r) => r.payload)
  t.match(opened, {
    type: 'monitor.degraded',
    data: {
      monitor: { status: 'degraded', degraded_after_ms: 2000 },
      incident: { kind: 'degraded', status: 'open', cause: 'response took 9120 ms, degraded after 2000 ms', resolved_at: null },
      check: { is_up: true },
    },
  })
  t.match(resolved, { type: 'monitor.degraded', data: { incident: { kind: 'degraded', status: 'resolved', duration_seconds: 210 }, check: { is_up: true } } })
  t.match(paused, { type: 'monitor.degraded', data: { monitor: { is_active: false }, incident: { status: 'resolved' }, check: null } })
})
