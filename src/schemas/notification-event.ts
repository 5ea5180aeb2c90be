// The body of a notification event: what a webhook receives, and what every other channel's message is made of.
import { Type, type Static } from '@sinclair/typebox'
import { NOTIFICATION_EVENT_TYPES } from '../domain/vocabulary.ts'
import { CheckSchema } from './check.ts'
import { IncidentSchema } from './incident.ts'
import { MonitorSchema } from '../monitors/schema.ts'
import { MaintenanceWindowSchema } from '../maintenance/schema.ts'
import { StringEnum, Timestamp } from './common.ts'

const OrNull = <T extends Parameters<typeof Type.Ref>[0]>(schema: T, description: string) =>
  Type.Union([Type.Ref(schema), Type.Null()], { description })

export const NotificationEventSchema = Type.Object({
  type: StringEnum(NOTIFICATION_EVENT_TYPES, {
    description: 'What happened: `incident.opened`, `incident.resolved`, a `down` incident opened or resolved; `monitor.degraded`, a ' +
      '`degraded` incident opened or resolved (one type for both edges: the incident\'s `status` says which); `heartbeat.missed`, a ' +
      'heartbeat\'s down incident opened because no ping came within its interval and grace (its resolution is an ' +
      '`incident.resolved`); `incident.acknowledged`, someone said they are on an open incident (`acknowledged_by`); `incident.reminder`, an incident the channel was told of is still open and unacknowledged ' +
      '(every `reminder_minutes` of the channel); `maintenance.started`, `maintenance.ended`, an occurrence of a maintenance window began ' +
      'or ended (`data.maintenance_window`); `location.coverage_lost`, fewer of a monitor\'s locations reported within two intervals ' +
      'plus 30 s than its quorum needs, so its status is kept as it was (`data.silent_locations`), `location.coverage_restored`, enough ' +
      'report again; `tls.expiring`, an HTTPS ' +
      'check saw a certificate 14, 7 or 1 days from its expiry (once per threshold and certificate); `test`, sent by the test route',
  }),
  timestamp: Timestamp('When it happened (for `tls.expiring`, when the check saw the certificate)'),
  data: Type.Object({
    monitor: OrNull(MonitorSchema, 'The monitor as it was then (for `tls.expiring`, its `tls_expires_at` and `tls_issuer` are the ' +
      'certificate\'s); null for `test` and `maintenance.*` events'),
    incident: OrNull(IncidentSchema, 'The incident that opened, resolved, was acknowledged or is reminded of (`kind` `degraded` for ' +
      '`monitor.degraded`, `down` for `incident.opened`, `incident.resolved` and `heartbeat.missed`); null for `test`, `tls.expiring`, `maintenance.*` and `location.*` events'),
    check: OrNull(CheckSchema, 'The check that opened or resolved it, that saw the certificate, or that made a `location.*` edge; null for ' +
      '`test`, when a pause or a delete resolved it, and when locations fell silent (no check made it)'),
    maintenance_window: Type.Optional(Type.Ref(MaintenanceWindowSchema, {
      description: 'On `maintenance.started` and `maintenance.ended`: the window as it was then (its `next_*` times are the occurrence that began, or the one after the end)',
    })),
    dashboard_url: Type.Optional(Type.String({
      format: 'uri',
      description: 'The monitor\'s page in the dashboard, `$PUBLIC_URL/monitors/{id}` (for a `test` event, the dashboard\'s home; for a ' +
        '`maintenance.*` event, its maintenance page, `$PUBLIC_URL/maintenance`); made ' +
        'from the sending server\'s `PUBLIC_URL` at each attempt, so always sent, while the stored event does not keep it',
      examples: ['https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b'],
    })),
    silent_locations: Type.Optional(Type.Array(Type.String(), {
      description: 'On `location.coverage_lost` and `location.coverage_restored`: the monitor\'s locations that do not count toward its ' +
        'quorum then (silent past two intervals plus 30 s, or never checked); each one\'s latest check is in `data.monitor.location_states`',
      examples: [['eu-west', 'us-east']],
    })),
    dependents_down: Type.Optional(Type.Integer({
      minimum: 0,
      description: 'On the opening (and reminders) of a down incident: how many monitors that depend on this one are down too, or ' +
        'failing towards it (their `failure_threshold` not yet reached); their incidents, opened while this one is down, are told to no one',
    })),
    acknowledge_url: Type.Optional(Type.String({
      format: 'uri',
      description: 'A one-click acknowledge link, `$PUBLIC_URL/acknowledge/{token}`, on an event about an open, unacknowledged ' +
        'incident (`incident.opened`, `heartbeat.missed`, `incident.reminder`, an opening `monitor.degraded`): the page it opens ' +
        'acknowledges the incident with one button, no sign-in. Signed, for this channel, valid 24 hours from this attempt, and ' +
        'spent once the incident is acknowledged',
      examples: ['https://pingward.example.com/acknowledge/AZ7Ef0t3xUq2kq1c8kM2tK8BbH3Wq0Fzv9ExampleTokenOnly'],
    })),
  }, { additionalProperties: false }),
}, {
  $id: 'NotificationEvent',
  title: 'NotificationEvent',
  additionalProperties: false,
  description: 'The JSON body of a webhook request. Its id is the `webhook-id` header, the same on every retry. `monitor.degraded` ' +
    'is sent when a degraded incident opens (`data.incident.status` `open`) and again when it resolves (`resolved`: fast checks, the ' +
    'monitor going down, a pause or a delete), to channels whose `events` include it. `heartbeat.missed` goes to the channels whose ' +
    '`events` include it or `incident.opened` (one message each). `tls.expiring` is ' +
    'sent 14, 7 and 1 days before the expiry of the certificate an HTTPS check saw, each once per certificate (a certificate first ' +
    'seen 5 days from its expiry: one event, the 7-day one); an expired certificate is told by its incident instead. ' +
    '`maintenance.started` and `maintenance.ended` go to every channel of the organization whose `events` include them. An incident that ' +
    'opens while its monitor is in maintenance is told to no one; if it is still open when the maintenance ends, its `incident.opened` ' +
    '(or `monitor.degraded`) is sent then, once.',
})

export type NotificationEvent = Static<typeof NotificationEventSchema>
