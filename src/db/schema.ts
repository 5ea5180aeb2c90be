// Tables of Pingward (pg-core): one schema for PGlite and PostgreSQL, migrated by drizzle-kit.
import { sql } from 'drizzle-orm'
import {
  boolean, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid, type PgColumn,
} from 'drizzle-orm/pg-core'
import {
  API_KEY_SCOPES, CHANNEL_DEFAULTS, COMPONENT_STATUSES, REPORT_IMPACTS, REPORT_STATUSES, STATUS_PAGE_ACCESS, MAINTENANCE_MODES, CHANNEL_EVENT_TYPES, CHANNEL_TYPES, DELIVERY_STATUSES, DNS_RECORD_TYPES, HTTP_METHODS, INCIDENT_KINDS, INCIDENT_STATUSES, KEYWORD_MODES,
  MONITOR_STATUSES, MONITOR_TYPES, NOTIFICATION_EVENT_TYPES, REMINDER_MINUTES, ROLES, ROLLUP_GRANULARITIES, AUDIT_ACTOR_TYPES, LOCATION_KINDS,
  type AuditAction, type AuditEntityType,
} from '../domain/vocabulary.ts'
import { LOCATION_CODE, LOCATION_COVERAGES, type LocationStateRecord } from '../domain/locations.ts'
import { MONITOR_DEFAULTS } from '../domain/monitor-types.ts'
import type { AuditActor } from '../domain/audit.ts'

// Millisecond precision, so a timestamp read back as JSON can be sent again as a `before` cursor.
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 })

