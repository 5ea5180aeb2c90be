// Notification test support: an incident's events as the outbox writes them (checked against the webhook body's
// schema), channels, a send context, and a local server standing in for a service that records what it receives.
import type { IncomingHttpHeaders } from 'node:http'
import type { ChannelType } from '../../src/domain/vocabulary.ts'
import type { ChannelForSending, Message, Outgoing, SendContext, ToldEvent } from '../../src/notifications/channels/types.ts'
import { CheckSchema } from '../../src/schemas/check.ts'
import { IncidentSchema } from '../../src/schemas/incident.ts'
import { MonitorSchema, type Monitor } from '../../src/monitors/schema.ts'
import { MaintenanceWindowSchema } from '../../src/maintenance/schema.ts'
import { NotificationEventSchema, type NotificationEvent } from '../../src/schemas/notification-event.ts'
import type { Teardown } from '../helper.ts'
import { ajv, typeboxAnswer } from '../support/response-validators.ts'
import { targetServer } from '../support/target-server.ts'

export const MONITOR_ID = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b'
export const INCIDENT_ID = '0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f'

const STARTED = '2026-05-01T12:00:05.000Z' // the first failing check
const OPENED = '2026-05-01T12:01:05.000Z' // the third: the threshold
const RESOLVED = '2026-05-01T12:03:35.000Z' // 210 s after the start: "3 min"
const ACKNOWLEDGED = '2026-05-01T12:02:00.000Z'
const REMINDED = '2026-05-01T12:31:05.000Z'

// The monitor record as the outbox writes it: with its opted-in channels once the schema has them.
const channelIds = 'notification_channel_ids' in MonitorSchema.properties ? { notification_channel_ids: [] } : {}

export function monitorRecord (overrides: Partial<Monitor> = {}): Monitor {
  return {
    ...channelIds,
    id: MONITOR_ID,
    name: 'Homepage',
    url: 'https://example.com/health',
    monitor_type: 'site',
    status: 'down',
    is_active: true,
    interval_minutes: 1,
    last_checked_at: OPENED,
    method: 'GET',
    expected_status: 200,
    timeout_seconds: 10,
    failure_threshold: 3,
    recovery_threshold: 1,
    keyword: null,
    keyword_mode: 'contains',
    degraded_after_ms: null,
    request_headers: {},
    secret_headers: [],
    request_body: null,
    dns_record_type: null,
    dns_expected: null,
    grace_minutes: null,
    ping_url: null,
    tls_expires_at: null,
    tls_issuer: null,
    labels: {},
    depends_on: [],
    in_maintenance: false,
    locations: [],
    location_quorum: null,
    location_states: [],
    created_at: '2026-04-01T09:00:00.000Z',
    updated_at: '2026-04-01T09:00:00.000Z',
    ...overrides,
  } as Monitor
}

const isEvent = typeboxAnswer(NotificationEventSchema, MonitorSchema, IncidentSchema, CheckSchema, MaintenanceWindowSchema)

/** The fixture, once it is proven to be what the outbox writes: a webhook body of the API's records. */
function checked (event: NotificationEvent): NotificationEvent {
  if (!isEvent(event)) throw new Error(`fixture is not a NotificationEvent: ${ajv.errorsText(isEvent.errors)}`)
  return event
}

const incident = {
  id: INCIDENT_ID,
  monitor_id: MONITOR_ID,
  kind: 'down' as const,
  cause: 'expected status 200, got 503',
  status_code: 503,
  started_at: STARTED,
  acknowledged_at: null,
  acknowledged_by: null,
  during_maintenance: false,
  suppressed_by: null,
}

/** The `incident.opened` event of the check that reached the threshold. */
export function openedEvent (monitor = monitorRecord()): ToldEvent {
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000001',
    event: checked({
      type: 'incident.opened',
      timestamp: OPENED,
      data: {
        monitor,
        incident: { ...incident, monitor_id: monitor.id, status: 'open', resolved_at: null, duration_seconds: null },
        check: {
          id: 'c0c0c0c0-0000-4000-8000-000000000001',
          monitor_id: monitor.id,
          is_up: false,
          status_code: 503,
          response_time_ms: 120,
          checked_at: OPENED,
          error_message: 'expected status 200, got 503',
        },
      },
    }),
  }
}

