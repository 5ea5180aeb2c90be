// A location row as the API shows it: `online` from its last sign of life and the one online window.
import { isLocationOnline } from '../domain/locations.ts'
import type { MonitorRow } from '../monitors/repository.ts'
import type { LocationRow } from './repository.ts'
import type { AgentAssignment, AgentHello, Location, LocationWithToken } from './schema.ts'

export function presentLocation (row: LocationRow, now: Date): Location {
  return {
    code: row.code,
    name: row.name,
    kind: row.kind,
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    version: row.version,
    online: isLocationOnline(row.lastSeenAt, now),
  }
}

export function presentLocationWithToken (row: LocationRow, token: string, now: Date): LocationWithToken {
  return { ...presentLocation(row, now), agent_token: token }
}

export function presentHello (row: LocationRow, now: Date): AgentHello {
  return { location: { code: row.code, name: row.name }, server_time: now.toISOString() }
}

/** A monitor as its agents check it: what the probe needs, secret header values unmasked, and where its slots start. */
export function presentAssignment (row: MonitorRow): AgentAssignment {
  return {
    monitor_id: row.id,
    monitor_type: row.monitorType as AgentAssignment['monitor_type'],
    url: row.url!,
    interval_minutes: row.intervalMinutes,
    slot_origin: row.createdAt.toISOString(),
    method: row.method,
    expected_status: row.expectedStatus,
    timeout_seconds: row.timeoutSeconds,
    keyword: row.keyword,
    keyword_mode: row.keywordMode,
    degraded_after_ms: row.degradedAfterMs,
    request_headers: row.requestHeaders,
    secret_headers: row.secretHeaders,
    request_body: row.requestBody,
    dns_record_type: row.dnsRecordType,
    dns_expected: row.dnsExpected,
  }
}
