// The pauses table (src/db/schema.ts, written by the trigger monitors_record_pauses): at most one open pause per
// monitor, and a resume finds it by one probe of that index even where the planner's statistics are stale (they
// say the table is empty while thousands of monitors are paused), as when many paused monitors are resumed at once.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { createUser } from '../../src/repositories/users.ts'
import { createTestDatabase } from '../helper.ts'
import { describePlan, explain } from '../support/explain.ts'

const PAUSED = 5000

t.test('a resume closes the monitor\'s one open pause through its index, whatever the statistics say', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'pauses@example.com')
  // Statistics of an empty table, then thousands of monitors created paused (one open pause each, by the trigger).
  await db.execute(sql`analyze monitor_pauses`)
  await db.execute(sql`insert into monitors (org_id, name, url, is_active, status)
    select ${user.id}, 'm' || i, 'https://example.com/' || i, false, 'paused' from generate_series(1, ${PAUSED}) i`)
  const [{ open }] = rowsOf<{ open: number }>(await db.execute(sql`select count(*)::int as open from monitor_pauses where resumed_at is null`))
  t.equal(open, PAUSED, 'one open pause per monitor created paused')
  const [{ id }] = rowsOf<{ id: string }>(await db.execute(sql`select id from monitors order by id limit 1 offset ${PAUSED / 2}`))

  // The trigger's own resume statement, read from the database, planned as the trigger plans it on its first run.
  const [{ source }] = rowsOf<{ source: string }>(await db.execute(sql`select prosrc as source from pg_proc where proname = 'monitors_record_pauses'`))
  const resume = /UPDATE monitor_pauses [^;]+/.exec(source)?.[0] ?? ''
  t.match(resume, /WHERE monitor_id = NEW\.id AND resumed_at IS NULL/, `the trigger closes the monitor's open pause: ${resume}`)
  const nodes = await explain(handle, { sql: resume.replaceAll('NEW.id', '$1').replaceAll('NEW.updated_at', 'now()'), params: [id] })
  const described = describePlan(nodes)
  const scan = nodes.find((n) => n['Node Type'] !== 'ModifyTable' && (n['Relation Name'] === 'monitor_pauses' || n['Index Name']?.startsWith('monitor_pauses')))
  t.equal(scan?.['Node Type'], 'Index Scan', `an index scan: ${described}`)
  t.equal(scan?.['Index Name'], 'monitor_pauses_one_open_idx', `of the open pauses' index: ${described}`)
  t.notOk(nodes.some((n) => /Bitmap|Seq Scan/.test(n['Node Type'])), `no bitmap of every open pause, no sequential scan: ${described}`)

  // Resumed together, as the bench's 30,000-monitor phase does: every pause closed, none open.
  await db.execute(sql`update monitors set is_active = true, status = 'pending', updated_at = now() where org_id = ${user.id}`)
  const [after] = rowsOf<{ open: number, closed: number }>(await db.execute(sql`
    select count(*) filter (where resumed_at is null)::int as open, count(*) filter (where resumed_at is not null)::int as closed from monitor_pauses`))
  t.same(after, { open: 0, closed: PAUSED }, 'every pause closed by the resume')
})

t.test('a monitor has at most one open pause', async (t) => {
  const { handle } = await createTestDatabase(t)
  const { db } = handle
  const user = await createUser(db, 'one-open@example.com')
  const [{ id }] = rowsOf<{ id: string }>(await db.execute(sql`insert into monitors (org_id, name, url, is_active, status)
    values (${user.id}, 'paused', 'https://example.com/', false, 'paused') returning id`))
  // Paused, resumed, paused again: two pauses, one of them open.
  await db.execute(sql`update monitors set is_active = true, updated_at = now() + interval '1 minute' where id = ${id}`)
  await db.execute(sql`update monitors set is_active = false, updated_at = now() + interval '2 minutes' where id = ${id}`)
  const rows = rowsOf<{ open: boolean }>(await db.execute(sql`select resumed_at is null as open from monitor_pauses where monitor_id = ${id} order by paused_at`))
  t.same(rows.map((r) => r.open), [false, true])
  const refused = await db.execute(sql`insert into monitor_pauses (monitor_id, paused_at) values (${id}, now() + interval '3 minutes')`)
    .then(() => undefined, (err: Error) => String((err.cause as Error | undefined)?.message ?? err.message))
  t.match(refused, /monitor_pauses_one_open_idx/, 'a second open pause is refused by the index')
})
