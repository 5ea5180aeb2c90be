// The rules of locations that more than one layer reads: the shape of a code (the API, the tables, CHECKER_LOCATION)
// and the times that decide whether a location is online.
import { SLUG_PATTERN } from './slug.ts'

/** A location's code: a slug of 2-32 characters, unique among the built-in locations and each organization's own. */
export const LOCATION_CODE = {
  pattern: SLUG_PATTERN,
  minLength: 2,
  maxLength: 32,
  rule: '2-32 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
} as const

export const isLocationCode = (value: string): boolean =>
  value.length >= LOCATION_CODE.minLength && value.length <= LOCATION_CODE.maxLength && new RegExp(LOCATION_CODE.pattern).test(value)

/** The built-in location of a checker process started without CHECKER_LOCATION. */
export const DEFAULT_LOCATION = 'default'

export const LOCATION_TIMING = {
  /** A location is online while its last sign of life is at most this old. */
  onlineWithinMs: 60_000,
  /** How often a checker process tells that its built-in location is alive: well within the online window. */
  builtinRefreshMs: 15_000,
} as const

/** Whether a location last seen at `lastSeenAt` is online at `now`. */
export const isLocationOnline = (lastSeenAt: Date | null, now: Date): boolean =>
  lastSeenAt !== null && now.getTime() - lastSeenAt.getTime() <= LOCATION_TIMING.onlineWithinMs

/** Most locations a monitor is checked from. */
export const MAX_MONITOR_LOCATIONS = 16

export const LOCATION_STATE_STATUSES = ['pending', 'up', 'degraded', 'down'] as const

/** Whether a monitor's fresh locations make its quorum: `pending` until they first did (again after a change of its locations). */
export const LOCATION_COVERAGES = ['pending', 'ok', 'lost'] as const
export type LocationCoverage = typeof LOCATION_COVERAGES[number]

/** A location's latest check of a monitor, as the monitor's `location_states` shows it; `pending` before its first. */
export interface LocationStateRecord {
  location: string
  status: typeof LOCATION_STATE_STATUSES[number]
  last_checked_at: string | null
  error_message: string | null
}

/** The states of `codes`, in their order: the ones `previous` has kept, `pending` for the new ones. */
export function locationStatesFor (codes: readonly string[], previous: readonly LocationStateRecord[]): LocationStateRecord[] {
  const kept = new Map(previous.map((state) => [state.location, state]))
  return codes.map((code) => kept.get(code) ?? { location: code, status: 'pending', last_checked_at: null, error_message: null })
}
