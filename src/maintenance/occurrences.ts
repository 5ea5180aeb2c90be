// The occurrences of a maintenance window (api-contract section 14). rrule-temporal expands the rule over wall-clock
// times (a floating UTC frame), and Temporal places each in the window's zone, so every occurrence keeps the first
// one's wall-clock times: a time a DST change skips moves forward by the gap, a time it repeats is its first instant.
import { RRuleTemporal } from 'rrule-temporal'
import { Temporal } from 'temporal-polyfill'

export interface Schedule { startsAt: Date, endsAt: Date, rrule: string | null, timezone: string }
export interface Occurrence { startsAt: Date, endsAt: Date }

const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY']
const WEEKDAY = /^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$/
const UNTIL = /^(\d{8})(T\d{6}Z)?$/
/** How many occurrences a search steps over at most: ten years of a daily rule. */
const MAX_STEPS = 3660

/** Whether `name` is an IANA time zone this server knows. */
export function isTimeZone (name: string): boolean {
  try {
    Temporal.Now.zonedDateTimeISO(name)
    return true
  } catch {
    return false
  }
}

/** What is wrong with a rule of the supported RFC 5545 subset, in a sentence; null when nothing is. */
export function rruleProblem (rrule: string): string | null {
  const parts = new Map<string, string>()
  for (const part of rrule.split(';')) {
    const [name, value, ...rest] = part.split('=')
    if (value === undefined || rest.length > 0 || value === '') return `"${part}" is not NAME=VALUE`
    if (parts.has(name)) return `${name} is given twice`
    parts.set(name, value)
  }
  for (const name of parts.keys()) {
    if (!['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'UNTIL', 'COUNT'].includes(name)) {
      return `${name} is not supported: use FREQ, INTERVAL, BYDAY, BYMONTHDAY, UNTIL and COUNT`
    }
  }
  const freq = parts.get('FREQ')
  if (freq === undefined || !FREQS.includes(freq)) return 'FREQ must be DAILY, WEEKLY or MONTHLY'
  const integer = (name: string, min: number, max: number) => {
    const value = parts.get(name)
    return value === undefined || (/^\d+$/.test(value) && Number(value) >= min && Number(value) <= max) ? null : `${name} must be an integer from ${min} to ${max}`
  }
  const problem = integer('INTERVAL', 1, 1000) ?? integer('COUNT', 1, 10000)
  if (problem) return problem
  for (const day of parts.get('BYDAY')?.split(',') ?? []) {
    const match = WEEKDAY.exec(day)
    if (!match) return `BYDAY "${day}" is not a weekday (MO..SU), with an ordinal from -5 to 5 such as 1SU or -1FR for a monthly rule`
    if (match[1] !== undefined && freq !== 'MONTHLY') return `BYDAY "${day}": an ordinal needs FREQ=MONTHLY`
  }
  for (const day of parts.get('BYMONTHDAY')?.split(',') ?? []) {
    if (!/^-?\d{1,2}$/.test(day) || Number(day) === 0 || Math.abs(Number(day)) > 31) return `BYMONTHDAY "${day}" must be 1 to 31 or -31 to -1`
    if (freq !== 'MONTHLY') return 'BYMONTHDAY needs FREQ=MONTHLY'
  }
  const until = parts.get('UNTIL')
  if (until !== undefined && !UNTIL.test(until)) return 'UNTIL must be a UTC time (20270101T000000Z) or a date (20270101)'
  if (until !== undefined && parts.has('COUNT')) return 'UNTIL and COUNT cannot both be given'
  try {
    new RRuleTemporal({ rruleString: rrule, dtstart: Temporal.ZonedDateTime.from('2026-01-01T00:00:00[UTC]') }).next()
  } catch (err) {
    return `it cannot be expanded: ${(err as Error).message}`
  }
  return null
}

const wallOf = (at: Date, zone: string) => Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(zone).toPlainDateTime()
const instantOf = (wall: Temporal.PlainDateTime, zone: string) => new Date(wall.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds)
/** A wall-clock time in the floating frame the rule is expanded in. */
const floating = (wall: Temporal.PlainDateTime) => wall.toZonedDateTime('UTC')

/** The rule with its UTC `UNTIL` moved into the floating frame: the wall-clock time it is in the window's zone. */
function floatingRule (rrule: string, zone: string): string {
  return rrule.replace(/UNTIL=(\d{8}T\d{6})Z/, (_, time: string) => {
    const wall = wallOf(new Date(Temporal.PlainDateTime.from(time).toZonedDateTime('UTC').epochMilliseconds), zone)
    return `UNTIL=${wall.toString({ smallestUnit: 'second' }).replace(/[-:]/g, '')}Z`
  })
}

/** Steps through a window's occurrences in order, from its first. */
function occurrences (schedule: Schedule) {
  const zone = schedule.timezone
  const first: Occurrence = { startsAt: schedule.startsAt, endsAt: schedule.endsAt }
  if (schedule.rrule === null) return { first, after: (_: Occurrence) => null, near: (_: Date) => first }
  const firstWall = wallOf(schedule.startsAt, zone)
  const length = firstWall.until(wallOf(schedule.endsAt, zone))
  const exactLength = schedule.endsAt.getTime() - schedule.startsAt.getTime()
  const rule = new RRuleTemporal({ rruleString: floatingRule(schedule.rrule, zone), dtstart: floating(firstWall) })
  const occurrenceAt = (next: Temporal.ZonedDateTime | null): Occurrence | null => {
    if (next === null) return null
    const wall = next.toPlainDateTime()
    const startsAt = instantOf(wall, zone)
    const endsAt = instantOf(wall.add(length), zone)
    // A start moved forward over a gap can meet its end: the occurrence then lasts as long as the first.
    return { startsAt, endsAt: endsAt > startsAt ? endsAt : new Date(startsAt.getTime() + exactLength) }
  }
  return {
    first,
    /** The occurrence after `occurrence`, null when the rule has none left. */
    after: (occurrence: Occurrence) => occurrenceAt(rule.next(floating(wallOf(occurrence.startsAt, zone)))),
    /** An occurrence that starts early enough for none that ends after `at` to come before it (the first, if none). */
    near: (at: Date): Occurrence | null => {
      const from = wallOf(at, zone).subtract(length).subtract({ days: 2 })
      if (Temporal.PlainDateTime.compare(from, firstWall) <= 0) return first
      return occurrenceAt(rule.next(floating(from), true))
    },
  }
}

/** The window's first occurrence that ends after `at` and starts after `startsAfter` (when given); null when none is left. */
export function occurrenceAfter (schedule: Schedule, at: Date, startsAfter?: Date): Occurrence | null {
  const { after, near } = occurrences(schedule)
  let occurrence = near(startsAfter !== undefined && startsAfter > at ? startsAfter : at)
  for (let step = 0; occurrence !== null && step < MAX_STEPS; step++) {
    if (occurrence.endsAt > at && (startsAfter === undefined || occurrence.startsAt > startsAfter)) return occurrence
    occurrence = after(occurrence)
  }
  return null
}

/** Up to `limit` occurrences that end after `from`, in order: the dashboard's calendar and the property tests. */
export function upcomingOccurrences (schedule: Schedule, from: Date, limit: number): Occurrence[] {
  const { after } = occurrences(schedule)
  const list: Occurrence[] = []
  let occurrence = occurrenceAfter(schedule, from)
  while (occurrence !== null && list.length < limit) {
    list.push(occurrence)
    occurrence = after(occurrence)
  }
  return list
}
