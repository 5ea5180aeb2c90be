// isoTime: the same text as new Date(value).toISOString() for every form the database sends, and more.
import t from 'tap'
import fc from 'fast-check'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { isoTime } from '../../src/db/timestamps.ts'
import { createTestDatabase } from '../helper.ts'

t.test('equals toISOString for PostgreSQL text in UTC, trimmed fractions, other zones and Dates', async (t) => {
  for (const text of [
    '2026-11-21 10:00:00+00', '2026-11-21 10:00:00.5+00', '2026-11-21 10:00:00.12+00', '2026-11-21 10:00:00.123+00',
    '2026-11-21 10:00:00.1239+00', '2026-11-21 10:00:00.999999+00', '2026-11-21 10:00:00.000001+00',
    '2026-11-21 10:00:00.123456+01', '2026-11-21 10:00:00-05:30', '2026-11-21T10:00:00.123Z', '1999-12-31 23:59:59.9999+00',
  ]) {
    t.equal(isoTime(text), new Date(text).toISOString(), text)
  }
  const date = new Date('2026-11-21T10:00:00.123Z')
  t.equal(isoTime(date), date.toISOString())
  fc.assert(fc.property(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.integer({ min: 0, max: 999 }), (d, micros) => {
      const fraction = `${String(d.getUTCMilliseconds()).padStart(3, '0')}${String(micros).padStart(3, '0')}`.replace(/0+$/, '')
      const text = d.toISOString().slice(0, 19).replace('T', ' ') + (fraction ? `.${fraction}` : '') + '+00'
      return isoTime(text) === new Date(text).toISOString()
    }), { numRuns: 2000 })
})

t.test('equals toISOString for what the database really sends', async (t) => {
  const { handle } = await createTestDatabase(t)
  const result = await handle.db.execute(sql`select x::timestamptz::text as text, x::timestamptz as value
    from unnest(array['2026-11-21 10:00:00+00', '2026-11-21 10:00:00.5+00', '2026-11-21 10:00:00.123456+00', now()::text]) x`)
  const rows = rowsOf<{ text: string, value: string | Date }>(result)
  t.equal(rows.length, 4)
  for (const row of rows) t.equal(isoTime(row.value), new Date(row.text).toISOString(), row.text)
})