const oneOf = (name: string, column: PgColumn, values: readonly string[]) =>
  check(name, sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`)

const allOf = (name: string, column: PgColumn, values: readonly string[]) =>
  check(name, sql`${column} <@ array[${sql.raw(values.map((v) => `'${v}'`).join(', '))}]::text[]`)

// A version 7 UUID (RFC 9562) for checks, the table that grows without end: ids in time order fill the last pages
// of its primary key. PostgreSQL 15 and PGlite have no uuidv7(): a v4 UUID gets the time and version 7.
const uuidV7 = sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(floor(date_part('epoch', clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  // scrypt$N$r$p$salt$hash (src/auth/passwords.ts); null until a password is set: such a user cannot sign in.
  passwordHash: text('password_hash'),
  createdAt: ts('created_at').notNull().defaultNow(),
})

// Who owns every resource. A user's personal organization is made with the user, by the trigger
// users_make_personal_organization (drizzle/0024_organizations.sql), and takes the user's id.
export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  // The user whose personal organization this is; null for one made by the operator.
  personalUserId: uuid('personal_user_id').unique().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull().defaultNow(),
})

export const memberships = pgTable('memberships', {
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  role: text('role', { enum: ROLES }).notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.orgId, t.userId] }),
  index('memberships_user_idx').on(t.userId),
  oneOf('memberships_role_check', t.role, ROLES),
])

// An invitation to join an organization, single use. The id of the link is the SHA-256 of its token
// (token_hash), so a read of this table cannot accept one.
export const invitations = pgTable('invitations', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  role: text('role', { enum: ROLES }).notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  // Who invited; null once that user is deleted.
  invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  acceptedAt: ts('accepted_at'),
  revokedAt: ts('revoked_at'),
}, (t) => [
  index('invitations_org_created_idx').on(t.orgId, t.createdAt),
  oneOf('invitations_role_check', t.role, ROLES),
])

// Who changed what, written in the transaction of each change (api-contract section 12). No foreign key to the
// actor or the entity: the record outlives both.
export const auditEvents = pgTable('audit_events', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  occurredAt: ts('occurred_at').notNull(),
  actorType: text('actor_type', { enum: AUDIT_ACTOR_TYPES }).notNull(),
  actorId: uuid('actor_id'),
  actorLabel: text('actor_label').notNull(),
  action: text('action').$type<AuditAction>().notNull(),
  entityType: text('entity_type').$type<AuditEntityType>().notNull(),
  entityId: uuid('entity_id').notNull(),
  changes: jsonb('changes').$type<Record<string, [unknown, unknown]>>().notNull(),
  requestId: text('request_id'),
  ip: text('ip'),
}, (t) => [
  index('audit_events_org_occurred_idx').on(t.orgId, t.occurredAt.desc(), t.id.desc()),
  index('audit_events_occurred_idx').on(t.occurredAt),
  oneOf('audit_events_actor_type_check', t.actorType, AUDIT_ACTOR_TYPES),
])

// Keys the server makes for itself once and every instance shares (the key that signs acknowledge links).
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})

// Dashboard sign-ins. The id is the SHA-256 of the cookie's token, so a read of this table cannot sign anyone in.
export const sessions = pgTable('sessions', {
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  // The organization the dashboard shows; null: the user's personal one.
  orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'set null' }),
  csrfToken: text('csrf_token').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
}, (t) => [
  index('sessions_user_idx').on(t.userId),
  index('sessions_expires_idx').on(t.expiresAt),
])

// Sign-in attempts counted without Redis (sign-in-throttle.ts), keyed by a hash: no email or address is stored.
export const signInAttempts = pgTable('sign_in_attempts', {
  key: text('key').primaryKey(),
  attempts: integer('attempts').notNull(),
  // A pair's next attempt waits until then; null for an address (its attempts are limited per window).
  lockedUntil: ts('locked_until'),
  // An address's window ends, or a pair is forgotten; an expired row counts as absent until it is swept.
  expiresAt: ts('expires_at').notNull(),
}, (t) => [
  index('sign_in_attempts_expires_idx').on(t.expiresAt),
])

// One-time links to set a password. The id is the SHA-256 of the link's token, so any instance accepts a link
// and a read of this table cannot use one.
export const setupTokens = pgTable('setup_tokens', {
  id: text('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
}, (t) => [
  index('setup_tokens_user_idx').on(t.userId),
  index('setup_tokens_expires_idx').on(t.expiresAt),
])

// The Idempotency-Key of a POST /monitors: `response` is null while the first request is still being handled.
export const idempotencyKeys = pgTable('idempotency_keys', {
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
  // A fingerprint of the request (method, path, body): the same key with another request is refused.
  requestHash: text('request_hash').notNull(),
  response: jsonb('response'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.orgId, t.key] }),
  index('idempotency_keys_created_idx').on(t.createdAt),
])

// A key belongs to an organization and to the member who made it, and acts with the lower of its scope and
// that member's current role there.
export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  // SHA-256 of the whole key, hex: the key itself is never stored.
  keyHash: text('key_hash').notNull().unique(),
  prefix: text('prefix').notNull(),
  scope: text('scope', { enum: API_KEY_SCOPES }).notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  lastUsedAt: ts('last_used_at'),
  expiresAt: ts('expires_at'),
}, (t) => [
  index('api_keys_user_idx').on(t.userId),
  index('api_keys_org_idx').on(t.orgId),
  oneOf('api_keys_scope_check', t.scope, API_KEY_SCOPES),
])

// Where checks run from (api-contract section 17). A `builtin` one is a checker process of the installation (no
// organization: every organization sees it); an `agent` one is its organization's, and its token is kept only as a
// SHA-256 (as an API key's) with a prefix to show.
export const locations = pgTable('locations', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
  code: text('code').notNull(),
  name: text('name').notNull(),
  kind: text('kind', { enum: LOCATION_KINDS }).notNull(),
  tokenHash: text('token_hash').unique(),
  tokenPrefix: text('token_prefix'),
  lastSeenAt: ts('last_seen_at'),
  version: text('version'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  // A code is unique among the built-in locations, and among each organization's own.
  uniqueIndex('locations_builtin_code_idx').on(t.code).where(sql`${t.orgId} is null`),
  uniqueIndex('locations_org_code_idx').on(t.orgId, t.code),
  oneOf('locations_kind_check', t.kind, LOCATION_KINDS),
  check('locations_code_check', sql`${t.code} ~ ${sql.raw(`'${LOCATION_CODE.pattern}'`)} and char_length(${t.code}) between ${sql.raw(String(LOCATION_CODE.minLength))} and ${sql.raw(String(LOCATION_CODE.maxLength))}`),
  check('locations_owner_check', sql`(${t.kind} = 'builtin' and ${t.orgId} is null and ${t.tokenHash} is null) or (${t.kind} = 'agent' and ${t.orgId} is not null and ${t.tokenHash} is not null)`),
])

export const monitors = pgTable('monitors', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  // Null exactly for a heartbeat monitor, which is pinged instead of checked.
  url: text('url'),
  monitorType: text('monitor_type', { enum: MONITOR_TYPES }).notNull().default(MONITOR_DEFAULTS.monitor_type),
  method: text('method', { enum: HTTP_METHODS }).notNull().default(MONITOR_DEFAULTS.method),
  expectedStatus: smallint('expected_status').notNull().default(MONITOR_DEFAULTS.expected_status),
  intervalMinutes: integer('interval_minutes').notNull().default(MONITOR_DEFAULTS.interval_minutes),
  isActive: boolean('is_active').notNull().default(MONITOR_DEFAULTS.is_active),
  timeoutSeconds: smallint('timeout_seconds').notNull().default(MONITOR_DEFAULTS.timeout_seconds),
  failureThreshold: smallint('failure_threshold').notNull().default(MONITOR_DEFAULTS.failure_threshold),
  recoveryThreshold: smallint('recovery_threshold').notNull().default(MONITOR_DEFAULTS.recovery_threshold),
  keyword: text('keyword'),
  keywordMode: text('keyword_mode', { enum: KEYWORD_MODES }).notNull().default(MONITOR_DEFAULTS.keyword_mode),
  degradedAfterMs: integer('degraded_after_ms'),
  requestHeaders: jsonb('request_headers').$type<Record<string, string>>().notNull().default(MONITOR_DEFAULTS.request_headers),
  // Names (lower case) of request headers the user marked secret, besides those whose names say so.
  secretHeaders: jsonb('secret_headers').$type<string[]>().notNull().default([...MONITOR_DEFAULTS.secret_headers]),
  requestBody: text('request_body'),
  // A `dns` monitor's question and the values its answer must contain (null: any answer); null for other types.
  dnsRecordType: text('dns_record_type', { enum: DNS_RECORD_TYPES }),
  dnsExpected: text('dns_expected').array(),
  // Null for every type but `heartbeat`.
  graceMinutes: smallint('grace_minutes'),
  pingToken: text('ping_token').unique(),
  tlsExpiresAt: ts('tls_expires_at'),
  tlsIssuer: text('tls_issuer'),
  // The smallest days-before-expiry a `tls.expiring` event told of; another certificate or url starts again.
  tlsExpiryToldDays: smallint('tls_expiry_told_days'),
  labels: jsonb('labels').$type<Record<string, string>>().notNull().default(MONITOR_DEFAULTS.labels),
  // Ids of the organization's monitors this one depends on: while one of them is down, its incidents are told to no one.
  dependsOn: uuid('depends_on').array().notNull().default(sql`'{}'::uuid[]`),
  // Codes of the locations it is checked from ('{}': any checker), how many must fail for down (null: a majority),
  // and each one's latest check as the API shows it (location_states), kept by the recording of checks.
  locations: text('locations').array().notNull().default([]),
  locationQuorum: smallint('location_quorum'),
  locationStates: jsonb('location_states').$type<LocationStateRecord[]>().notNull().default([]),
  // Whether enough of them are fresh for a verdict; its edges are told (location.coverage_lost, _restored).
  locationCoverage: text('location_coverage', { enum: LOCATION_COVERAGES }).notNull().default('pending'),
  status: text('status', { enum: MONITOR_STATUSES }).notNull().default('pending'),
  // Inside an active maintenance window, kept by src/maintenance/ at the window's edges and by the trigger
  // monitors_enter_maintenance on insert; `maintenance_paused`: one of them is a `pause` (no checks are claimed).
  inMaintenance: boolean('in_maintenance').notNull().default(false),
  maintenancePaused: boolean('maintenance_paused').notNull().default(false),
  lastCheckedAt: ts('last_checked_at'),
  // Scheduling state of the checker: null while paused or deleted.
  nextCheckAt: ts('next_check_at').defaultNow(),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  // Passes in a row that count towards leaving the current status: any pass while down, fast passes while degraded.
  consecutiveSuccesses: integer('consecutive_successes').notNull().default(0),
  // Checks in a row that passed slower than degraded_after_ms (src/checks/outcome.ts).
  consecutiveSlow: integer('consecutive_slow').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  deletedAt: ts('deleted_at'),
}, (t) => [
  index('monitors_org_created_idx').on(t.orgId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
  // The monitors a label selector picks (the list's `label`, maintenance windows, status pages): @> and ?&.
  index('monitors_labels_idx').using('gin', t.labels),
  // What the checker claims (every kind but heartbeats, which are pinged, and monitors with locations, whose schedule
  // rows it claims), and the deadlines of heartbeats: apart, so that neither scan steps over the other's overdue rows.
  index('monitors_due_idx').on(t.nextCheckAt)
    .where(sql`${t.deletedAt} is null and ${t.isActive} and ${t.monitorType} <> 'heartbeat' and cardinality(${t.locations}) = 0`),
  index('monitors_heartbeat_due_idx').on(t.nextCheckAt).where(sql`${t.deletedAt} is null and ${t.isActive} and ${t.monitorType} = 'heartbeat'`),
  oneOf('monitors_monitor_type_check', t.monitorType, MONITOR_TYPES),
  oneOf('monitors_method_check', t.method, HTTP_METHODS),
  oneOf('monitors_status_check', t.status, MONITOR_STATUSES),
  oneOf('monitors_keyword_mode_check', t.keywordMode, KEYWORD_MODES),
  oneOf('monitors_dns_record_type_check', t.dnsRecordType, DNS_RECORD_TYPES),
  check('monitors_url_check', sql`(${t.url} is null) = (${t.monitorType} = 'heartbeat')`),
])

// When each location of a monitor with `locations` checks it next: the checker of that location claims the row (SKIP
// LOCKED), as it claims monitors.next_check_at of those without. One row per code of monitors.locations.
export const monitorSchedules = pgTable('monitor_schedules', {
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  location: text('location').notNull(),
  nextCheckAt: ts('next_check_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.monitorId, t.location] }),
  index('monitor_schedules_due_idx').on(t.location, t.nextCheckAt),
])

export const checks = pgTable('checks', {
  id: uuid('id').primaryKey().default(uuidV7),
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  isUp: boolean('is_up').notNull(),
  statusCode: smallint('status_code'),
  responseTimeMs: integer('response_time_ms').notNull(),
  checkedAt: ts('checked_at').notNull(),
  errorMessage: text('error_message'),
  // A heartbeat ping's body (its first 10 KiB), as a cron job sent it; null for every other check. Not in the API.
  pingBody: text('ping_body'),
  // The code of the location that made the check; null for a heartbeat's ping. Not in the record (GET ...?location=).
  location: text('location'),
  // The slot an agent's check was of: a retried batch finds its checks by this key and records each once. Not in the API.
  slotAt: ts('slot_at'),
}, (t) => [
  // Ascending on purpose: a backward scan serves ORDER BY checked_at DESC, id DESC (the default NULLS FIRST).
  index('checks_monitor_checked_idx').on(t.monitorId, t.checkedAt, t.id),
  index('checks_checked_idx').on(t.checkedAt),
  uniqueIndex('checks_location_slot_key').on(t.monitorId, t.location, t.slotAt).where(sql`${t.slotAt} is not null`),
])

export const incidents = pgTable('incidents', {
  id: uuid('id').primaryKey().defaultRandom(),
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  status: text('status', { enum: INCIDENT_STATUSES }).notNull().default('open'),
  kind: text('kind', { enum: INCIDENT_KINDS }).notNull().default('down'),
  cause: text('cause').notNull(),
  statusCode: smallint('status_code'),
  startedAt: ts('started_at').notNull(),
  resolvedAt: ts('resolved_at'),
  acknowledgedAt: ts('acknowledged_at'),
  // Who acknowledged it, as the audit log names actors; null until acknowledged.
  acknowledgedBy: jsonb('acknowledged_by').$type<AuditActor>(),
  duringMaintenance: boolean('during_maintenance').notNull().default(false),
  // The open incident of a monitor it depends on, while that one was down when it opened.
  suppressedBy: uuid('suppressed_by').references((): PgColumn => incidents.id, { onDelete: 'set null' }),
  // When the opening of an incident that opened during maintenance was told, at the window's end; null otherwise.
  openingToldAt: ts('opening_told_at'),
}, (t) => [
  index('incidents_monitor_started_idx').on(t.monitorId, t.startedAt, t.id),
  uniqueIndex('incidents_one_open_idx').on(t.monitorId).where(sql`${t.status} = 'open'`),
  // The incidents that overlap an hour being rolled up (src/repositories/rollups.ts): resolved since its start.
  index('incidents_resolved_idx').on(t.resolvedAt),
  // Deleting an incident (retention, a monitor's delete) looks up the incidents it suppressed.
  index('incidents_suppressed_by_idx').on(t.suppressedBy).where(sql`${t.suppressedBy} is not null`),
  oneOf('incidents_status_check', t.status, INCIDENT_STATUSES),
  oneOf('incidents_kind_check', t.kind, INCIDENT_KINDS),
])

// What people wrote on an incident (api-contract section 13), an acknowledgement's note among them.
export const incidentNotes = pgTable('incident_notes', {
  id: uuid('id').primaryKey().defaultRandom(),
  incidentId: uuid('incident_id').notNull().references(() => incidents.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull(),
  actor: jsonb('actor').$type<AuditActor>().notNull(),
  body: text('body').notNull(),
}, (t) => [
  index('incident_notes_incident_idx').on(t.incidentId, t.createdAt),
])

// `config` holds secrets in clear (they are needed to send); the API masks them. After a rotation the previous
// webhook secret keeps signing until previous_secret_until.
export const notificationChannels = pgTable('notification_channels', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  type: text('type', { enum: CHANNEL_TYPES }).notNull(),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  events: text('events', { enum: CHANNEL_EVENT_TYPES }).array().notNull(),
  allMonitors: boolean('all_monitors').notNull().default(CHANNEL_DEFAULTS.all_monitors),
  isActive: boolean('is_active').notNull().default(CHANNEL_DEFAULTS.is_active),
  // Minutes between reminders of an open, unacknowledged incident the channel was told of; null: none.
  reminderMinutes: integer('reminder_minutes'),
  // Why the service turned the channel off (a 410 Gone from its receiver); null when active or paused by the user.
  disabledReason: text('disabled_reason'),
  secret: text('secret'),
  previousSecret: text('previous_secret'),
  previousSecretUntil: ts('previous_secret_until'),
  // A delivery worker holds the channel until then, so that a channel gets one message at a time across workers.
  deliveryLeaseUntil: ts('delivery_lease_until'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('notification_channels_org_created_idx').on(t.orgId, t.createdAt, t.id),
  oneOf('notification_channels_type_check', t.type, CHANNEL_TYPES),
  allOf('notification_channels_events_check', t.events, CHANNEL_EVENT_TYPES),
  check('notification_channels_reminder_minutes_check', sql`${t.reminderMinutes} between ${sql.raw(String(REMINDER_MINUTES.min))} and ${sql.raw(String(REMINDER_MINUTES.max))}`),
])

// The monitors a channel covers when it does not cover all of its organization's (all_monitors false).
export const monitorNotificationChannels = pgTable('monitor_notification_channels', {
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  channelId: uuid('channel_id').notNull().references(() => notificationChannels.id, { onDelete: 'cascade' }),
}, (t) => [
  primaryKey({ columns: [t.monitorId, t.channelId] }),
  index('monitor_notification_channels_channel_idx').on(t.channelId),
])

// The outbox: an event is written in the transaction of the change that caused it, one delivery per channel.
// Its id is the `webhook-id`, the same on every retry and for every channel.
export const notificationEvents = pgTable('notification_events', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  type: text('type', { enum: NOTIFICATION_EVENT_TYPES }).notNull(),
  monitorId: uuid('monitor_id').references(() => monitors.id, { onDelete: 'cascade' }),
  incidentId: uuid('incident_id').references(() => incidents.id, { onDelete: 'cascade' }),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  index('notification_events_incident_idx').on(t.incidentId),
  oneOf('notification_events_type_check', t.type, NOTIFICATION_EVENT_TYPES),
])

// One event to one channel. Due while pending or failed (next_attempt_at); a worker that claims it holds a
// lease (lease_until) and sends outside any transaction. attempt_log: [{at, status_code, duration_ms, error}].
export const notificationDeliveries = pgTable('notification_deliveries', {
  id: uuid('id').primaryKey().defaultRandom(),
  channelId: uuid('channel_id').notNull().references(() => notificationChannels.id, { onDelete: 'cascade' }),
  eventId: uuid('event_id').notNull().references(() => notificationEvents.id, { onDelete: 'cascade' }),
  // The event's monitor (null for a `test`), for the order rule's index below.
  monitorId: uuid('monitor_id'),
  status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  // When the next attempt is due; null once delivered or dead.
  nextAttemptAt: ts('next_attempt_at'),
  leaseUntil: ts('lease_until'),
  lastStatusCode: smallint('last_status_code'),
  lastError: text('last_error'),
  attemptLog: jsonb('attempt_log').$type<Array<{ at: string, status_code: number | null, duration_ms: number, error: string | null }>>()
    .notNull().default(sql`'[]'::jsonb`),
  createdAt: ts('created_at').notNull().defaultNow(),
  deliveredAt: ts('delivered_at'),
}, (t) => [
  index('notification_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} in ('pending', 'failed')`),
  // A channel's due deliveries, for the worker that holds the channel (its history can be long).
  index('notification_deliveries_channel_due_idx').on(t.channelId, t.nextAttemptAt).where(sql`${t.status} in ('pending', 'failed')`),
  index('notification_deliveries_channel_created_idx').on(t.channelId, t.createdAt, t.id),
  // A later delivery of a monitor to a channel waits while an earlier one waits for its retry (delivery-queue.ts).
  index('notification_deliveries_channel_monitor_idx').on(t.channelId, t.monitorId, t.createdAt, t.nextAttemptAt)
    .where(sql`${t.status} in ('pending', 'failed') and ${t.monitorId} is not null`),
  index('notification_deliveries_event_idx').on(t.eventId),
  uniqueIndex('notification_deliveries_channel_event_idx').on(t.channelId, t.eventId),
  oneOf('notification_deliveries_status_check', t.status, DELIVERY_STATUSES),
])

