// The rules of a monitor's life: a create within the owner's limit and once per Idempotency-Key, an update that
// pauses, resumes, changes kind and reschedules, a delete; a pause or a delete resolves the open incident and tells of it.
import { auditEvent, recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { InvalidInputError } from '../domain/errors.ts'
import { locationStatesFor } from '../domain/locations.ts'
import { assertSecretsGivenAgain, assertSendableRequest, isSecretHeader, originOf } from '../domain/monitor-request.ts'
import { assertFieldsOfType, heartbeatDeadline } from '../domain/monitor-types.ts'
import { assertMonitorLocations, checkedOnlyByAgents } from '../locations/service.ts'
import { bringMonitorsInLine } from '../maintenance/monitors.ts'
import { resolveOpenIncident } from '../repositories/incidents.ts'
import { monitorChannelIds } from '../repositories/monitor-channels.ts'
import { enqueueIncidentEvent } from '../repositories/notification-outbox.ts'
import { ownerOrgId, type Owner } from '../repositories/owner.ts'
import { PRIVATE_TARGET_HINT } from '../net/address-policy.ts'
import { assertTargetAllowed } from '../net/target-url.ts'
import { maskSecret } from '../schemas/common.ts'
import { idempotencyKeyOf, runOnce, type StoredResponse } from '../services/idempotency.ts'
import { withinOwnerLimit } from '../services/owner-limits.ts'
import { setMonitorSchedules } from './scheduling.ts'
import { columnsOf, kindChangeColumns, newMonitorColumns, secretHeaderNames, type WritableColumns } from './columns.ts'
import { completeMonitor, toMonitor } from './presenter.ts'
import {
  findMonitorRow, forgetDependency, insertMonitor, lockDependencyGraph, lockOwnedMonitor, setMonitorChannels, softDeleteMonitor, updateMonitorRow,
  type MonitorRow,
} from './repository.ts'
import { UpdateMonitorSchema, type Monitor, type MonitorWithoutChannels, type NewMonitor, type UpdateMonitor } from './schema.ts'

/** The owner's live monitor as the API shows it; undefined when none. */
export async function findMonitor (db: Database, owner: Owner, id: string): Promise<Monitor | undefined> {
  const row = await findMonitorRow(db, owner, id)
  return row && completeMonitor(row)
}

const AGENTS_HINT = `${PRIVATE_TARGET_HINT}; or check it from agent locations only, where each agent's own setting applies`

/** What a monitor is created or changed under: its time, who does it, and the server's address policy (ALLOW_PRIVATE_TARGETS). */
export interface MonitorWriteOptions { now: Date, audit: AuditContext, allowPrivateTargets: boolean }

/**
 * The server's address policy holds for a URL its own checkers fetch; one that only agents check (every location an agent
 * location) is theirs to refuse (api-contract section 17).
 */
function assertMonitorTarget (url: string | null | undefined, allowPrivateTargets: boolean, agentsOnly: boolean): void {
  if (url != null) assertTargetAllowed(url, allowPrivateTargets || agentsOnly, 'url', AGENTS_HINT)
}

/** What the audit log compares of a monitor: the fields a caller sets. */
const AUDITED_FIELDS = Object.keys(UpdateMonitorSchema.properties)

/** Creates the owner's monitor, with its audit event (ApiKeyGoneError when the owner's key is gone). */
export async function createMonitor (db: Database, owner: Owner, input: NewMonitor, options: MonitorWriteOptions): Promise<Monitor> {
  const { now, audit, allowPrivateTargets } = options
  if (input.monitor_type === 'site') assertSendableRequest(input)
  const active = input.is_active
  // Due at once; a heartbeat is due when its first ping would be late.
  const nextCheckAt = !active ? null : input.monitor_type === 'heartbeat' ? heartbeatDeadline(now, input.interval_minutes, input.grace_minutes) : now
  const located = input.monitor_type !== 'heartbeat' && (input.locations.length > 0 || input.location_quorum !== null)
  const url = input.monitor_type === 'heartbeat' ? null : input.url
  const columns = Object.assign(newMonitorColumns(input), {
    status: active ? 'pending' as const : 'paused' as const,
    nextCheckAt,
    locationStates: input.monitor_type === 'heartbeat' ? [] : locationStatesFor(input.locations, []),
  })
  // Its event is computed before the insert (the statement writes both): the monitor as the API will show it.
  const shown = { ...toMonitor(columns as MonitorRow), notification_channel_ids: input.notification_channel_ids }
  const event = auditEvent(audit, { orgId: '', action: 'monitor.created', entityId: '', before: null, after: shown, fields: AUDITED_FIELDS, at: now })
  const insert = async (tx: Database) => completeMonitor(await insertMonitor(tx, owner, columns, now, event))
  if (input.notification_channel_ids.length === 0 && input.depends_on.length === 0 && !located) {
    assertMonitorTarget(url, allowPrivateTargets, false)
    return insert(db)
  }
  // The monitor, its opt-ins and its dependencies together, or none (a channel or monitor not the organization's).
  return atomically(db, async (tx) => {
    const orgId = await ownerOrgId(tx, owner)
    const checkerLocations = located ? await assertMonitorLocations(tx, orgId, input.locations, input.location_quorum) : []
    assertMonitorTarget(url, allowPrivateTargets, located && input.locations.length > 0 && checkerLocations.length === 0)
    if (input.depends_on.length > 0) assertDependencies(await lockDependencyGraph(tx, orgId), null, input.depends_on)
    const monitor = await insert(tx)
    if (located) await setMonitorSchedules(tx, monitor.id, checkerLocations, now)
    return input.notification_channel_ids.length === 0 ? monitor : withChannels(tx, orgId, monitor, input.notification_channel_ids)
  })
}

/**
 * Refuses dependencies that are not the organization's other live monitors, or that close a cycle: `id` (null for a
 * new monitor, on which nothing depends yet) would depend, through `dependsOn`, on itself.
 */
function assertDependencies (graph: Map<string, { name: string, dependsOn: string[] }>, id: string | null, dependsOn: readonly string[]): void {
  dependsOn.forEach((parent, i) => {
    if (parent === id) throw new InvalidInputError(`depends_on/${i}`, `depends_on/${i} is the monitor itself: a monitor cannot depend on itself`)
    if (!graph.has(parent)) throw new InvalidInputError(`depends_on/${i}`, `depends_on/${i} must be the id of another monitor of the organization`)
  })
  if (id === null) return
  // A path from one of the new parents back to `id` is a cycle: named monitor by monitor.
  const pathBack = (from: string, seen: Set<string>): string[] | null => {
    if (from === id) return [from]
    if (seen.has(from)) return null
    seen.add(from)
    for (const next of graph.get(from)?.dependsOn ?? []) {
      const path = pathBack(next, seen)
      if (path) return [from, ...path]
    }
    return null
  }
  const seen = new Set<string>()
  for (const parent of dependsOn) {
    const path = pathBack(parent, seen)
    if (path) {
      const names = [id, ...path].map((monitor) => graph.get(monitor)?.name ?? monitor)
      throw new InvalidInputError('depends_on', `depends_on would make a cycle: ${names.join(' → ')}`)
    }
  }
}

async function withChannels (tx: Database, orgId: string, monitor: Monitor, channelIds: string[]): Promise<Monitor> {
  await setMonitorChannels(tx, orgId, monitor.id, channelIds)
  return { ...monitor, notification_channel_ids: await monitorChannelIds(tx, monitor.id) }
}

/** Creates the owner's monitor within the `maxMonitors` limit (0: no limit). */
export function createOwnedMonitor (
  db: Database, owner: Owner, input: NewMonitor, options: MonitorWriteOptions & { maxMonitors: number }
): Promise<Monitor> {
  return withinOwnerLimit(db, owner, 'monitors', options.maxMonitors, (tx, creator) => createMonitor(tx, creator, input, options))
}

export type CreateOnceOutcome =
  | { kind: 'answer', response: StoredResponse, replayed: boolean }
  | { kind: 'other-request' }
  | { kind: 'in-progress' }

/**
 * createOwnedMonitor once per Idempotency-Key (`key`, the header as sent; undefined: none): a repeat gets the first
 * answer, which `answer` makes of the monitor; `fingerprint` tells a repeat from another request with the key.
 */
export async function createMonitorOnce (
  db: Database, owner: Owner, input: NewMonitor,
  options: MonitorWriteOptions & { maxMonitors: number, key?: string, fingerprint: string, answer: (monitor: Monitor) => StoredResponse }
): Promise<CreateOnceOutcome> {
  const create = async (tx: Database) => options.answer(await createOwnedMonitor(tx, owner, input, options))
  if (options.key === undefined) return { kind: 'answer', response: await create(db), replayed: false }
  // Idempotency keys are the organization's (a retry may come with another of its API keys).
  const orgId = await ownerOrgId(db, owner)
  return runOnce(db, orgId, idempotencyKeyOf(options.key), options.fingerprint, options.now, create)
}

/** An update's request headers: a secret value sent back as responses mask it keeps the stored one (listed in `carried`). */
function mergeRequestHeaders (
  stored: Record<string, string>, marked: readonly string[], update: Record<string, string>
): { headers: Record<string, string>, carried: string[] } {
  const storedByName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]))
  const headers: Record<string, string> = {}
  const carried: string[] = []
  for (const [name, value] of Object.entries(update)) {
    const kept = storedByName.get(name.toLowerCase())
    const keep = kept !== undefined && isSecretHeader(name, marked) && value === maskSecret(kept)
    headers[name] = keep ? kept : value
    if (keep) carried.push(name)
  }
  return { headers, carried }
}

