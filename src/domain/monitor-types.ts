// What each kind of monitor is made of: its own fields beside the common ones, and what its url looks like.
// The create schema's variants, the update's per-type rules and the dashboard's form all read these tables.
import { InvalidInputError } from './errors.ts'
import type { DnsRecordType, HttpMethod, KeywordMode, MonitorType } from './vocabulary.ts'

/** Defaults of a new monitor's optional fields: the create schema's defaults and the columns' defaults. */
export const MONITOR_DEFAULTS = {
  monitor_type: 'site',
  method: 'GET',
  expected_status: 200,
  interval_minutes: 5,
  is_active: true,
  timeout_seconds: 10,
  failure_threshold: 2,
  recovery_threshold: 1,
  keyword: null,
  keyword_mode: 'contains',
  degraded_after_ms: null,
  request_headers: {},
  secret_headers: [],
  request_body: null,
  dns_record_type: 'A',
  dns_expected: null,
  grace_minutes: 1,
  labels: {},
  depends_on: [],
  locations: [],
  location_quorum: null,
} as const satisfies Record<string, unknown> & {
  monitor_type: MonitorType, method: HttpMethod, keyword_mode: KeywordMode, dns_record_type: DnsRecordType
}

/** The fields of one kind of monitor only; another kind's body that sets one of them is a 400 naming it. */
export const MONITOR_TYPE_FIELDS = {
  site: [
    'url', 'method', 'expected_status', 'timeout_seconds', 'keyword', 'keyword_mode', 'degraded_after_ms', 'request_headers', 'secret_headers',
    'request_body', 'locations', 'location_quorum',
  ],
  tcp: ['url', 'timeout_seconds', 'locations', 'location_quorum'],
  dns: ['url', 'timeout_seconds', 'dns_record_type', 'dns_expected', 'locations', 'location_quorum'],
  heartbeat: ['grace_minutes'],
} as const satisfies Record<MonitorType, readonly string[]>

export const TYPE_SPECIFIC_FIELDS: ReadonlySet<string> = new Set(Object.values(MONITOR_TYPE_FIELDS).flat())

const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})'

/** What each kind's `url` looks like, with the sentence that says it; a heartbeat has none (it is pinged). */
export const MONITOR_URLS = {
  site: { pattern: '^[hH][tT][tT][pP][sS]?://', rule: 'an absolute http or https URL of at most 2048 characters' },
  tcp: { pattern: `^[tT][cC][pP]://(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:?#@\\[\\]]+):${PORT}/?$`, rule: 'a tcp://host:port URL (port 1-65535)' },
  dns: {
    pattern: '^[dD][nN][sS]://(?![0-9.]+$)([A-Za-z0-9_-]{1,63}\\.)*[A-Za-z0-9_-]{1,63}\\.?$',
    rule: 'a dns://name URL (a host name, not an address, and nothing after it)',
  },
  heartbeat: null,
} as const satisfies Record<MonitorType, { pattern: string, rule: string } | null>

/** True when `field` is one of `type`'s own fields or a common one. */
export function isFieldOfType (type: MonitorType, field: string): boolean {
  return !TYPE_SPECIFIC_FIELDS.has(field) || (MONITOR_TYPE_FIELDS[type] as readonly string[]).includes(field)
}

/** Refuses, naming the field, a field the resulting kind lacks and a url with another kind's scheme. */
export function assertFieldsOfType (type: MonitorType, update: Record<string, unknown>, url: string | null): void {
  for (const field of Object.keys(update)) {
    if (update[field] !== undefined && !isFieldOfType(type, field)) {
      throw new InvalidInputError(field, `${field} is not allowed for a ${type} monitor`)
    }
  }
  const shape = MONITOR_URLS[type]
  if (shape === null) return
  if (url === null) throw new InvalidInputError('url', `url is required for a ${type} monitor`)
  if (!new RegExp(shape.pattern).test(url)) throw new InvalidInputError('url', `url must be ${shape.rule} for a ${type} monitor`)
}

/** When a heartbeat that was pinged (or created, or resumed) at `at` is late: after its interval and grace. */
export function heartbeatDeadline (at: Date, intervalMinutes: number, graceMinutes: number): Date {
  return new Date(at.getTime() + (intervalMinutes + graceMinutes) * 60_000)
}