// A maintenance window (api-contract section 14): its first occurrence and rule, and the one occurrence computed
// from them, current or next (next_* null once none is left); `active` once its start was acted on.
export const maintenanceWindows = pgTable('maintenance_windows', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  description: text('description'),
  monitorIds: uuid('monitor_ids').array().notNull().default(sql`'{}'::uuid[]`),
  allMonitors: boolean('all_monitors').notNull().default(false),
  labelSelector: text('label_selector').array().notNull().default(sql`'{}'::text[]`),
  startsAt: ts('starts_at').notNull(),
  endsAt: ts('ends_at').notNull(),
  rrule: text('rrule'),
  timezone: text('timezone').notNull().default('UTC'),
  mode: text('mode', { enum: MAINTENANCE_MODES }).notNull().default('mute'),
  cancelledAt: ts('cancelled_at'),
  nextStartsAt: ts('next_starts_at'),
  nextEndsAt: ts('next_ends_at'),
  active: boolean('active').notNull().default(false),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('maintenance_windows_org_created_idx').on(t.orgId, t.createdAt, t.id),
  // What the edge sweep reads every second: the windows whose next start or end is due.
  index('maintenance_windows_next_start_idx').on(t.nextStartsAt).where(sql`${t.cancelledAt} is null and not ${t.active}`),
  index('maintenance_windows_next_end_idx').on(t.nextEndsAt).where(sql`${t.active}`),
  oneOf('maintenance_windows_mode_check', t.mode, MAINTENANCE_MODES),
  check('maintenance_windows_times_check', sql`${t.startsAt} < ${t.endsAt}`),
])

