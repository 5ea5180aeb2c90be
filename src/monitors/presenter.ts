// A monitor row as the API shows it: times as ISO text, secret header values masked, a heartbeat's ping URL.
import { getTableColumns } from 'drizzle-orm'
import { monitors } from '../db/schema.ts'
import { isoTime } from '../db/timestamps.ts'
import { isSecretHeader } from '../domain/monitor-request.ts'
import { maskSecret } from '../schemas/common.ts'
import type { MonitorRow } from './repository.ts'
import { MonitorSchema, type Monitor, type MonitorWithoutChannels } from './schema.ts'

/** The path of a heartbeat's ping URL, before its token. */
export const PING_PATH = '/ping/'

// A path from the server's root: only the edge knows the public address (withAbsolutePingUrl).
const pingPath = (token: string | null): string | null => token === null ? null : `${PING_PATH}${token}`

// The API's field names are the column names: each field of the record from its column's field of the row.
const ROW_FIELD_OF = new Map(Object.entries(getTableColumns(monitors)).map(([field, column]) => [column.name, field as keyof MonitorRow]))
const RECORD_FIELDS = Object.keys(MonitorSchema.properties).filter((name) => name !== 'notification_channel_ids')

/** A monitor's request headers as responses show them: the values of secret headers (`marked` too) masked. */
function maskRequestHeaders (headers: Record<string, string>, marked: readonly string[]): Record<string, string> {
  const masked: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) masked[name] = isSecretHeader(name, marked) ? maskSecret(value) : value
  return masked
}

/** The API's record of a monitor row, without its channels. */
export function toMonitor (row: MonitorRow): MonitorWithoutChannels {
  const record: Record<string, unknown> = {}
  for (const name of RECORD_FIELDS) {
    const value = name === 'ping_url' ? pingPath(row.pingToken) : row[ROW_FIELD_OF.get(name)!]
    record[name] = value instanceof Date ? value.toISOString() : value
  }
  record.request_headers = maskRequestHeaders(row.requestHeaders, row.secretHeaders)
  return record as MonitorWithoutChannels
}

/** The record from a read that selected the columns under the API's names (times as text, the token as ping_url), in place. */
export function completeMonitor<T extends Monitor | MonitorWithoutChannels> (row: T): T {
  if (row.last_checked_at !== null) row.last_checked_at = isoTime(row.last_checked_at)
  row.created_at = isoTime(row.created_at)
  row.updated_at = isoTime(row.updated_at)
  row.request_headers = maskRequestHeaders(row.request_headers, row.secret_headers)
  if (row.tls_expires_at !== null) row.tls_expires_at = isoTime(row.tls_expires_at)
  row.ping_url = pingPath(row.ping_url)
  return row
}

/** The record with its heartbeat's ping URL made absolute: presenters give the path, as only the edge knows PUBLIC_URL. */
export function withAbsolutePingUrl<T extends { ping_url: string | null }> (monitor: T, publicUrl: string): T {
  return monitor.ping_url === null || !monitor.ping_url.startsWith('/') ? monitor : { ...monitor, ping_url: `${publicUrl}${monitor.ping_url}` }
}
