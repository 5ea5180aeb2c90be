// The statements of the reference server: the very text Pingward's repositories send (checked at the
// start of every run by capturing what the repositories issue), with the parameters in the same order.
import { MONITOR_DEFAULTS } from '../src/domain/monitor-types.ts'

// The reads start from the request's API key, which they check (src/repositories/owner.ts): no row, the
// key is gone (401); a row of nulls, no such monitor (404) or no monitors ([]).
const OWNER = `from (select k.org_id from "api_keys" k
        join "memberships" mb on mb.org_id = k.org_id and mb.user_id = k.user_id where k.id = $1) o`

/** GET /monitors/{id}/checks: the newest 100 checks of the key's user's monitor. */
export const CHECKS_SQL = `select c.id, m.id as monitor_id, c.is_up, c.status_code, c.response_time_ms, c.checked_at, c.error_message
    ${OWNER}
    left join "monitors" m on m.id = $2 and m.org_id = o.org_id and m.deleted_at is null
    left join lateral (
      select k.id, k.is_up, k.status_code, k.response_time_ms, k.checked_at, k.error_message
      from "checks" k
      where k.monitor_id = m.id
        and ($3::text is null or k.location = $4::text)
      order by k.checked_at desc, k.id desc
      limit $5
    ) c on true`
// No `location`: every location's checks (the filter's placeholder is sent twice).
export const checksParams = (keyId: string, monitorId: string): unknown[] => [keyId, monitorId, null, null, 100]

/** GET /monitors/{id}. */
export const MONITOR_SQL = `select m.id, m.name, m.url, m.monitor_type, m.status, m.is_active, m.interval_minutes, m.last_checked_at, m.method, m.expected_status, m.timeout_seconds, m.failure_threshold, m.recovery_threshold, m.keyword, m.keyword_mode, m.degraded_after_ms, m.request_headers, m.secret_headers, m.request_body, m.dns_record_type, m.dns_expected, m.grace_minutes, m.ping_token as ping_url, m.tls_expires_at, m.tls_issuer, m.labels, m.depends_on, m.in_maintenance, m.locations, m.location_quorum, m.location_states, coalesce((select json_agg(mc.channel_id order by mc.channel_id) from monitor_notification_channels mc where mc.monitor_id = m.id), '[]') as notification_channel_ids, m.created_at, m.updated_at
    ${OWNER}
    left join "monitors" m on m.id = $2 and m.org_id = o.org_id and m.deleted_at is null`
export const monitorParams = (keyId: string, monitorId: string): unknown[] => [keyId, monitorId]

/** GET /monitors. */
export const LIST_SQL = `select m.id, m.name, m.url, m.monitor_type, m.status, m.is_active, m.interval_minutes, m.last_checked_at
    ${OWNER}
    left join "monitors" m on m.org_id = o.org_id and m.deleted_at is null
    order by m.created_at desc, m.id desc`
export const listParams = (keyId: string): unknown[] => [keyId]

/** The page size of GET /monitors?limit=50. */
export const PAGE_LIMIT = 50

/** GET /monitors?limit=50: a backward index scan of the key's user's monitors, one row more than the page. */
export const PAGE_SQL = `select m.id, m.name, m.url, m.monitor_type, m.status, m.is_active, m.interval_minutes, m.last_checked_at, m.sort_us
    ${OWNER}
    left join lateral (
      select k.id, k.name, k.url, k.monitor_type, k.status, k.is_active, k.interval_minutes, k.last_checked_at, (extract(epoch from k.created_at) * 1000000)::bigint::text as sort_us
      from "monitors" k
      where k.org_id = o.org_id and k.deleted_at is null
      order by k.created_at desc, k.id desc limit (select $2::bigint)
    ) m on true`
export const pageParams = (keyId: string): unknown[] => [keyId, PAGE_LIMIT + 1]

