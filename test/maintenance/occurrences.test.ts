// Recurring windows across DST (api-contract section 14): over two years in five zones (one with a 30-minute shift),
// every occurrence keeps the first one's wall-clock time, and none is skipped or doubled. The expected days and
// wall-clock times are worked out here with Intl, independently of rrule-temporal and Temporal.
import t from 'tap'
import fc from 'fast-check'
import { upcomingOccurrences } from '../../src/maintenance/occurrences.ts'

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago', 'Pacific/Chatham']
const DAY_MS = 86_400_000
const TWO_YEARS = 731

/** The wall-clock date (YYYY-MM-DD) and time (HH:MM) of an instant in a zone. */
function wall (at: Date, zone: string): { date: string, time: string } {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-CA', {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  }).formatToParts(at).map((p) => [p.type, p.value]))
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` }
}

/** Whether the wall-clock time exists on that date in the zone: some instant within a day of it shows it. */
function exists (date: string, time: string, zone: string): boolean {
  const naive = new Date(`${date}T${time}:00Z`).getTime()
  for (let offset = -15 * 60; offset <= 15 * 60; offset += 15) {
    const shown = wall(new Date(naive - offset * 60_000), zone)
    if (shown.date === date && shown.time === time) return true
  }
  return false
}

/** The day two years less two days after `date`: every expected day before it must be seen. */
const lastDay = (date: string) => new Date(new Date(`${date}T00:00:00Z`).getTime() + (TWO_YEARS - 2) * DAY_MS).toISOString().slice(0, 10)

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay()
const CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA']

/** The first instant of `date` `time` in the zone (searching offsets), for the first occurrence. */
function firstInstant (date: string, time: string, zone: string): Date | null {
  const naive = new Date(`${date}T${time}:00Z`).getTime()
  for (let offset = 15 * 60; offset >= -15 * 60; offset -= 15) {
    const at = new Date(naive - offset * 60_000)
    const shown = wall(at, zone)
    if (shown.date === date && shown.time === time) return at
  }
  return null
}

t.test('every occurrence keeps its wall-clock time, none skipped or doubled, over two years of DST changes', async (t) => {
  const rules = fc.oneof(
    fc.constant({ rrule: 'FREQ=DAILY', days: (_: string) => true }),
    fc.subarray([1, 2, 3, 4, 5, 6, 0], { minLength: 1 }).map((days) => ({
      rrule: `FREQ=WEEKLY;BYDAY=${days.map((d) => CODES[d]).join(',')}`,
      days: (date: string) => days.includes(weekday(date)),
    })),
    fc.integer({ min: 1, max: 28 }).map((day) => ({ rrule: `FREQ=MONTHLY;BYMONTHDAY=${day}`, days: (date: string) => Number(date.slice(8)) === day }))
  )
  await fc.assert(fc.property(
    fc.constantFrom(...ZONES), rules, fc.integer({ min: 0, max: 364 }), fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 16 }),
    (zone, rule, dayOffset, quarter, quarters) => {
      const firstDate = new Date(Date.UTC(2026, 0, 1) + dayOffset * DAY_MS).toISOString().slice(0, 10)
      const time = `${String(Math.floor(quarter / 4)).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`
      const startsAt = firstInstant(firstDate, time, zone)
      fc.pre(startsAt !== null && rule.days(firstDate))
      const endsAt = new Date(startsAt!.getTime() + quarters * 15 * 60_000)
      const occurrences = upcomingOccurrences({ startsAt: startsAt!, endsAt, rrule: rule.rrule, timezone: zone }, startsAt!, 2000)
        .filter((o) => o.startsAt.getTime() < startsAt!.getTime() + TWO_YEARS * DAY_MS - DAY_MS)
      const expected: string[] = []
      for (let d = 0; d < TWO_YEARS + 1; d++) {
        const date = new Date(new Date(`${firstDate}T00:00:00Z`).getTime() + d * DAY_MS).toISOString().slice(0, 10)
        if (rule.days(date)) expected.push(date)
      }
      const seen = occurrences.map((o) => wall(o.startsAt, zone))
      t.same(seen.map((s) => s.date), expected.slice(0, seen.length), `${zone} ${rule.rrule} from ${firstDate} ${time}: the expected days, in order, once each`)
      t.ok(seen.length >= expected.filter((date) => date < lastDay(firstDate)).length, 'none missing')
      for (const [i, s] of seen.entries()) {
        if (s.time !== time && exists(s.date, time, zone)) t.fail(`${zone} ${s.date}: ${s.time}, not ${time}`)
        if (occurrences[i].endsAt <= occurrences[i].startsAt) t.fail(`${zone} ${s.date}: an occurrence that ends as it starts`)
      }
    }
  ), { numRuns: 60, seed: 20261130 })
})

t.test('a monthly rule by ordinal weekday and a repeated hour keep their wall-clock time', async (t) => {
  // The first Sunday of each month, 01:30 in New York: 1 Nov 2026 01:30 happens twice; the first is kept.
  const startsAt = new Date('2026-10-04T05:30:00Z')
  const list = upcomingOccurrences({ startsAt, endsAt: new Date('2026-10-04T06:30:00Z'), rrule: 'FREQ=MONTHLY;BYDAY=1SU;COUNT=4', timezone: 'America/New_York' }, startsAt, 10)
  t.same(list.map((o) => o.startsAt.toISOString()), ['2026-10-04T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-12-06T06:30:00.000Z', '2027-01-03T06:30:00.000Z'])
  t.equal(list[1].endsAt.toISOString(), '2026-11-01T07:30:00.000Z', 'ends at 02:30 standard time: the wall-clock end')
  // Lord Howe moves by 30 minutes: 02:00 to 02:30 does not exist on 4 Oct 2026.
  const howe = new Date('2026-10-02T15:45:00Z')
  const shifted = upcomingOccurrences({ startsAt: howe, endsAt: new Date(howe.getTime() + 3_600_000), rrule: 'FREQ=DAILY;COUNT=4', timezone: 'Australia/Lord_Howe' }, howe, 10)
  t.same(shifted.map((o) => wall(o.startsAt, 'Australia/Lord_Howe').time), ['02:15', '02:45', '02:15', '02:15'], 'the skipped 02:15 moves forward by the 30-minute gap')
})
