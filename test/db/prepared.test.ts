// preparedSql: built once per database, run on the driver with its placeholders' values, times as text.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { preparedSql } from '../../src/db/prepared.ts'
import { createTestDatabase } from '../helper.ts'

t.test('fills placeholders by name, in any order and repeated; the same statement per database', async (t) => {
  const { handle } = await createTestDatabase(t)
  let builds = 0
  const statement = preparedSql('prepared_test', () => {
    builds++
    return sql`select ${sql.placeholder('b')}::int as b, ${sql.placeholder('a')}::text as a, ${sql.placeholder('b')}::int + 1 as c,
      ${sql.placeholder('at')}::timestamptz as at`
  })
  t.equal(statement(handle.db), statement(handle.db), 'built once per database')
  t.equal(builds, 1)
  for (const [a, b] of [['x', 1], ['y', 41]] as const) {
    const [row] = rowsOf(await statement(handle.db).execute({ a, b, at: '2026-11-21T10:00:00.5Z' }))
    t.same(row, { b, a, c: b + 1, at: '2026-11-21 10:00:00.5+00' }, 'values by name; times as the database\'s text')
  }
})

t.test('a value that is not a placeholder is refused when the statement is built', async (t) => {
  const { handle } = await createTestDatabase(t)
  const statement = preparedSql('inline_value', () => sql`select ${42}::int as n`)
  t.throws(() => statement(handle.db), /inline_value: every value must be a sql.placeholder\(\)/)
})