function changedColumns (current: MonitorRow, input: UpdateMonitor): WritableColumns {
  const same = (a: unknown, b: unknown) => a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b))
  return Object.fromEntries(Object.entries(columnsOf(input))
    .filter(([column, value]) => value !== undefined && !same(value, current[column as keyof MonitorRow])))
}

function sameSet (a: readonly string[], b: readonly string[]): boolean {
  const [setA, setB] = [new Set(a), new Set(b)]
  return setA.size === setB.size && [...setA].every((value) => setB.has(value))
}

/** Refuses an update whose result breaks a rule of its kind or of its request (headers, body, secrets). */
function assertValidUpdate (current: MonitorRow, input: UpdateMonitor, carried: string[]): void {
  const type = input.monitor_type ?? current.monitorType
  const kindChanges = type !== current.monitorType
  assertFieldsOfType(type, input, input.url ?? (kindChanges && type === 'heartbeat' ? null : current.url))
  if (type !== 'site') return
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

/** The schedule and state an update sets besides its columns: a pause, a resume, a kind change, a new interval or grace. */
function scheduleChanges (current: MonitorRow, input: UpdateMonitor, columns: WritableColumns, now: Date): WritableColumns {
  const type = input.monitor_type ?? current.monitorType
  const kindChanges = type !== current.monitorType
  const active = input.is_active ?? current.isActive
  const after = { ...current, ...columns } as MonitorRow
  const reset = { consecutiveFailures: 0, consecutiveSuccesses: 0, consecutiveSlow: 0 }
  if (input.is_active === false && current.isActive) return { status: 'paused', nextCheckAt: null, ...reset }
  if ((input.is_active === true && !current.isActive) || (kindChanges && active)) {
    // Resumed or changed kind: pending until its first check or ping, its locations' coverage decided afresh.
    const nextCheckAt = type === 'heartbeat' ? heartbeatDeadline(now, after.intervalMinutes, after.graceMinutes!) : now
    return { status: 'pending', nextCheckAt, locationCoverage: 'pending', ...reset }
  }
  if (current.isActive && type === 'heartbeat' && (columns.intervalMinutes !== undefined || columns.graceMinutes !== undefined)) {
    return { nextCheckAt: heartbeatDeadline(current.lastCheckedAt ?? now, after.intervalMinutes, after.graceMinutes!) }
  }
  if (current.isActive && input.interval_minutes !== undefined && input.interval_minutes !== current.intervalMinutes &&
    current.lastCheckedAt && current.consecutiveFailures === 0) {
    // Counted from the last check, so a shorter interval is not held back by the old schedule.
    const next = current.lastCheckedAt.getTime() + input.interval_minutes * 60_000
    return { nextCheckAt: new Date(Math.max(next, now.getTime())) }
  }
  return {}
}

/** Updates the organization's live monitor; undefined when none. An update that changes nothing keeps `updated_at`, and has no event. */
export async function updateMonitor (
  db: Database, orgId: string, id: string, input: UpdateMonitor, options: MonitorWriteOptions
): Promise<Monitor | undefined> {
  const { now, audit, allowPrivateTargets } = options
  return atomically(db, async (tx) => {
    const current = await lockOwnedMonitor(tx, orgId, id)
    if (!current) return undefined
    // Stored secrets kept without their values being sent again.
    let carried = Object.keys(current.requestHeaders).filter((name) => isSecretHeader(name, current.secretHeaders))
    if (input.request_headers !== undefined) {
      const merged = mergeRequestHeaders(current.requestHeaders, current.secretHeaders, input.request_headers)
      input = { ...input, request_headers: merged.headers }
      carried = merged.carried
    }
    assertValidUpdate(current, input, carried)
    const type = input.monitor_type ?? current.monitorType
    const columns = { ...changedColumns(current, input), ...kindChangeColumns(current.monitorType, type, input) }
    if (columns.dependsOn !== undefined) assertDependencies(await lockDependencyGraph(tx, orgId), id, columns.dependsOn)
    const codes = columns.locations ?? current.locations
    let checkerLocations: string[] | undefined
    if (columns.locations !== undefined || columns.locationQuorum !== undefined) {
      checkerLocations = await assertMonitorLocations(tx, orgId, codes, columns.locationQuorum !== undefined ? columns.locationQuorum : current.locationQuorum)
      columns.locationStates = locationStatesFor(codes, current.locationStates)
      columns.locationCoverage = 'pending'
    }
    if (columns.url !== undefined || columns.locations !== undefined) {
      const agentsOnly = !allowPrivateTargets && codes.length > 0 && (checkerLocations ? checkerLocations.length === 0 : await checkedOnlyByAgents(tx, orgId, codes))
      assertMonitorTarget(columns.url !== undefined ? columns.url : current.url, allowPrivateTargets, agentsOnly)
    }
    const channelIds = await monitorChannelIds(tx, id)
    const channelsChange = input.notification_channel_ids !== undefined && !sameSet(input.notification_channel_ids, channelIds)
    if (Object.keys(columns).length === 0 && !channelsChange) return { ...toMonitor(current), notification_channel_ids: channelIds }
    // Another URL may be another server: forget the old certificate and the reminders sent about it.
    const forgotten = columns.url !== undefined ? { tlsExpiresAt: null, tlsIssuer: null, tlsExpiryToldDays: null } : {}
    let row = await updateMonitorRow(tx, id, { ...columns, updatedAt: now, ...forgotten, ...scheduleChanges(current, input, columns, now) })
    // Other labels: a window under way may cover it now, or no longer.
    if (columns.labels !== undefined) {
      await bringMonitorsInLine(tx, orgId, now, id)
      row = (await lockOwnedMonitor(tx, orgId, id))!
    }
    if (columns.locations !== undefined) await setMonitorSchedules(tx, id, checkerLocations!, now)
    if (channelsChange) await setMonitorChannels(tx, orgId, id, input.notification_channel_ids!)
    const monitor = toMonitor(row)
    if (input.is_active === false && current.isActive) await resolveAndNotify(tx, monitor, orgId, now)
    const updated = { ...monitor, notification_channel_ids: channelsChange ? await monitorChannelIds(tx, id) : channelIds }
    const before = { ...toMonitor(current), notification_channel_ids: channelIds }
    await recordChange(tx, audit, { orgId, action: 'monitor.updated', entityId: id, before, after: updated, fields: AUDITED_FIELDS, at: now })
    return updated
  })
}

/** Resolves the monitor's open incident (on a pause or a delete) and queues its notification. */
async function resolveAndNotify (tx: Database, monitor: MonitorWithoutChannels, orgId: string, now: Date): Promise<void> {
  const incident = await resolveOpenIncident(tx, monitor.id, now)
  if (incident) await enqueueIncidentEvent(tx, { orgId, monitor, incident, check: null, at: now })
}

/** Soft-deletes the monitor and resolves its open incident; false when there was nothing to delete. */
export async function deleteMonitor (db: Database, orgId: string, id: string, now: Date, audit: AuditContext): Promise<boolean> {
  return atomically(db, async (tx) => {
    const deleted = await softDeleteMonitor(tx, orgId, id, now)
    if (!deleted) return false
    await forgetDependency(tx, orgId, id)
    const monitor = toMonitor(deleted)
    await resolveAndNotify(tx, monitor, orgId, now)
    const before = { ...monitor, notification_channel_ids: await monitorChannelIds(tx, id) }
    await recordChange(tx, audit, { orgId, action: 'monitor.deleted', entityId: id, before, after: null, fields: AUDITED_FIELDS, at: now })
    return true
  })
}
