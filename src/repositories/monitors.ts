// Monitor data access for the API: list, read, create, update and soft-delete, scoped to one user.
import { and, eq, getTableColumns, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { preparedSql, selectList } from '../db/prepared.ts'
import { monitors } from '../db/schema.ts'
import {
  maskRequestHeaders, mergeRequestHeaders, MonitorSchema,
  type Monitor, type MonitorWithoutChannels, type NewMonitor, type UpdateMonitor,
} from '../schemas/monitor.ts'
import { assertSecretsGivenAgain, assertSendableRequest, isSecretHeader, originOf } from '../domain/monitor-request.ts'
import { assertFieldsOfType, heartbeatDeadline } from '../domain/monitor-types.ts'
import { columnsOf, kindChangeColumns, newMonitorColumns, secretHeaderNames } from './monitor-columns.ts'
import { monitorRowColumns, type MonitorRow } from './monitor-rows.ts'
import { resolveOpenIncident } from './incidents.ts'
import { channelIdsColumn, monitorChannelIds, setMonitorChannels } from './monitor-channels.ts'
import { enqueueIncidentEvent } from './notification-outbox.ts'

export { listMonitorPage, listMonitors } from './monitor-list.ts'
export { listMonitorPageJson } from './monitor-json.ts'

/** The path of a heartbeat's ping URL, before its token. */
export const PING_PATH = '/ping/'
import {
  assertOwnerFound, foundRows, ownedMonitorRow, ownerRow, ownerUserId, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind,
} from './owner.ts'

// A path from the server's root: only the edge knows the public address (`absolutePingUrl`).
const pingPath = (token: string | null): string | null => token === null ? null : `${PING_PATH}${token}`

/** The API's record of a monitor row, without its channels. */
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
    request_headers: maskRequestHeaders(row.requestHeaders, row.secretHeaders),
    secret_headers: row.secretHeaders,
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

// The API schema's field names are also the column names.
const MONITOR_FIELDS = Object.keys(MonitorSchema.properties)

// No row: the owner is gone; a row of nulls: no such monitor of theirs.
function findMonitorQuery (kind: OwnerKind): SQL {
  return sql`select ${selectList('m', monitors, MONITOR_FIELDS, { notification_channel_ids: channelIdsColumn('m'), ping_url: 'm.ping_token' })}
    ${ownedMonitorRow(kind, 'id')}`
}
const findStatement = perOwnerKind((kind) => preparedSql(`find_monitor_${kind}`, () => findMonitorQuery(kind)))

/** Converts a row that already has the API's field names into the API's record, in place. */
function apiMonitor (row: Monitor): Monitor {
  if (row.last_checked_at !== null) row.last_checked_at = isoTime(row.last_checked_at)
  row.created_at = isoTime(row.created_at)
  row.updated_at = isoTime(row.updated_at)
  row.request_headers = maskRequestHeaders(row.request_headers, row.secret_headers)
  if (row.tls_expires_at !== null) row.tls_expires_at = isoTime(row.tls_expires_at)
  row.ping_url = pingPath(row.ping_url)
  return row
}

export async function findMonitor (db: Database, owner: Owner, id: string): Promise<Monitor | undefined> {
  const rows = rowsOf<Monitor | NullRow<Monitor>>(await findStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  return foundRows(rows) ? apiMonitor(rows[0]) : undefined
}

const existsStatement = perOwnerKind((kind) => preparedSql(`monitor_exists_${kind}`, () => sql`select m.id
    ${ownedMonitorRow(kind, 'id')}`))

/** True when the monitor is live and the owner's. */
export async function monitorExists (db: Database, owner: Owner, id: string): Promise<boolean> {
  const rows = rowsOf<{ id: string | null }>(await existsStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  return rows[0].id !== null
}

const ph = sql.placeholder
/** The columns a create sets; the others take their defaults. */
const CREATED_COLUMNS = [
  'name', 'url', 'monitorType', 'method', 'expectedStatus', 'intervalMinutes', 'isActive', 'timeoutSeconds', 'failureThreshold',
  'recoveryThreshold', 'keyword', 'keywordMode', 'degradedAfterMs', 'requestHeaders', 'secretHeaders', 'requestBody', 'dnsRecordType', 'dnsExpected',
  'graceMinutes', 'pingToken', 'status', 'nextCheckAt',
] as const satisfies ReadonlyArray<keyof typeof monitors.$inferInsert>

// Inserts from the owner row, so a deleted key inserts nothing in the same statement. An INSERT ... SELECT
// types its values by their casts, not by the columns, so each placeholder carries its column's type.
function insertMonitorQuery (kind: OwnerKind): SQL {
  const columns = getTableColumns(monitors)
  const typed = (placeholder: string, column: keyof typeof columns) => sql`${ph(placeholder)}::${sql.raw(columns[column].getSQLType())}`
  const names = ['userId', ...CREATED_COLUMNS, 'createdAt', 'updatedAt'].map((column) => columns[column as keyof typeof columns].name)
  const values = [sql`o.user_id`, ...CREATED_COLUMNS.map((column) => typed(column, column)), typed('now', 'createdAt'), typed('now', 'updatedAt')]
  return sql`insert into ${monitors} as m (${sql.raw(names.join(', '))}) select ${sql.join(values, sql`, `)} from ${ownerRow(kind)}
    returning ${selectList('m', monitors, MONITOR_FIELDS, { notification_channel_ids: '\'[]\'::json', ping_url: 'm.ping_token' })}`
}
const insertStatement = perOwnerKind((kind) => preparedSql(`insert_monitor_${kind}`, () => insertMonitorQuery(kind)))

/** Creates the owner's monitor (ApiKeyGoneError when the owner's key is gone). */
export async function createMonitor (db: Database, owner: Owner, input: NewMonitor, now: Date): Promise<Monitor> {
  if (input.monitor_type === 'site') assertSendableRequest(input)
  const active = input.is_active
  const columns = newMonitorColumns(input)
  // Due at once; a heartbeat is due when its first ping would be late.
  const nextCheckAt = !active ? null : input.monitor_type === 'heartbeat' ? heartbeatDeadline(now, input.interval_minutes, input.grace_minutes) : now
  // Assigned into the columns' own object: a spread is the costliest step of a create.
  const values = Object.assign(columns, {
    name: input.name.trim(),
    requestHeaders: JSON.stringify(columns.requestHeaders),
    secretHeaders: JSON.stringify(columns.secretHeaders),
    status: active ? 'pending' : 'paused',
    nextCheckAt: nextCheckAt?.toISOString() ?? null,
    now: now.toISOString(),
    owner: ownerValue(owner),
  })
  const insert = async (tx: Database): Promise<Monitor> => {
    const rows = rowsOf<Monitor>(await insertStatement(owner)(tx).execute(values))
    assertOwnerFound(owner, rows)
    return apiMonitor(rows[0])
  }
  if (input.notification_channel_ids.length === 0) return insert(db)
  // The monitor and its opt-ins together, or neither (a channel that is not the user's).
  return db.transaction(async (tx) => {
    const monitor = await insert(tx)
    await setMonitorChannels(tx, await ownerUserId(tx, owner), monitor.id, input.notification_channel_ids)
    return { ...monitor, notification_channel_ids: await monitorChannelIds(tx, monitor.id) }
  })
}

function changedColumns (current: MonitorRow, input: UpdateMonitor): Partial<typeof monitors.$inferInsert> {
  const same = (a: unknown, b: unknown) => a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b))
  return Object.fromEntries(Object.entries(columnsOf(input))
    .filter(([column, value]) => value !== undefined && !same(value, current[column as keyof MonitorRow])))
}

function sameSet (a: readonly string[], b: readonly string[]): boolean {
  const [setA, setB] = [new Set(a), new Set(b)]
  return setA.size === setB.size && [...setA].every((value) => setB.has(value))
}

/** Updates the user's live monitor; undefined when none. An update that changes nothing keeps `updated_at`. */
export async function updateMonitor (
  db: Database, userId: string, id: string, input: UpdateMonitor, now: Date
): Promise<Monitor | undefined> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select(monitorRowColumns).from(monitors).where(ownedLive(userId, id)).for('update')
    if (!current) return undefined
    // Stored secrets kept without their values being sent again.
    let carried = Object.keys(current.requestHeaders).filter((name) => isSecretHeader(name, current.secretHeaders))
    if (input.request_headers !== undefined) {
      const merged = mergeRequestHeaders(current.requestHeaders, current.secretHeaders, input.request_headers)
      input = { ...input, request_headers: merged.headers }
      carried = merged.carried
    }
    const type = input.monitor_type ?? current.monitorType
    const kindChanges = type !== current.monitorType
    assertFieldsOfType(type, input, input.url ?? (kindChanges && type === 'heartbeat' ? null : current.url))
    if (type === 'site') {
      const secretHeaders = input.secret_headers === undefined ? current.secretHeaders : secretHeaderNames(input.secret_headers)
      assertSendableRequest({
        method: input.method ?? current.method,
        request_headers: input.request_headers ?? current.requestHeaders,
        secret_headers: secretHeaders,
        request_body: input.request_body !== undefined ? input.request_body : current.requestBody,
        keyword: input.keyword !== undefined ? input.keyword : current.keyword,
      })
      if (!kindChanges) {
        assertSecretsGivenAgain(carried, {
          originChanges: input.url !== undefined && originOf(input.url) !== originOf(current.url),
          secretAfter: (name) => isSecretHeader(name, secretHeaders),
        })
      }
    }
    const columns = { ...changedColumns(current, input), ...kindChangeColumns(current, type, input) }
    const channelIds = await monitorChannelIds(tx, id)
    const channelsChange = input.notification_channel_ids !== undefined && !sameSet(input.notification_channel_ids, channelIds)
    if (Object.keys(columns).length === 0 && !channelsChange) return { ...toMonitor(current), notification_channel_ids: channelIds }
    const changes: Partial<typeof monitors.$inferInsert> = { ...columns, updatedAt: now }
    // Another URL may be another server: forget the old certificate and the reminders sent about it.
    if (columns.url !== undefined) Object.assign(changes, { tlsExpiresAt: null, tlsIssuer: null, tlsExpiryToldDays: null })
    const pausing = input.is_active === false && current.isActive
    const active = input.is_active ?? current.isActive
    const after = { ...current, ...changes } as typeof current
    if (pausing) {
      Object.assign(changes, { status: 'paused', nextCheckAt: null, consecutiveFailures: 0, consecutiveSuccesses: 0, consecutiveSlow: 0 })
    } else if ((input.is_active === true && !current.isActive) || (kindChanges && active)) {
      // Resumed or changed kind: pending until its first check or ping.
      const nextCheckAt = type === 'heartbeat' ? heartbeatDeadline(now, after.intervalMinutes, after.graceMinutes!) : now
      Object.assign(changes, { status: 'pending', nextCheckAt, consecutiveFailures: 0, consecutiveSuccesses: 0, consecutiveSlow: 0 })
    } else if (current.isActive && type === 'heartbeat' && (columns.intervalMinutes !== undefined || columns.graceMinutes !== undefined)) {
      changes.nextCheckAt = heartbeatDeadline(current.lastCheckedAt ?? now, after.intervalMinutes, after.graceMinutes!)
    } else if (current.isActive && input.interval_minutes !== undefined && input.interval_minutes !== current.intervalMinutes &&
      current.lastCheckedAt && current.consecutiveFailures === 0) {
      // Counted from the last check, so a shorter interval is not held back by the old schedule.
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

/** Resolves the monitor's open incident (on a pause or a delete) and queues its notification. */
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