/** POST /monitors (the body's defaults filled in, as Pingward's validation does), from the key's row: no row, the key is gone. */
export const INSERT_SQL = `with m as (insert into "monitors" as m (org_id, name, url, monitor_type, method, expected_status, interval_minutes, is_active, timeout_seconds, failure_threshold, recovery_threshold, keyword, keyword_mode, degraded_after_ms, request_headers, secret_headers, request_body, dns_record_type, dns_expected, grace_minutes, labels, depends_on, locations, location_quorum, ping_token, status, next_check_at, location_states, created_at, updated_at) select o.org_id, $1::text, $2::text, $3::text, $4::text, $5::smallint, $6::integer, $7::boolean, $8::smallint, $9::smallint, $10::smallint, $11::text, $12::text, $13::integer, $14::jsonb, $15::jsonb, $16::text, $17::text, $18::text[], $19::smallint, $20::jsonb, $21::uuid[], $22::text[], $23::smallint, $24::text, $25::text, $26::timestamp (3) with time zone, $27::jsonb, $28::timestamp (3) with time zone, $29::timestamp (3) with time zone ${OWNER.replace('$1', '$30')}
    returning m.id, m.name, m.url, m.monitor_type, m.status, m.is_active, m.interval_minutes, m.last_checked_at, m.method, m.expected_status, m.timeout_seconds, m.failure_threshold, m.recovery_threshold, m.keyword, m.keyword_mode, m.degraded_after_ms, m.request_headers, m.secret_headers, m.request_body, m.dns_record_type, m.dns_expected, m.grace_minutes, m.ping_token as ping_url, m.tls_expires_at, m.tls_issuer, m.labels, m.depends_on, m.in_maintenance, m.locations, m.location_quorum, m.location_states, '[]'::json as notification_channel_ids, m.created_at, m.updated_at, m.org_id),
  e as (insert into "audit_events" (org_id, entity_id, occurred_at, actor_type, actor_id, actor_label, action, entity_type, changes, request_id, ip) select m.org_id, m.id, $31::timestamp (3) with time zone, $32::text, $33::uuid, $34::text, $35::text, $36::text, $37::jsonb, $38::text, $39::text from m)
  select id, name, url, monitor_type, status, is_active, interval_minutes, last_checked_at, method, expected_status, timeout_seconds, failure_threshold, recovery_threshold, keyword, keyword_mode, degraded_after_ms, request_headers, secret_headers, request_body, dns_record_type, dns_expected, grace_minutes, ping_url, tls_expires_at, tls_issuer, labels, depends_on, in_maintenance, locations, location_quorum, location_states, notification_channel_ids, created_at, updated_at from m`

export interface CreateBody {
  name: string
  url: string
  monitor_type?: string
  method?: string
  expected_status?: number
  interval_minutes?: number
  is_active?: boolean
  timeout_seconds?: number
  failure_threshold?: number
  recovery_threshold?: number
}

export function insertParams (keyId: string, body: CreateBody, now: Date): unknown[] {
  // The reference has no validation to apply the schema's defaults: it takes the same values directly.
  const d = MONITOR_DEFAULTS
  const active = body.is_active ?? d.is_active
  const at = now.toISOString()
  return [
    body.name.trim(), body.url, body.monitor_type ?? d.monitor_type, body.method ?? d.method, body.expected_status ?? d.expected_status,
    body.interval_minutes ?? d.interval_minutes, active, body.timeout_seconds ?? d.timeout_seconds, body.failure_threshold ?? d.failure_threshold,
    body.recovery_threshold ?? d.recovery_threshold,
    // The HTTP assertions' defaults (none of them set by the benchmark's body); the headers as an object, which
    // the reference's driver serializes to jsonb (Pingward's, whose drizzle client sends jsonb as given, gets JSON text).
    d.keyword, d.keyword_mode, d.degraded_after_ms, d.request_headers, d.secret_headers, d.request_body,
    // A site monitor's columns of the other kinds (dns_record_type, dns_expected, grace_minutes), no labels,
    // dependencies or locations, no ping token.
    null, null, null, d.labels, d.depends_on, d.locations, d.location_quorum, null,
    active ? 'pending' : 'paused', active ? at : null, [], at, at, keyId,
    // The creation's audit event, as an API key's: its id, label, and the monitor's fields as the API shows them.
    at, 'api_key', keyId, 'bench (sk_bench…)', 'monitor.created', 'monitor', createdChanges(body, active), null, '127.0.0.1',
  ]
}

/** `{field: [null, value]}` of a created monitor, as Pingward's audit log records it. */
function createdChanges (body: CreateBody, active: boolean): Record<string, [null, unknown]> {
  const d = MONITOR_DEFAULTS
  const fields: Record<string, unknown> = {
    name: body.name.trim(),
    url: body.url,
    monitor_type: body.monitor_type ?? d.monitor_type,
    method: body.method ?? d.method,
    expected_status: body.expected_status ?? d.expected_status,
    interval_minutes: body.interval_minutes ?? d.interval_minutes,
    is_active: active,
    timeout_seconds: body.timeout_seconds ?? d.timeout_seconds,
    failure_threshold: body.failure_threshold ?? d.failure_threshold,
    recovery_threshold: body.recovery_threshold ?? d.recovery_threshold,
    keyword_mode: d.keyword_mode,
    request_headers: d.request_headers,
    secret_headers: d.secret_headers,
    labels: d.labels,
    depends_on: d.depends_on,
    locations: d.locations,
    notification_channel_ids: [],
  }
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, [null, value]]))
}

/** The body the benchmark posts. */
export const POST_BODY: CreateBody = { name: 'Bench', url: 'https://example.com/health', interval_minutes: 5 }