/** The `incident.resolved` event: by a passing check, or (`by`) by a pause or a delete, which has no check. */
export function resolvedEvent (monitor = monitorRecord({ status: 'up' }), by: 'check' | 'pause' | 'delete' = 'check'): ToldEvent {
  const changed = by === 'pause' ? { ...monitor, is_active: false, status: 'paused' as const } : monitor
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000002',
    event: checked({
      type: 'incident.resolved',
      timestamp: RESOLVED,
      data: {
        monitor: changed,
        incident: { ...incident, monitor_id: monitor.id, status: 'resolved', resolved_at: RESOLVED, duration_seconds: 210 },
        check: by === 'check'
          ? {
              id: 'c0c0c0c0-0000-4000-8000-000000000002',
              monitor_id: monitor.id,
              is_up: true,
              status_code: 200,
              response_time_ms: 80,
              checked_at: RESOLVED,
              error_message: null,
            }
          : null,
      },
    }),
  }
}

export const EXPIRES = '2026-05-08T11:59:59.000Z' // 7 days from the check that saw it (6 d 23 h 58 min)

/** The `tls.expiring` event of the check that saw the monitor's certificate 7 days from its expiry: no incident. */
export function expiringEvent (monitor = monitorRecord({ status: 'up', tls_expires_at: EXPIRES, tls_issuer: 'Let\'s Encrypt, R11' })): ToldEvent {
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000004',
    event: checked({
      type: 'tls.expiring',
      timestamp: OPENED,
      data: {
        monitor,
        incident: null,
        check: {
          id: 'c0c0c0c0-0000-4000-8000-000000000004',
          monitor_id: monitor.id,
          is_up: true,
          status_code: 200,
          response_time_ms: 95,
          checked_at: OPENED,
          error_message: null,
        },
      },
    }),
  }
}

export const DEGRADED_INCIDENT_ID = '0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e70'
const SLOW_CAUSE = 'response took 9120 ms, degraded after 2000 ms'

/**
 * The `monitor.degraded` events of a degraded incident: opened by the second slow check in a row (threshold 2,
 * starting at the first), resolved (`by`) by a fast check, by the monitor going down (at its first failing
 * check, no later than the check that told it), or by a pause.
 */
export function degradedEvent (edge: 'opened' | 'resolved', by: 'check' | 'down' | 'pause' = 'check'): ToldEvent {
  const base = monitorRecord({ status: 'degraded', degraded_after_ms: 2000 })
  const degradedIncident = { ...incident, id: DEGRADED_INCIDENT_ID, kind: 'degraded' as const, cause: SLOW_CAUSE, status_code: 200 }
  const check = (id: string, at: string, values: { is_up: boolean, status_code: number | null, response_time_ms: number, error_message: string | null }) =>
    ({ id, monitor_id: MONITOR_ID, checked_at: at, ...values })
  if (edge === 'opened') {
    return {
      id: 'a1a1a1a1-0000-4000-8000-000000000005',
      event: checked({
        type: 'monitor.degraded',
        timestamp: OPENED,
        data: {
          monitor: base,
          incident: { ...degradedIncident, status: 'open', resolved_at: null, duration_seconds: null },
          check: check('c0c0c0c0-0000-4000-8000-000000000005', OPENED, { is_up: true, status_code: 200, response_time_ms: 8800, error_message: 'response took 8800 ms, degraded after 2000 ms' }),
        },
      }),
    }
  }
  const monitor = by === 'pause' ? { ...base, is_active: false, status: 'paused' as const } : { ...base, status: by === 'down' ? 'down' as const : 'up' as const }
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000006',
    event: checked({
      type: 'monitor.degraded',
      timestamp: RESOLVED,
      data: {
        monitor,
        incident: { ...degradedIncident, status: 'resolved', resolved_at: RESOLVED, duration_seconds: 210 },
        check: by === 'pause'
          ? null
          : check('c0c0c0c0-0000-4000-8000-000000000006', RESOLVED, by === 'down'
            ? { is_up: false, status_code: 503, response_time_ms: 120, error_message: 'expected status 200, got 503' }
            : { is_up: true, status_code: 200, response_time_ms: 90, error_message: null }),
      },
    }),
  }
}

