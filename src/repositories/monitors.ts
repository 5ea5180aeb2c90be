// Monitor data access for the API: list, read, create, update and soft-delete, scoped to one user.
import { and, eq, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { preparedPerDatabase, preparedSql, selectList } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import {
  maskRequestHeaders, mergeRequestHeaders, MonitorSchema,
  type Monitor, type MonitorWithoutChannels, type NewMonitor, type UpdateMonitor,
} from '../schemas/monitor.ts'
import { assertSendableRequest } from '../domain/monitor-request.ts'
import { assertFieldsOfType, heartbeatDeadline } from '../domain/monitor-types.ts'
import { columnsOf, kindChangeColumns, newMonitorColumns } from './monitor-columns.ts'
import { monitorRowColumns, type MonitorRow } from './monitor-rows.ts'
import { resolveOpenIncident } from './incidents.ts'
import { channelIdsColumn, monitorChannelIds, setMonitorChannels } from './monitor-channels.ts'
import { enqueueIncidentEvent } from './notification-outbox.ts'

// The list lives in its own module (filters, paging); its callers know it by this one.
export { listMonitorPage, listMonitors } from './monitor-list.ts'
export { listMonitorPageJson } from './monitor-json.ts'

/** The path of a heartbeat's ping URL, before its token. */
export const PING_PATH = '/ping/'
import {
  assertOwnerFound, foundRows, ownedMonitorRow, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind,
} from './owner.ts'

/**
 * Where a heartbeat is pinged, from the server's root: the edge puts the public address before it
 * (`absolutePingUrl`), which the repositories do not know.
 */
const pingPath = (token: string | null): string | null => token === null ? null : `${PING_PATH}${token}`

/** The API's record of a monitor row, but for its channels (another table's rows). */
export function toMonitor (row: MonitorRow): MonitorWithoutChannels {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    monitor_type: row.monitorType,
    method: row.method,
    expected_status: row.expectedStatus,
    interval_minutes: row.intervalMinutes,
    timeout_seconds: row.timeoutSeconds,
    failure_threshold: row.failureThreshold,
    recovery_threshold: row.recoveryThreshold,
    keyword: row.keyword,
    keyword_mode: row.keywordMode,
    degraded_after_ms: row.degradedAfterMs,
    request_headers: maskRequestHeaders(row.requestHeaders),
    request_body: row.requestBody,
    dns_record_type: row.dnsRecordType,
    dns_expected: row.dnsExpected,
    grace_minutes: row.graceMinutes,
    ping_url: pingPath(row.pingToken),
    tls_expires_at: row.tlsExpiresAt?.toISOString() ?? null,
    tls_issuer: row.tlsIssuer,
    status: row.status,
    is_active: row.isActive,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

const ownedLive = (userId: string | Placeholder, id: string | Placeholder) =>
  and(eq(monitors.id, id), eq(monitors.userId, userId), isNull(monitors.deletedAt))

// The select list of the hot read of one monitor: the fields of the API's schema, whose names are the columns'.
const MONITOR_FIELDS = Object.keys(MonitorSchema.properties)

/** The statement of findMonitor: no row, the owner is gone; a row of nulls, no such monitor of theirs. */
function findMonitorQuery (kind: OwnerKind): SQL {
  return sql`select ${selectList('m', monitors, MONITOR_FIELDS, { notification_channel_ids: channelIdsColumn('m'), ping_url: 'm.ping_token' })}
    ${ownedMonitorRow(kind, 'id')}`
}
const findStatement = perOwnerKind((kind) => preparedSql(`find_monitor_${kind}`, () => findMonitorQuery(kind)))

export async function findMonitor (db: Database, owner: Owner, id: string): Promise<Monitor | undefined> {
  const rows = rowsOf<Monitor | NullRow<Monitor>>(await findStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  if (!foundRows(rows)) return undefined
  // The row already carries the API's field names: only the times are converted, in place.
  const row = rows[0]
  if (row.last_checked_at !== null) row.last_checked_at = isoTime(row.last_checked_at)
  row.created_at = isoTime(row.created_at)
  row.updated_at = isoTime(row.updated_at)
  row.request_headers = maskRequestHeaders(row.request_headers)
  if (row.tls_expires_at !== null) row.tls_expires_at = isoTime(row.tls_expires_at)
  row.ping_url = pingPath(row.ping_url)
  return row
}

const existsStatement = perOwnerKind((kind) => preparedSql(`monitor_exists_${kind}`, () => sql`select m.id
    ${ownedMonitorRow(kind, 'id')}`))

/** True when the monitor exists, is not deleted and belongs to the owner. */
export async function monitorExists (db: Database, owner: Owner, id: string): Promise<boolean> {
  const rows = rowsOf<{ id: string | null }>(await existsStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  return rows[0].id !== null
}

const ph = sql.placeholder
// In an insert a bare placeholder's value goes through the column's mapping (a Date for times, never null);
// wrapped in sql`` it goes as is, like the placeholders of a where clause: times as ISO text, or null.
const asIs = (name: string) => sql`${ph(name)}`
const insertStatement = preparedPerDatabase((db) => db.insert(monitors).values({
  userId: ph('userId'),
  name: ph('name'),
  url: asIs('url'),
  monitorType: ph('monitorType'),
  method: ph('method'),
  expectedStatus: ph('expectedStatus'),
  intervalMinutes: ph('intervalMinutes'),
  isActive: ph('isActive'),
  timeoutSeconds: ph('timeoutSeconds'),
  failureThreshold: ph('failureThreshold'),
  recoveryThreshold: ph('recoveryThreshold'),
  keyword: asIs('keyword'),
  keywordMode: ph('keywordMode'),
  degradedAfterMs: asIs('degradedAfterMs'),
  requestHeaders: ph('requestHeaders'),
  requestBody: asIs('requestBody'),
  dnsRecordType: asIs('dnsRecordType'),
  dnsExpected: asIs('dnsExpected'),
  graceMinutes: asIs('graceMinutes'),
  pingToken: asIs('pingToken'),
  status: ph('status'),
  nextCheckAt: asIs('nextCheckAt'),
  createdAt: asIs('now'),
  updatedAt: asIs('now'),
}).returning(monitorRowColumns).prepare('insert_monitor'))

export async function createMonitor (db: Database, userId: string, input: NewMonitor, now: Date): Promise<Monitor> {
  if (input.monitor_type === 'site') assertSendableRequest(input)
  const active = input.is_active
  const at = now.toISOString()
  const values = {
    userId,
    ...newMonitorColumns(input),
    name: input.name.trim(),
    status: active ? 'pending' as const : 'paused' as const,
  }
  // A new monitor is due at once, so its first check comes within seconds; a heartbeat, when its first ping is late.
  const nextCheckAt = !active ? null : input.monitor_type === 'heartbeat' ? heartbeatDeadline(now, input.interval_minutes, input.grace_minutes) : now
  if (input.notification_channel_ids.length === 0) {
    const [row] = await insertStatement(db).execute({ ...values, nextCheckAt: nextCheckAt?.toISOString() ?? null, now: at })
    return { ...toMonitor(row), notification_channel_ids: [] }
  }
  // With channels: the monitor and its opt-ins together, or neither (a channel that is not the user's).
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(monitors).values({ ...values, nextCheckAt, createdAt: now, updatedAt: now }).returning(monitorRowColumns)
    await setMonitorChannels(tx, userId, row.id, input.notification_channel_ids)
    return { ...toMonitor(row), notification_channel_ids: await monitorChannelIds(tx, row.id) }
  })
}

/** The fields of an update that would change the row: none for `{}` or for values it holds already. */
function changedColumns (current: MonitorRow, input: UpdateMonitor): Partial<typeof monitors.$inferInsert> {
  const same = (a: unknown, b: unknown) => a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b))
  return Object.fromEntries(Object.entries(columnsOf(input))
    .filter(([column, value]) => value !== undefined && !same(value, current[column as keyof MonitorRow])))
}

