// A monitor's columns from an API body: other kinds' columns hold their "absent" values, so that a row never
// carries another kind's settings.
import { randomBytes } from 'node:crypto'
import { MONITOR_TYPE_FIELDS, isFieldOfType } from '../domain/monitor-types.ts'
import { MONITOR_DEFAULTS, type MonitorType } from '../domain/vocabulary.ts'
import type { NewMonitor, UpdateMonitor } from '../schemas/monitor.ts'
import type { MonitorRow } from './monitor-rows.ts'

type Flat = Required<UpdateMonitor>

/** The value of a kind's own field on a monitor of another kind: the column's default, or null. */
const ABSENT: { [K in keyof Flat]?: Flat[K] | null } = {
  url: null,
  method: MONITOR_DEFAULTS.method,
  expected_status: MONITOR_DEFAULTS.expected_status,
  timeout_seconds: MONITOR_DEFAULTS.timeout_seconds,
  keyword: null,
  keyword_mode: MONITOR_DEFAULTS.keyword_mode,
  degraded_after_ms: null,
  request_headers: MONITOR_DEFAULTS.request_headers,
  secret_headers: [...MONITOR_DEFAULTS.secret_headers],
  request_body: null,
  dns_record_type: null,
  dns_expected: null,
  grace_minutes: null,
}

/** The token of a heartbeat's ping URL, the credential of its pings. */
const newPingToken = (): string => randomBytes(18).toString('base64url')

/** Whether `text` has the shape of newPingToken's tokens: no other text can name a monitor. */
export const hasPingTokenShape = (text: string): boolean => /^[\w-]{24}$/.test(text)

/** Header names are matched in any case, so they are stored lower-cased, each once. */
export const secretHeaderNames = (names: readonly string[]): string[] => [...new Set(names.map((name) => name.toLowerCase()))]

/** A body's fields as columns (undefined: not given). */
export function columnsOf (input: UpdateMonitor) {
  return {
    name: input.name?.trim(),
    url: input.url,
    monitorType: input.monitor_type,
    method: input.method,
    expectedStatus: input.expected_status,
    intervalMinutes: input.interval_minutes,
    isActive: input.is_active,
    timeoutSeconds: input.timeout_seconds,
    failureThreshold: input.failure_threshold,
    recoveryThreshold: input.recovery_threshold,
    keyword: input.keyword,
    keywordMode: input.keyword_mode,
    degradedAfterMs: input.degraded_after_ms,
    requestHeaders: input.request_headers,
    secretHeaders: input.secret_headers && secretHeaderNames(input.secret_headers),
    requestBody: input.request_body,
    dnsRecordType: input.dns_record_type,
    dnsExpected: input.dns_expected,
    graceMinutes: input.grace_minutes,
  }
}

function othersAbsent (type: MonitorType): UpdateMonitor {
  const absent: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(ABSENT)) if (!isFieldOfType(type, field)) absent[field] = value
  return absent as UpdateMonitor
}

/** A validated create body as a whole row's columns (Object.assign: V8 copies a spread after other keys slowly). */
export function newMonitorColumns (input: NewMonitor) {
  const columns = columnsOf(Object.assign(othersAbsent(input.monitor_type), input) as UpdateMonitor)
  return Object.assign(columns, { pingToken: input.monitor_type === 'heartbeat' ? newPingToken() : null })
}

/** The columns a change of kind sets besides the body's: new kind's defaults, old kind's absent values, a ping token. */
export function kindChangeColumns (current: MonitorRow, type: MonitorType, input: UpdateMonitor) {
  if (type === current.monitorType) return {}
  const defaults: Record<string, unknown> = {}
  for (const field of MONITOR_TYPE_FIELDS[type] as readonly string[]) {
    if (field !== 'url' && input[field as keyof UpdateMonitor] === undefined) defaults[field] = MONITOR_DEFAULTS[field as keyof typeof MONITOR_DEFAULTS]
  }
  const columns = Object.entries(columnsOf({ ...othersAbsent(type), ...defaults } as UpdateMonitor)).filter(([, value]) => value !== undefined)
  return { ...Object.fromEntries(columns) as Partial<ReturnType<typeof columnsOf>>, pingToken: type === 'heartbeat' ? newPingToken() : null }
}
