// The rules of maintenance windows (api-contract section 14): what a window must say, its one stored occurrence
// (current or next), and what its edges do. Every edge goes through reconcile(): the window becomes active or not,
// `maintenance.started`/`ended` go to the channels that want them, the monitors it covers enter or leave maintenance,
// and an incident that opened inside and is still open is told when its monitor leaves. Each change is audited.
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditAction } from '../domain/vocabulary.ts'
import type { AuditContext } from '../domain/audit.ts'
import { ConflictError, InvalidInputError } from '../domain/errors.ts'
import { enqueueEvent } from '../repositories/notification-outbox.ts'
import { bringMonitorsInLine } from './monitors.ts'
import { isTimeZone, occurrenceAfter, rruleProblem, type Occurrence, type Schedule } from './occurrences.ts'
import { presentWindow } from './presenter.ts'
import {
  deleteWindow, findWindow, insertWindow, lockDueWindow, unknownMonitorIds, updateWindow, type WindowInsert, type WindowRow,
} from './repository.ts'
import type { MaintenanceWindowChanges, NewMaintenanceWindow } from './schema.ts'

/** Who changes a window: a member of the organization, as the audit log names them. */
export interface Maintainer { orgId: string, audit: AuditContext }

const AUDITED = ['title', 'description', 'monitor_ids', 'all_monitors', 'label_selector', 'starts_at', 'ends_at', 'rrule', 'timezone', 'mode', 'state'] as const

class WindowStateError extends ConflictError {}

const scheduleOf = (row: Pick<WindowRow, 'startsAt' | 'endsAt' | 'rrule' | 'timezone'>): Schedule =>
  ({ startsAt: row.startsAt, endsAt: row.endsAt, rrule: row.rrule, timezone: row.timezone })

/** Refuses what a window may not say, naming the field. */
async function assertValid (db: Database, orgId: string, window: Pick<WindowRow, 'startsAt' | 'endsAt' | 'rrule' | 'timezone' | 'monitorIds' | 'allMonitors' | 'labelSelector'>): Promise<void> {
  if (window.endsAt <= window.startsAt) throw new InvalidInputError('ends_at', 'ends_at must be after starts_at')
  if (!isTimeZone(window.timezone)) throw new InvalidInputError('timezone', `timezone must be an IANA time zone such as Europe/Berlin; "${window.timezone}" is not one`)
  const problem = window.rrule === null ? null : rruleProblem(window.rrule)
  if (problem) throw new InvalidInputError('rrule', `rrule: ${problem}`)
  if (!window.allMonitors && window.monitorIds.length === 0 && window.labelSelector.length === 0) {
    throw new InvalidInputError('monitor_ids', 'monitor_ids must name a monitor, unless all_monitors is true or label_selector is given')
  }
  const unknown = await unknownMonitorIds(db, orgId, window.monitorIds)
  if (unknown.length > 0) throw new InvalidInputError('monitor_ids', `monitor_ids: ${unknown[0]} is not a monitor of this organization`)
}

/** Makes a window; without `starts_at` it starts now. A window whose first occurrence is under way starts at once. */
export async function createWindow (db: Database, who: Maintainer, input: NewMaintenanceWindow, now: Date): Promise<WindowRow> {
  const values = {
    orgId: who.orgId,
    title: input.title,
    description: input.description ?? null,
    monitorIds: input.monitor_ids ?? [],
    allMonitors: input.all_monitors ?? false,
    labelSelector: input.label_selector ?? [],
    startsAt: input.starts_at === undefined ? now : new Date(input.starts_at),
    endsAt: new Date(input.ends_at),
    rrule: input.rrule ?? null,
    timezone: input.timezone ?? 'UTC',
    mode: input.mode ?? 'mute',
  } satisfies WindowInsert
  await assertValid(db, who.orgId, values)
  const next = occurrenceAfter(scheduleOf(values), now)
  if (next === null) throw new InvalidInputError('ends_at', 'ends_at is past and no occurrence is left: the window would never start')
  return atomically(db, async (tx) => {
    const row = await reconcile(tx, await insertWindow(tx, { ...values, nextStartsAt: next.startsAt, nextEndsAt: next.endsAt, createdAt: now, updatedAt: now }), now)
    await audit(tx, who, 'maintenance_window.created', null, row, now)
    return row
  })
}