// A public status page (api-contract section 16); domain_token is what the TXT record of its custom domain must say.
export const statusPages = pgTable('status_pages', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  slug: text('slug').notNull(),
  title: text('title').notNull(),
  description: text('description'),
  homepageUrl: text('homepage_url'),
  published: boolean('published').notNull().default(false),
  access: text('access', { enum: STATUS_PAGE_ACCESS }).notNull().default('public'),
  passwordHash: text('password_hash'),
  historyDays: integer('history_days').notNull().default(90),
  customDomain: text('custom_domain'),
  domainToken: text('domain_token').notNull(),
  domainVerifiedAt: ts('domain_verified_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('status_pages_slug_idx').on(t.slug),
  uniqueIndex('status_pages_custom_domain_idx').on(t.customDomain),
  index('status_pages_org_idx').on(t.orgId, t.createdAt, t.id),
  oneOf('status_pages_access_check', t.access, STATUS_PAGE_ACCESS),
  check('status_pages_history_days_check', sql`${t.historyDays} between 7 and 365`),
  check('status_pages_password_check', sql`${t.access} = 'public' or ${t.passwordHash} is not null`),
])

// A line of a status page: one monitor, the monitors a label selector matches, or a status set by hand.
export const statusPageComponents = pgTable('status_page_components', {
  id: uuid('id').primaryKey().defaultRandom(),
  pageId: uuid('page_id').notNull().references(() => statusPages.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description'),
  groupName: text('group_name'),
  position: integer('position').notNull().default(0),
  monitorId: uuid('monitor_id').references(() => monitors.id, { onDelete: 'cascade' }),
  labelSelector: text('label_selector').array(),
  manualStatus: text('manual_status', { enum: COMPONENT_STATUSES }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  index('status_page_components_page_idx').on(t.pageId, t.position),
  index('status_page_components_monitor_idx').on(t.monitorId),
  oneOf('status_page_components_manual_status_check', t.manualStatus, COMPONENT_STATUSES),
  check('status_page_components_source_check',
    sql`num_nonnulls(${t.monitorId}, ${t.labelSelector}, ${t.manualStatus}) = 1`),
])

// What an organization tells its users about a problem, on one or more of its pages.
export const statusReports = pgTable('status_reports', {
  id: uuid('id').primaryKey().defaultRandom(),
  orgId: uuid('org_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  title: text('title').notNull(),
  status: text('status', { enum: REPORT_STATUSES }).notNull(),
  impact: text('impact', { enum: REPORT_IMPACTS }).notNull(),
  statusPageIds: uuid('status_page_ids').array().notNull(),
  componentIds: uuid('component_ids').array().notNull().default(sql`'{}'::uuid[]`),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  resolvedAt: ts('resolved_at'),
}, (t) => [
  index('status_reports_org_idx').on(t.orgId, t.createdAt, t.id),
  index('status_reports_pages_idx').using('gin', t.statusPageIds),
  oneOf('status_reports_status_check', t.status, REPORT_STATUSES),
  oneOf('status_reports_impact_check', t.impact, REPORT_IMPACTS),
])

export const statusReportUpdates = pgTable('status_report_updates', {
  id: uuid('id').primaryKey().defaultRandom(),
  reportId: uuid('report_id').notNull().references(() => statusReports.id, { onDelete: 'cascade' }),
  status: text('status', { enum: REPORT_STATUSES }).notNull(),
  message: text('message').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  index('status_report_updates_report_idx').on(t.reportId, t.createdAt),
  oneOf('status_report_updates_status_check', t.status, REPORT_STATUSES),
])

// A reader of a status page who asked for its news by mail; confirmed once they follow the confirmation mail's
// link (double opt-in). The token is their capability: confirm, manage, unsubscribe.
export const statusPageSubscribers = pgTable('status_page_subscribers', {
  id: uuid('id').primaryKey().defaultRandom(),
  pageId: uuid('page_id').notNull().references(() => statusPages.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  token: text('token').notNull(),
  confirmedAt: ts('confirmed_at'),
  confirmationSentAt: ts('confirmation_sent_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('status_page_subscribers_email_idx').on(t.pageId, sql`lower(${t.email})`),
  uniqueIndex('status_page_subscribers_token_idx').on(t.token),
])

// Mails to subscribers, written in the transaction of what they tell: a queue of their own, sent by their own
// worker (src/status-pages/mailer.ts), so that no number of them delays an alert's delivery.
export const statusPageMails = pgTable('status_page_mails', {
  id: uuid('id').primaryKey().defaultRandom(),
  subscriberId: uuid('subscriber_id').notNull().references(() => statusPageSubscribers.id, { onDelete: 'cascade' }),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  dueAt: ts('due_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  sentAt: ts('sent_at'),
  failedAt: ts('failed_at'),
  lastError: text('last_error'),
}, (t) => [
  index('status_page_mails_due_idx').on(t.dueAt).where(sql`${t.sentAt} is null and ${t.failedAt} is null`),
  index('status_page_mails_subscriber_idx').on(t.subscriberId),
])

// The maintenance windows whose coming was mailed to the subscribers of the pages they cover, once each.
export const statusPageAnnouncements = pgTable('status_page_announcements', {
  windowId: uuid('window_id').primaryKey().references(() => maintenanceWindows.id, { onDelete: 'cascade' }),
  announcedAt: ts('announced_at').notNull(),
})

// One row per stay of a monitor in maintenance, ended_at null while it lasts: the incident timeline's maintenance.
// window_id: the window that covered it first (kept, as an id, after the window is deleted).
export const monitorMaintenance = pgTable('monitor_maintenance', {
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  windowId: uuid('window_id').notNull(),
  startedAt: ts('started_at').notNull(),
  endedAt: ts('ended_at'),
}, (t) => [
  primaryKey({ columns: [t.monitorId, t.startedAt] }),
  uniqueIndex('monitor_maintenance_one_open_idx').on(t.monitorId).where(sql`${t.endedAt} is null`),
  // The closed stays that overlap an hour being rolled up (src/repositories/rollups.ts): ended since its start.
  index('monitor_maintenance_ended_idx').on(t.endedAt).where(sql`${t.endedAt} is not null`),
])

// One row per pause of a monitor, resumed_at null while it lasts; written by the trigger monitors_record_pauses
// (drizzle/0013_rollups.sql) on every change of is_active, whoever makes it.
export const monitorPauses = pgTable('monitor_pauses', {
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  pausedAt: ts('paused_at').notNull(),
  resumedAt: ts('resumed_at'),
}, (t) => [
  primaryKey({ columns: [t.monitorId, t.pausedAt] }),
  // A monitor's open pause, at most one: what a resume closes. Apart from the closed ones, so that stale estimates
  // cannot lead the planner to combine the trigger's lookup with every open pause.
  uniqueIndex('monitor_pauses_one_open_idx').on(t.monitorId).where(sql`${t.resumedAt} is null`),
  // The closed pauses that overlap an hour being rolled up (src/repositories/rollups.ts): resumed since its start.
  index('monitor_pauses_resumed_idx').on(t.resumedAt).where(sql`${t.resumedAt} is not null`),
])

// Uptime and latency per monitor and UTC hour or day (src/checker/rollups.ts): tracked_ms is the time neither paused
// nor in maintenance, downtime_ms the part of it in a `down` incident, maintenance_ms the time in maintenance; the histogram uses src/domain/latency-histogram.ts.
export const monitorRollups = pgTable('monitor_rollups', {
  monitorId: uuid('monitor_id').notNull().references(() => monitors.id, { onDelete: 'cascade' }),
  granularity: text('granularity', { enum: ROLLUP_GRANULARITIES }).notNull(),
  start: ts('start').notNull(),
  checks: integer('checks').notNull(),
  failedChecks: integer('failed_checks').notNull(),
  trackedMs: integer('tracked_ms').notNull(),
  downtimeMs: integer('downtime_ms').notNull(),
  // Time in a maintenance window: neither tracked (up) nor down.
  maintenanceMs: integer('maintenance_ms').notNull().default(0),
  histBuckets: smallint('hist_buckets').array().notNull(),
  histCounts: integer('hist_counts').array().notNull(),
  // A day row as the uptime read sends it (drizzle/0016_rollup_day_text.sql), kept by the database so that a read
  // does not format a year of arrays; hour rows are formatted by the read itself.
  rowText: text('row_text').generatedAlwaysAs(sql.raw(`case when granularity = 'day' then
    rollup_day_text(start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts) end`)),
}, (t) => [
  primaryKey({ columns: [t.monitorId, t.granularity, t.start] }),
  // The retention's range: the oldest rows of a granularity, whatever their monitor.
  index('monitor_rollups_granularity_start_idx').on(t.granularity, t.start),
  oneOf('monitor_rollups_granularity_check', t.granularity, ROLLUP_GRANULARITIES),
])

// How far the rollups are built: every bucket of the granularity that starts before built_until has its rows.
// The job's workers take the row FOR UPDATE SKIP LOCKED, so one builds while the others skip.
export const rollupProgress = pgTable('rollup_progress', {
  granularity: text('granularity', { enum: ROLLUP_GRANULARITIES }).primaryKey(),
  builtUntil: ts('built_until').notNull(),
}, (t) => [
  oneOf('rollup_progress_granularity_check', t.granularity, ROLLUP_GRANULARITIES),
])