/** The `heartbeat.missed` event of a heartbeat whose deadline passed without a ping: its down incident opened at once. */
export function heartbeatMissedEvent (): ToldEvent {
  const cause = 'no ping within 6 min (interval 5 + grace 1)'
  const monitor = monitorRecord({
    name: 'Nightly backup',
    url: null,
    monitor_type: 'heartbeat',
    interval_minutes: 5,
    grace_minutes: 1,
    ping_url: 'https://pingward.example.com/ping/hb_6Qm2xTz9LkP4vW8sYb3nRc',
    last_checked_at: '2026-05-01T11:55:05.000Z',
  })
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000007',
    event: checked({
      type: 'heartbeat.missed',
      timestamp: OPENED,
      data: {
        monitor,
        incident: { ...incident, cause, status_code: null, started_at: OPENED, status: 'open', resolved_at: null, duration_seconds: null },
        check: { id: 'c0c0c0c0-0000-4000-8000-000000000007', monitor_id: MONITOR_ID, is_up: false, status_code: null, response_time_ms: 0, checked_at: OPENED, error_message: cause },
      },
    }),
  }
}

/** The `incident.acknowledged` event of the open incident: a member's key said they are on it a minute in. */
export function acknowledgedEvent (): ToldEvent {
  const base = openedEvent().event
  return {
    id: 'a1a1a1a1-0000-4000-8000-000000000008',
    event: {
      ...base,
      type: 'incident.acknowledged',
      timestamp: ACKNOWLEDGED,
      data: {
        ...base.data,
        incident: { ...base.data.incident!, acknowledged_at: ACKNOWLEDGED, acknowledged_by: { type: 'api_key', id: 'ac1ac1ac-0000-4000-8000-000000000001', label: 'on-call (sk_live_Ab3d…)' } },
        check: null,
      },
    },
  }
}

/** The `incident.reminder` of the open incident, nobody having acknowledged it. */
export function reminderEvent (): ToldEvent {
  const base = openedEvent().event
  return { id: 'a1a1a1a1-0000-4000-8000-000000000009', event: { ...base, type: 'incident.reminder', timestamp: REMINDED, data: { ...base.data, check: null } } }
}

export const WINDOW_ID = '7e2d1c0b-4a3f-4e5d-9c8b-1a2b3c4d5e6f'

/** `maintenance.started` (or `ended`) of a one-off window over the monitor, muted, 12:00 to 13:00. */
export function maintenanceEvent (edge: 'started' | 'ended'): ToldEvent {
  const window = {
    id: WINDOW_ID,
    title: 'Database upgrade',
    description: null,
    monitor_ids: [MONITOR_ID],
    all_monitors: false,
    label_selector: ['env:prod'],
    starts_at: '2026-05-01T12:00:00.000Z',
    ends_at: '2026-05-01T13:00:00.000Z',
    rrule: null,
    timezone: 'UTC',
    mode: 'mute' as const,
    state: edge === 'started' ? 'active' as const : 'completed' as const,
    next_starts_at: edge === 'started' ? '2026-05-01T12:00:00.000Z' : null,
    next_ends_at: edge === 'started' ? '2026-05-01T13:00:00.000Z' : null,
    created_at: '2026-04-30T09:00:00.000Z',
    updated_at: '2026-04-30T09:00:00.000Z',
  }
  return {
    id: `a1a1a1a1-0000-4000-8000-00000000001${edge === 'started' ? 0 : 1}`,
    event: checked({ type: `maintenance.${edge}`, timestamp: edge === 'started' ? '2026-05-01T12:00:00.000Z' : '2026-05-01T13:00:00.000Z', data: { monitor: null, incident: null, check: null, maintenance_window: window } }),
  }
}

/** A monitor of three locations, two of them silent since 11:40 (`lost`), or reporting again (`restored`). */
export function coverageEvent (edge: 'lost' | 'restored'): ToldEvent {
  const at = (time: string) => `2026-05-01T${time}.000Z`
  const monitor = monitorRecord({
    status: 'up',
    locations: ['eu-west', 'us-east', 'ap-south'],
    location_states: [
      { location: 'eu-west', status: 'up', last_checked_at: at('12:00:00'), error_message: null },
      { location: 'us-east', status: 'up', last_checked_at: edge === 'lost' ? at('11:40:00') : at('12:00:20'), error_message: null },
      { location: 'ap-south', status: 'up', last_checked_at: edge === 'lost' ? at('11:40:00') : at('12:00:40'), error_message: null },
    ],
  })
  return {
    id: `a1a1a1a1-0000-4000-8000-00000000002${edge === 'lost' ? 0 : 1}`,
    event: checked({
      type: `location.coverage_${edge}`,
      timestamp: at('12:01:00'),
      data: { monitor, incident: null, check: null, silent_locations: edge === 'lost' ? ['us-east', 'ap-south'] : [] },
    }),
  }
}

export function testEvent (): ToldEvent {
  return { id: 'a1a1a1a1-0000-4000-8000-000000000003', event: checked({ type: 'test', timestamp: OPENED, data: { monitor: null, incident: null, check: null } }) }
}