/** Changes a window; a change of its times or rule moves its occurrence, `state` cancels or restores it. */
export async function changeWindow (db: Database, who: Maintainer, id: string, changes: MaintenanceWindowChanges, now: Date): Promise<WindowRow | undefined> {
  return atomically(db, async (tx) => {
    const before = await findWindow(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    const merged = {
      title: changes.title ?? before.title,
      description: changes.description === undefined ? before.description : changes.description,
      monitorIds: changes.monitor_ids ?? before.monitorIds,
      allMonitors: changes.all_monitors ?? before.allMonitors,
      labelSelector: changes.label_selector ?? before.labelSelector,
      startsAt: changes.starts_at === undefined ? before.startsAt : new Date(changes.starts_at),
      endsAt: changes.ends_at === undefined ? before.endsAt : new Date(changes.ends_at),
      rrule: changes.rrule === undefined ? before.rrule : changes.rrule,
      timezone: changes.timezone ?? before.timezone,
      mode: changes.mode ?? before.mode,
    } satisfies Partial<WindowInsert>
    await assertValid(tx, who.orgId, merged)
    const rescheduled = ['starts_at', 'ends_at', 'rrule', 'timezone'].some((field) => field in changes)
    const cancelledAt = changes.state === 'cancelled' ? (before.cancelledAt ?? now) : changes.state === 'scheduled' ? null : before.cancelledAt
    let next: Occurrence | null = before.nextStartsAt && before.nextEndsAt ? { startsAt: before.nextStartsAt, endsAt: before.nextEndsAt } : null
    if (rescheduled || (before.cancelledAt !== null && cancelledAt === null)) next = occurrenceAfter(scheduleOf(merged), now)
    const changed = await updateWindow(tx, id, { ...merged, cancelledAt, nextStartsAt: next?.startsAt ?? null, nextEndsAt: next?.endsAt ?? null, updatedAt: now })
    const row = await reconcile(tx, changed, now, { retarget: true })
    await audit(tx, who, 'maintenance_window.updated', before, row, now)
    return row
  })
}

/** Deletes a window; one under way ends first, as if cancelled. */
export async function removeWindow (db: Database, who: Maintainer, id: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const before = await findWindow(tx, who.orgId, id, 'lock')
    if (!before) return false
    await reconcile(tx, await updateWindow(tx, id, { cancelledAt: before.cancelledAt ?? now }), now)
    await deleteWindow(tx, id)
    await audit(tx, who, 'maintenance_window.deleted', before, null, now)
    return true
  })
}

/** Begins an occurrence now, for `durationMinutes` or the first occurrence's length; one under way is given that end instead. */
export async function startWindow (db: Database, who: Maintainer, id: string, durationMinutes: number | undefined, now: Date): Promise<WindowRow | undefined> {
  return atomically(db, async (tx) => {
    const before = await findWindow(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    if (before.cancelledAt !== null) throw new WindowStateError('The window is cancelled: set its state to scheduled before starting it')
    const length = durationMinutes === undefined ? before.endsAt.getTime() - before.startsAt.getTime() : durationMinutes * 60_000
    const endsAt = new Date(now.getTime() + length)
    const row = await reconcile(tx, await updateWindow(tx, id, before.active ? { nextEndsAt: endsAt } : { nextStartsAt: now, nextEndsAt: endsAt }), now)
    await audit(tx, who, 'maintenance_window.started', before, row, now)
    return row
  })
}

/** Ends the occurrence under way now; the window's next one follows its rule. */
export async function endWindow (db: Database, who: Maintainer, id: string, now: Date): Promise<WindowRow | undefined> {
  return atomically(db, async (tx) => {
    const before = await findWindow(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    if (!before.active) throw new WindowStateError('The window is not under way: there is nothing to end')
    const row = await reconcile(tx, await updateWindow(tx, id, { nextEndsAt: now }), now)
    await audit(tx, who, 'maintenance_window.ended', before, row, now)
    return row
  })
}

/** Acts on every window edge due at `now`, one window per transaction; returns how many windows it changed. */
export async function actOnDueEdges (db: Database, now: Date): Promise<number> {
  let acted = 0
  while (await atomically(db, async (tx) => {
    const row = await lockDueWindow(tx, now)
    if (row) await reconcile(tx, row, now)
    return row !== undefined
  })) acted++
  return acted
}

/**
 * Makes the stored window true at `now`: an occurrence that ended stops (told, monitors out, the next one computed),
 * one that began starts (told, monitors in); one missed whole is passed over in silence. `retarget`: the window's
 * monitors or mode may have changed, so an active window's monitors are brought in line too.
 */
async function reconcile (tx: Database, row: WindowRow, now: Date, options: { retarget?: boolean } = {}): Promise<WindowRow> {
  let changed = options.retarget === true && row.active
  for (let step = 0; step < 1000; step++) {
    const occurrence = row.cancelledAt === null && row.nextStartsAt !== null && row.nextEndsAt !== null
      ? { startsAt: row.nextStartsAt, endsAt: row.nextEndsAt }
      : null
    const current = occurrence !== null && occurrence.startsAt <= now && now < occurrence.endsAt
    if (row.active !== current) {
      row = await updateWindow(tx, row.id, { active: current })
      await tellWindow(tx, row, current ? 'maintenance.started' : 'maintenance.ended', now)
      changed = true
    } else if (occurrence !== null && occurrence.endsAt <= now) {
      const next = occurrenceAfter(scheduleOf(row), now, occurrence.startsAt)
      row = await updateWindow(tx, row.id, { nextStartsAt: next?.startsAt ?? null, nextEndsAt: next?.endsAt ?? null })
    } else {
      break
    }
  }
  if (changed) await bringMonitorsInLine(tx, row.orgId, now)
  return row
}

async function tellWindow (tx: Database, row: WindowRow, type: 'maintenance.started' | 'maintenance.ended', now: Date): Promise<void> {
  await enqueueEvent(tx, {
    orgId: row.orgId,
    monitorId: null,
    incidentId: null,
    at: now,
    wholeOrganization: true,
    payload: { type, timestamp: now.toISOString(), data: { monitor: null, incident: null, check: null, maintenance_window: presentWindow(row) } },
  })
}

async function audit (tx: Database, who: Maintainer, action: AuditAction, before: WindowRow | null, after: WindowRow | null, now: Date): Promise<void> {
  const entityId = (after ?? before)!.id
  await recordChange(tx, who.audit, {
    orgId: who.orgId,
    action,
    entityId,
    before: before && presentWindow(before),
    after: after && presentWindow(after),
    fields: action === 'maintenance_window.started' || action === 'maintenance_window.ended' ? ['state', 'next_starts_at', 'next_ends_at'] : [...AUDITED],
    at: now,
  })
}
