// The statements of the reference server: the very text Pingward's repositories send (checked at the
// start of every run by capturing what the repositories issue), with the parameters in the same order.

/** GET /monitors/{id}/checks: the newest 100 checks of the user's monitor (no row: no such monitor). */
export const CHECKS_SQL = `select c.id, m.id as monitor_id, c.is_up, c.status_code, c.response_time_ms, c.checked_at, c.error_message
    from "monitors" m
    left join lateral (
      select k.id, k.is_up, k.status_code, k.response_time_ms, k.checked_at, k.error_message
      from "checks" k
      where k.monitor_id = m.id
      order by k.checked_at desc, k.id desc
      limit $1
    ) c on true
    where m.id = $2 and m.user_id = $3 and m.deleted_at is null`
export const checksParams = (userId: string, monitorId: string): unknown[] => [100, monitorId, userId]

const MONITOR_COLUMNS = '"id", "user_id", "name", "url", "monitor_type", "method", "expected_status", "interval_minutes", "is_active", "timeout_seconds", "failure_threshold", "recovery_threshold", "status", "last_checked_at", "next_check_at", "consecutive_failures", "consecutive_successes", "created_at", "updated_at", "deleted_at"'

/** GET /monitors/{id}. */
export const MONITOR_SQL = `select ${MONITOR_COLUMNS} from "monitors" where ("monitors"."id" = $1 and "monitors"."user_id" = $2 and "monitors"."deleted_at" is null)`
export const monitorParams = (userId: string, monitorId: string): unknown[] => [monitorId, userId]

/** GET /monitors. */
export const LIST_SQL = `select id, name, url, monitor_type, status, is_active, interval_minutes, last_checked_at
    from "monitors"
    where user_id = $1 and deleted_at is null
    order by created_at desc, id desc`
export const listParams = (userId: string): unknown[] => [userId]

/** POST /monitors (the body's defaults filled in, as Pingward's validation does). */
export const INSERT_SQL = `insert into "monitors" (${MONITOR_COLUMNS}) values (default, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, default, $13, default, default, $14, $15, default) returning ${MONITOR_COLUMNS}`

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

export function insertParams (userId: string, body: CreateBody, now: Date): unknown[] {
  const active = body.is_active ?? true
  const at = now.toISOString()
  return [
    userId, body.name.trim(), body.url, body.monitor_type ?? 'site', body.method ?? 'GET', body.expected_status ?? 200,
    body.interval_minutes ?? 5, active, body.timeout_seconds ?? 10, body.failure_threshold ?? 2, body.recovery_threshold ?? 1,
    active ? 'pending' : 'paused', active ? at : null, at, at,
  ]
}

/** The body the benchmark posts. */
export const POST_BODY: CreateBody = { name: 'Bench', url: 'https://example.com/health', interval_minutes: 5 }
