// PagerDuty Events API v2: a trigger whose dedup_key is the incident id, and a resolve with the same key, POSTed
// to PAGERDUTY_EVENTS_URL as PagerDuty documents them, received by a local server standing in for PagerDuty.
import t from 'tap'
import { pagerdutyAdapter } from '../../../src/notifications/channels/pagerduty.ts'
import {
  DEGRADED_INCIDENT_ID, EXPIRES, acknowledged, INCIDENT_ID, MONITOR_ID, channel, degradedEvent, degradedOpened, degradedResolved, expiring, expiringEvent, flap, monitorRecord, opened, post, resolved, resolvedEvent, sendContext,
  standIn, stormEvents, test, maintenanceEvent, WINDOW_ID,
} from '../support.ts'

const ROUTING_KEY = 'R0UT1NGKEY0123456789ABCDEFGHIJKL'
const answer = JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: INCIDENT_ID })
const service = channel('pagerduty', { routing_key: ROUTING_KEY })

t.test('a machine reads it: no flaps or digests', async (t) => {
  t.equal(pagerdutyAdapter.forPeople, false)
  t.throws(() => pagerdutyAdapter.render(service, flap, sendContext()), /one by one, not a flap/)
  t.throws(() => pagerdutyAdapter.render(service, { kind: 'digest', told: stormEvents(11) }, sendContext()), /not a digest/)
})

t.test('an incident that opened triggers an alert keyed by the incident id; its resolve closes that alert', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  t.equal(await post(pagerdutyAdapter.render(service, opened, sendContext(pagerduty.url))), 202)
  t.equal(await post(pagerdutyAdapter.render(service, resolved, sendContext(pagerduty.url))), 202)
  const [trigger, resolve] = pagerduty.received
  for (const request of [trigger, resolve]) {
    t.equal(request.method, 'POST')
    t.equal(request.url, '/v2/enqueue', 'PAGERDUTY_EVENTS_URL as written')
    t.equal(request.headers['content-type'], 'application/json')
  }
  const page = `https://pingward.example.com/monitors/${MONITOR_ID}`
  t.strictSame(JSON.parse(trigger.body), {
    routing_key: ROUTING_KEY,
    event_action: 'trigger',
    dedup_key: INCIDENT_ID,
    payload: {
      summary: 'Homepage is down: expected status 200, got 503',
      source: 'https://example.com/health',
      severity: 'critical',
      timestamp: '2026-05-01T12:00:05.000Z',
      component: 'Homepage',
      class: 'uptime check',
      custom_details: {
        monitor: 'Homepage',
        url: 'https://example.com/health',
        cause: 'expected status 200, got 503',
        status_code: 503,
        down_since: '2026-05-01T12:00:05.000Z',
        monitor_id: MONITOR_ID,
        incident_id: INCIDENT_ID,
      },
    },
    client: 'Pingward',
    client_url: page,
    links: [{ href: page, text: 'Homepage in Pingward' }],
  })
  t.strictSame(JSON.parse(resolve.body), { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: INCIDENT_ID })
})

t.test('an acknowledgement acknowledges the incident\'s alert, by its dedup_key', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  t.equal(await post(pagerdutyAdapter.render(service, acknowledged, sendContext(pagerduty.url))), 202)
  t.strictSame(JSON.parse(pagerduty.received[0].body), { routing_key: ROUTING_KEY, event_action: 'acknowledge', dedup_key: INCIDENT_ID })
})

t.test('a pause or a delete resolves the alert too', async (t) => {
  for (const by of ['pause', 'delete'] as const) {
    const outgoing = pagerdutyAdapter.render(service, { kind: 'event', told: resolvedEvent(undefined, by) }, sendContext())
    t.strictSame(outgoing.kind === 'http' && JSON.parse(outgoing.body), { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: INCIDENT_ID }, by)
  }
})

t.test('a degraded incident triggers a warning keyed by its id; its resolve (by fast checks, going down, a pause) closes that alert', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  t.equal(await post(pagerdutyAdapter.render(service, degradedOpened, sendContext(pagerduty.url))), 202)
  t.equal(await post(pagerdutyAdapter.render(service, degradedResolved, sendContext(pagerduty.url))), 202)
  const [trigger, resolve] = pagerduty.received
  const page = `https://pingward.example.com/monitors/${MONITOR_ID}`
  t.strictSame(JSON.parse(trigger.body), {
    routing_key: ROUTING_KEY,
    event_action: 'trigger',
    dedup_key: DEGRADED_INCIDENT_ID,
    payload: {
      summary: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
      source: 'https://example.com/health',
      severity: 'warning',
      timestamp: '2026-05-01T12:00:05.000Z',
      component: 'Homepage',
      class: 'response time',
      custom_details: {
        monitor: 'Homepage',
        url: 'https://example.com/health',
        cause: 'response took 9120 ms, degraded after 2000 ms',
        status_code: 200,
        degraded_since: '2026-05-01T12:00:05.000Z',
        monitor_id: MONITOR_ID,
        incident_id: DEGRADED_INCIDENT_ID,
      },
    },
    client: 'Pingward',
    client_url: page,
    links: [{ href: page, text: 'Homepage in Pingward' }],
  })
  t.strictSame(JSON.parse(resolve.body), { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: DEGRADED_INCIDENT_ID })
  for (const by of ['down', 'pause'] as const) {
    const outgoing = pagerdutyAdapter.render(service, { kind: 'event', told: degradedEvent('resolved', by) }, sendContext())
    t.strictSame(outgoing.kind === 'http' && JSON.parse(outgoing.body), { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: DEGRADED_INCIDENT_ID }, by)
  }
})

