// The closed vocabularies, each written once: the TypeBox schemas, the table
// definitions (text columns with a CHECK constraint), the checker and the dashboard all take them from here.

/** `site`: an HTTP(S) request; `tcp`: a connection opened; `dns`: a question to the resolver; `heartbeat`: pinged, not checked. */
export const MONITOR_TYPES = ['site', 'tcp', 'dns', 'heartbeat'] as const
export type MonitorType = typeof MONITOR_TYPES[number]

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const
export type HttpMethod = typeof HTTP_METHODS[number]

/** `pending` until the first check, `paused` while inactive, `degraded` while checks pass slower than the monitor allows. */
export const MONITOR_STATUSES = ['pending', 'up', 'degraded', 'down', 'paused'] as const
export type MonitorStatus = typeof MONITOR_STATUSES[number]

/** How a `site` monitor's `keyword` is matched against the first 1 MiB of the response body. */
export const KEYWORD_MODES = ['contains', 'not_contains'] as const
export type KeywordMode = typeof KEYWORD_MODES[number]

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'] as const
export type DnsRecordType = typeof DNS_RECORD_TYPES[number]

export const INCIDENT_STATUSES = ['open', 'resolved'] as const

/** What an incident is about: the monitor was `down`, or its checks passed but slower than it allows. */
export const INCIDENT_KINDS = ['down', 'degraded'] as const
export type IncidentKind = typeof INCIDENT_KINDS[number]

/** The sizes of uptime rollup buckets (api-contract section 10): a UTC hour or a UTC day. */
export const ROLLUP_GRANULARITIES = ['hour', 'day'] as const
export type RollupGranularity = typeof ROLLUP_GRANULARITIES[number]
/** Days the rollup rows of each granularity are kept: the reach of the hourly view, and of the daily one (>= 400). */
export const ROLLUP_RETENTION_DAYS = { hour: 35, day: 400 } as const satisfies Record<RollupGranularity, number>

/** `read` keys may only read; `write` keys may do what their maker's role allows (SCOPE_ROLES). */
export const API_KEY_SCOPES = ['read', 'write'] as const
export type ApiKeyScope = typeof API_KEY_SCOPES[number]

/** A member's role in an organization (api-contract section 12), least first: each includes the ones before it. */
export const ROLES = ['viewer', 'responder', 'editor', 'admin', 'owner'] as const
export type Role = typeof ROLES[number]
/** The most a key of each scope may do: a key acts with the lower of this and its maker's role. */
/** Who made a change the audit log records: a member in the dashboard, an API key, or the server itself (CLI, jobs). */
export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'system'] as const
export type AuditActorType = typeof AUDIT_ACTOR_TYPES[number]

/** What the audit log records, `<entity>.<verb>` (api-contract section 12); the entity is the part before the dot. */
export const AUDIT_ACTIONS = [
  'monitor.created', 'monitor.updated', 'monitor.deleted',
  'notification_channel.created', 'notification_channel.updated', 'notification_channel.deleted',
  'notification_channel.secret_rotated', 'notification_channel.tested', 'delivery.retried',
  'api_key.created', 'api_key.deleted',
  'organization.created', 'organization.updated',
  'member.added', 'member.role_changed', 'member.removed',
  'invitation.created', 'invitation.revoked', 'invitation.accepted',
  'incident.acknowledged', 'incident.note_added',
  'maintenance_window.created', 'maintenance_window.updated', 'maintenance_window.deleted',
  'maintenance_window.started', 'maintenance_window.ended',
  'status_page.created', 'status_page.updated', 'status_page.deleted', 'status_page.domain_verified',
  'status_page_component.created', 'status_page_component.updated', 'status_page_component.deleted',
  'status_report.created', 'status_report.updated', 'status_report.deleted', 'status_report.update_posted',
  'location.created', 'location.deleted', 'location.token_rotated',
] as const
export type AuditAction = typeof AUDIT_ACTIONS[number]
export type AuditEntityType = AuditAction extends `${infer Entity}.${string}` ? Entity : never
export const entityTypeOf = (action: AuditAction) => action.split('.')[0] as AuditEntityType
export const AUDIT_ENTITY_TYPES: readonly AuditEntityType[] = [...new Set(AUDIT_ACTIONS.map(entityTypeOf))]

export const SCOPE_ROLES = { read: 'viewer', write: 'owner' } as const satisfies Record<ApiKeyScope, Role>

/** Where a notification channel sends (api-contract section 8). */
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'teams', 'telegram', 'ntfy', 'pagerduty', 'email'] as const
export type ChannelType = typeof CHANNEL_TYPES[number]

/**
 * The events a channel's `events` may hold. `tls.expiring`: 14, 7 or 1 days before a certificate's expiry;
 * `location.coverage_*`: a monitor's fresh locations fell below its quorum, or made it again; `test`: sent only by the
 * channel's test route.
 */
export const CHANNEL_EVENT_TYPES = [
  'incident.opened', 'incident.resolved', 'incident.acknowledged', 'monitor.degraded', 'heartbeat.missed', 'tls.expiring',
  'maintenance.started', 'maintenance.ended', 'location.coverage_lost', 'location.coverage_restored', 'test',
] as const
export type ChannelEventType = typeof CHANNEL_EVENT_TYPES[number]
/** Every event type: a channel's `reminder_minutes` sends `incident.reminder`, which no channel chooses in its events. */
export const NOTIFICATION_EVENT_TYPES = [...CHANNEL_EVENT_TYPES, 'incident.reminder'] as const
export type NotificationEventType = typeof NOTIFICATION_EVENT_TYPES[number]
/** A channel's `reminder_minutes`, when set (api-contract section 13). */
export const REMINDER_MINUTES = { min: 5, max: 1440 } as const

/** A maintenance window's `mute` lets checks run and tells no one; `pause` runs no checks (api-contract section 14). */
export const MAINTENANCE_MODES = ['mute', 'pause'] as const
/** `completed`: no occurrence left; `cancelled`: turned off by hand. */
export const MAINTENANCE_STATES = ['scheduled', 'active', 'completed', 'cancelled'] as const
export type MaintenanceState = typeof MAINTENANCE_STATES[number]

/** Who may see a status page: anyone, or whoever knows its password (api-contract section 16). */
export const STATUS_PAGE_ACCESS = ['public', 'password'] as const
/** A status-page component's status, worst last: Atlassian Statuspage's words. */
export const COMPONENT_STATUSES = ['operational', 'under_maintenance', 'degraded_performance', 'partial_outage', 'major_outage'] as const
export type ComponentStatus = typeof COMPONENT_STATUSES[number]
/** A status report's stage, in the order it usually goes through them. */
export const REPORT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const
export type ReportStatus = typeof REPORT_STATUSES[number]
/** How much a status report's problem hurts, least first. */
export const REPORT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const
export type ReportImpact = typeof REPORT_IMPACTS[number]

/** Where checks run from (api-contract section 17): a checker process of the installation, or an organization's agent. */
export const LOCATION_KINDS = ['builtin', 'agent'] as const

/** A delivery is `pending` until its first attempt, `failed` while it will be retried, `dead` once given up. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const
export type DeliveryStatus = typeof DELIVERY_STATUSES[number]

export const CHANNEL_DEFAULTS = {
  events: ['incident.opened', 'incident.resolved'],
  all_monitors: false,
  is_active: true,
  reminder_minutes: null,
} as const satisfies { events: readonly NotificationEventType[], all_monitors: boolean, is_active: boolean, reminder_minutes: number | null }
