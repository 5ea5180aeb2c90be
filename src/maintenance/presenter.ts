// A maintenance window row as the API shows it, its state derived from the row.
import type { MaintenanceState } from '../domain/vocabulary.ts'
import type { WindowRow } from './repository.ts'
import type { MaintenanceWindow } from './schema.ts'

function stateOf (row: Pick<WindowRow, 'cancelledAt' | 'nextStartsAt' | 'active'>): MaintenanceState {
  if (row.cancelledAt !== null) return 'cancelled'
  if (row.active) return 'active'
  return row.nextStartsAt === null ? 'completed' : 'scheduled'
}

export function presentWindow (row: WindowRow): MaintenanceWindow {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    monitor_ids: row.monitorIds,
    all_monitors: row.allMonitors,
    label_selector: row.labelSelector,
    starts_at: row.startsAt.toISOString(),
    ends_at: row.endsAt.toISOString(),
    rrule: row.rrule,
    timezone: row.timezone,
    mode: row.mode,
    state: stateOf(row),
    next_starts_at: row.cancelledAt === null ? row.nextStartsAt?.toISOString() ?? null : null,
    next_ends_at: row.cancelledAt === null ? row.nextEndsAt?.toISOString() ?? null : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}
