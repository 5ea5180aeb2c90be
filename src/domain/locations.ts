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

export const LOCATION_TIMING = {
  /** A location is online while its last sign of life is at most this old. */
  onlineWithinMs: 60_000,
  /** How often a checker process tells that its built-in location is alive: well within the online window. */
  builtinRefreshMs: 15_000,
} as const