function sameSet (a: readonly string[], b: readonly string[]): boolean {
  const [setA, setB] = [new Set(a), new Set(b)]
  return setA.size === setB.size && [...setA].every((value) => setB.has(value))
}

/**
 * Updates the user's live monitor; undefined when there is none. An update that changes nothing (`{}`, or
 * only the values the monitor has) writes nothing, so `updated_at` stays: it says when the monitor last changed.
 */
export async function updateMonitor (
  db: Database, userId: string, id: string, input: UpdateMonitor, now: Date
): Promise<Monitor | undefined> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select(monitorRowColumns).from(monitors).where(ownedLive(userId, id)).for('update')
    if (!current) return undefined
    if (input.request_headers !== undefined) input = { ...input, request_headers: mergeRequestHeaders(current.requestHeaders, input.request_headers) }
    const type = input.monitor_type ?? current.monitorType
    const kindChanges = type !== current.monitorType
    assertFieldsOfType(type, input, input.url ?? (kindChanges && type === 'heartbeat' ? null : current.url))
    if (type === 'site') {
      assertSendableRequest({
        method: input.method ?? current.method,
        request_headers: input.request_headers ?? current.requestHeaders,
        request_body: input.request_body !== undefined ? input.request_body : current.requestBody,
        keyword: input.keyword !== undefined ? input.keyword : current.keyword,
      })
    }
    const columns = { ...changedColumns(current, input), ...kindChangeColumns(current, type, input) }
    const channelIds = await monitorChannelIds(tx, id)
    const channelsChange = input.notification_channel_ids !== undefined && !sameSet(input.notification_channel_ids, channelIds)
    if (Object.keys(columns).length === 0 && !channelsChange) return { ...toMonitor(current), notification_channel_ids: channelIds }
    const changes: Partial<typeof monitors.$inferInsert> = { ...columns, updatedAt: now }
    // Another URL may be another server (or plain HTTP): the certificate seen at the old one is not its.
    // Nor what was told of it (tls.expiring): the certificate seen next starts its reminders again.
    if (columns.url !== undefined) Object.assign(changes, { tlsExpiresAt: null, tlsIssuer: null, tlsExpiryToldDays: null })
    const pausing = input.is_active === false && current.isActive
    const active = input.is_active ?? current.isActive
    // The row as it will be, for the heartbeat's deadline below.
    const after = { ...current, ...changes } as typeof current
    if (pausing) {
      Object.assign(changes, { status: 'paused', nextCheckAt: null, consecutiveFailures: 0, consecutiveSuccesses: 0, consecutiveSlow: 0 })
    } else if ((input.is_active === true && !current.isActive) || (kindChanges && active)) {
      // Resumed, or another kind of check from now on: pending until its first check (due at once) or ping.
      const nextCheckAt = type === 'heartbeat' ? heartbeatDeadline(now, after.intervalMinutes, after.graceMinutes!) : now
      Object.assign(changes, { status: 'pending', nextCheckAt, consecutiveFailures: 0, consecutiveSuccesses: 0, consecutiveSlow: 0 })
    } else if (current.isActive && type === 'heartbeat' && (columns.intervalMinutes !== undefined || columns.graceMinutes !== undefined)) {
      // A heartbeat's new interval or grace counts from its last ping (or from now, before the first).
      changes.nextCheckAt = heartbeatDeadline(current.lastCheckedAt ?? now, after.intervalMinutes, after.graceMinutes!)
    } else if (current.isActive && input.interval_minutes !== undefined && input.interval_minutes !== current.intervalMinutes &&
      current.lastCheckedAt && current.consecutiveFailures === 0) {
      // A new interval counts from the last check, so a shorter one is not held back by the old schedule.
      const next = current.lastCheckedAt.getTime() + input.interval_minutes * 60_000
      changes.nextCheckAt = new Date(Math.max(next, now.getTime()))
    }
    const [row] = await tx.update(monitors).set(changes).where(eq(monitors.id, id)).returning(monitorRowColumns)
    if (channelsChange) await setMonitorChannels(tx, userId, id, input.notification_channel_ids!)
    const monitor = toMonitor(row)
    if (pausing) await resolveAndNotify(tx, monitor, userId, now)
    return { ...monitor, notification_channel_ids: channelsChange ? await monitorChannelIds(tx, id) : channelIds }
  })
}

/** Resolves the monitor's open incident of either kind (a pause or a delete) and writes its notification (`incident.resolved`, `monitor.degraded`). */
async function resolveAndNotify (tx: Database, monitor: MonitorWithoutChannels, userId: string, now: Date): Promise<void> {
  const incident = await resolveOpenIncident(tx, monitor.id, now)
  if (incident) await enqueueIncidentEvent(tx, { userId, monitor, incident, check: null, at: now })
}

/** Soft-deletes the monitor and resolves its open incident; false when there was nothing to delete. */
export async function deleteMonitor (db: Database, userId: string, id: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx.update(monitors)
      .set({ deletedAt: now, updatedAt: now, nextCheckAt: null })
      .where(ownedLive(userId, id))
      .returning(monitorRowColumns)
    if (!deleted) return false
    await resolveAndNotify(tx, toMonitor(deleted), userId, now)
    return true
  })
}