/** A storm: `count` monitors (`Monitor 1`, ...) each opening an incident, every third one resolving. */
export function stormEvents (count: number): ToldEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const monitor = monitorRecord({ id: `6f1c2a8e-3b4d-4e5f-8a9b-${String(i).padStart(12, '0')}`, name: `Monitor ${i + 1}` })
    const told = i % 3 === 2 ? resolvedEvent(monitor) : openedEvent(monitor)
    const incidentId = `0b9e8d7c-6a5b-4c3d-9e2f-${String(i).padStart(12, '0')}`
    return { id: `e0e0e0e0-0000-4000-8000-${String(i).padStart(12, '0')}`, event: { ...told.event, data: { ...told.event.data, incident: { ...told.event.data.incident!, id: incidentId } } } }
  })
}

export const opened: Message = { kind: 'event', told: openedEvent() }
export const resolved: Message = { kind: 'event', told: resolvedEvent() }
export const flap: Message = { kind: 'flap', opened: openedEvent(), resolved: resolvedEvent() }
export const test: Message = { kind: 'event', told: testEvent() }
export const acknowledged: Message = { kind: 'event', told: acknowledgedEvent() }
export const reminder: Message = { kind: 'event', told: reminderEvent() }
export const expiring: Message = { kind: 'event', told: expiringEvent() }
export const degradedOpened: Message = { kind: 'event', told: degradedEvent('opened') }
export const degradedResolved: Message = { kind: 'event', told: degradedEvent('resolved') }
export const heartbeatMissed: Message = { kind: 'event', told: heartbeatMissedEvent() }

export const MESSAGES_FOR_PEOPLE: Array<[string, Message]> = [
  ['opened', opened], ['resolved', resolved], ['flap', flap], ['test', test], ['digest', { kind: 'digest', told: stormEvents(12) }],
  ['acknowledged', acknowledged], ['digest with an acknowledgement', { kind: 'digest', told: [...stormEvents(11), acknowledgedEvent()] }],
  ['reminder', reminder], ['digest with a reminder', { kind: 'digest', told: [...stormEvents(11), reminderEvent()] }],
  ['degraded', degradedOpened], ['no longer degraded', degradedResolved],
  ['degraded flap', { kind: 'flap', opened: degradedEvent('opened'), resolved: degradedEvent('resolved') }],
  ['digest with degraded', { kind: 'digest', told: [...stormEvents(10), degradedEvent('opened'), degradedEvent('resolved')] }],
  ['maintenance started', { kind: 'event', told: maintenanceEvent('started') }],
  ['digest with maintenance', { kind: 'digest', told: [...stormEvents(11), maintenanceEvent('ended')] }],
  ['locations silent', { kind: 'event', told: coverageEvent('lost') }], ['locations back', { kind: 'event', told: coverageEvent('restored') }],
  ['digest with locations silent', { kind: 'digest', told: [...stormEvents(11), coverageEvent('lost')] }],
]

/** A send context for services at `base` (a stand-in), "now" one minute after the incident opened. */
export function sendContext (base = 'http://127.0.0.1:9', now = '2026-05-01T12:02:05.000Z'): SendContext {
  return {
    publicUrl: 'https://pingward.example.com',
    serviceUrls: { telegram: `${base}/telegram`, pagerduty: `${base}/v2/enqueue`, ntfy: `${base}/ntfy` },
    now: new Date(now),
  }
}

export function channel (type: ChannelType, config: Record<string, unknown>): ChannelForSending {
  return { id: 'cccccccc-0000-4000-8000-000000000001', name: `Ops ${type}`, type, config, secrets: [] }
}

interface Received { method: string, url: string, headers: IncomingHttpHeaders, body: string }

/** A local server standing in for a service: records each request and answers `status` with `answer`. */
export async function standIn (t: Teardown, { status = 200, answer = 'ok' } = {}) {
  const received: Received[] = []
  const server = await targetServer(t, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(status, { 'content-type': 'text/plain' }).end(answer)
    })
  })
  return { url: server.url, received }
}

/** Performs a rendered HTTP request as the sender does (POST, no redirects) and returns the status. */
export async function post (outgoing: Outgoing): Promise<number> {
  if (outgoing.kind !== 'http') throw new Error(`not an HTTP request: ${outgoing.kind}`)
  const response = await fetch(outgoing.url, { method: 'POST', headers: outgoing.headers, body: outgoing.body, redirect: 'manual' })
  await response.arrayBuffer()
  return response.status
}