t.test('a degraded trigger\'s summary is its title, which says the cause once; a long name keeps it within 1,024 characters', async (t) => {
  const told = degradedEvent('opened')
  told.event.data.monitor = { ...told.event.data.monitor!, name: 'N'.repeat(255) }
  told.event.data.incident = { ...told.event.data.incident!, cause: `response took 9120 ms, ${'very '.repeat(400)}slow` }
  const outgoing = pagerdutyAdapter.render(service, { kind: 'event', told }, sendContext())
  const { summary } = outgoing.kind === 'http' && JSON.parse(outgoing.body).payload
  t.ok(summary.length <= 1024, `${summary.length} characters`)
  t.equal(summary.match(/response took/g).length, 1, 'the cause once')
  t.match(summary, /^N{255} is degraded: response took 9120 ms, very/)
})

t.test('a test triggers an informational alert of its own', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  t.equal(await post(pagerdutyAdapter.render(service, test, sendContext(pagerduty.url))), 202)
  t.strictSame(JSON.parse(pagerduty.received[0].body), {
    routing_key: ROUTING_KEY,
    event_action: 'trigger',
    dedup_key: 'pingward-test-a1a1a1a1-0000-4000-8000-000000000003',
    payload: {
      summary: 'Test notification from Pingward (channel Ops pagerduty)',
      source: 'https://pingward.example.com',
      severity: 'info',
      timestamp: '2026-05-01T12:01:05.000Z',
      custom_details: { channel: 'Ops pagerduty' },
    },
    client: 'Pingward',
    client_url: 'https://pingward.example.com/',
  })
})

t.test('a long cause is cut to the 1,024 characters of a summary', async (t) => {
  const long = structuredClone(opened)
  if (long.kind === 'event') long.told.event.data.incident!.cause = 'x'.repeat(5000)
  const outgoing = pagerdutyAdapter.render(service, long, sendContext())
  const { payload } = JSON.parse(outgoing.kind === 'http' ? outgoing.body : '{}')
  t.equal(payload.summary.length, 1024)
  t.equal(payload.custom_details.cause.length, 5000, 'the details keep it whole')
})

t.test('a certificate near its expiry triggers a warning keyed by monitor and certificate: its reminders update one alert', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  t.equal(await post(pagerdutyAdapter.render(service, expiring, sendContext(pagerduty.url))), 202)
  const page = `https://pingward.example.com/monitors/${MONITOR_ID}`
  const dedupKey = `pingward-tls-${MONITOR_ID}-${EXPIRES}`
  t.strictSame(JSON.parse(pagerduty.received[0].body), {
    routing_key: ROUTING_KEY,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: 'The certificate of Homepage expires in 7 days (on 2026-05-08 11:59 UTC)',
      source: 'https://example.com/health',
      severity: 'warning',
      timestamp: '2026-05-01T12:01:05.000Z',
      component: 'Homepage',
      class: 'tls certificate',
      custom_details: {
        monitor: 'Homepage',
        url: 'https://example.com/health',
        expires_at: EXPIRES,
        issuer: 'Let\'s Encrypt, R11',
        monitor_id: MONITOR_ID,
      },
    },
    client: 'Pingward',
    client_url: page,
    links: [{ href: page, text: 'Homepage in Pingward' }],
  })
  const render = (told: ReturnType<typeof expiringEvent>) => {
    const outgoing = pagerdutyAdapter.render(service, { kind: 'event', told }, sendContext())
    return JSON.parse(outgoing.kind === 'http' ? outgoing.body : '{}')
  }
  const lastDay = expiringEvent()
  lastDay.event.timestamp = '2026-05-07T13:00:00.000Z'
  t.match(render(lastDay), { dedup_key: dedupKey, payload: { summary: 'The certificate of Homepage expires in 1 day (on 2026-05-08 11:59 UTC)' } },
    'the 1-day reminder of the same certificate: the same alert')
  const renewed = render(expiringEvent(monitorRecord({ status: 'up', tls_expires_at: '2026-05-09T11:59:59.000Z', tls_issuer: null })))
  t.equal(renewed.dedup_key, `pingward-tls-${MONITOR_ID}-2026-05-09T11:59:59.000Z`, 'another certificate: another alert')
  t.equal(renewed.payload.custom_details.issuer, null)
})

t.test('a maintenance window is an info alert while it lasts, keyed by the window, resolved at its end', async (t) => {
  const pagerduty = await standIn(t, { status: 202, answer })
  for (const edge of ['started', 'ended'] as const) {
    t.equal(await post(pagerdutyAdapter.render(service, { kind: 'event', told: maintenanceEvent(edge) }, sendContext(pagerduty.url))), 202)
  }
  const [trigger, resolve] = pagerduty.received.map((request) => JSON.parse(request.body))
  t.match(trigger, {
    event_action: 'trigger',
    dedup_key: `pingward-maintenance-${WINDOW_ID}`,
    payload: { summary: 'Maintenance began: Database upgrade', severity: 'info', class: 'maintenance', custom_details: { window_id: WINDOW_ID, mode: 'mute' } },
  })
  t.strictSame(resolve, { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: `pingward-maintenance-${WINDOW_ID}` })
})
