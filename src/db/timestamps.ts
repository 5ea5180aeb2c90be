// The API's time format (toISOString) from a timestamptz as the database sends it.

// PostgreSQL's text of a time in UTC, which it sends when the session's TimeZone is UTC (the default of
// PGlite and of most servers): "2026-11-21 10:00:00.123456+00", the fraction cut short of trailing zeros.
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/

/** `new Date(value).toISOString()` without parsing a date for UTC text: reads convert every time of every row. */
export function isoTime (value: string | Date): string {
  if (typeof value === 'string') {
    const match = UTC_TEXT.exec(value)
    if (match) return `${match[1]}T${match[2]}.${match[3] === undefined ? '000' : (match[3] + '00').slice(0, 3)}Z`
  }
  return new Date(value).toISOString()
}
