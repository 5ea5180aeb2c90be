// Seeds a benchmark database in SQL (generate_series): users with keys, monitors, and check history.
import { generateApiKey, hashApiKey, keyPrefix } from '../src/auth/keys.ts'

export interface Scale {
  name: string
  users: number
  monitors: number
  /** Monitors of the first user, the one whose list is read. */
  bigUserMonitors: number
  checksPerMonitor: number
  /** The history spans this many days, ending at seed time. */
  days: number
}

/** What the benchmarks need to know about the seeded data. */
export interface Seeded {
  /** The user whose list and monitors are read, with a key. */
  readUserId: string
  readKey: string
  /** The id of readKey, which the reads' statements check (src/repositories/owner.ts). */
  readKeyId: string
  /** A user of its own for POST /monitors, so creates do not grow the list that is read. */
  writeUserId: string
  writeKey: string
  writeKeyId: string
  /** The read user's monitors, each with checksPerMonitor checks. */
  monitorIds: string[]
}

/** The two drivers the benchmark seeds through: postgres.js (PostgreSQL) and PGlite. */
export interface SqlRunner {
  exec: (text: string) => Promise<void>
  query: (text: string, params?: unknown[]) => Promise<Record<string, any>[]>
}

const int = (n: number) => String(Math.trunc(n))

/** Users, one write key for the read user and one for the write user, and the monitors. */
async function seedUsersAndMonitors (db: SqlRunner, scale: Scale, now: Date): Promise<Omit<Seeded, 'monitorIds'>> {
  const nowSql = `'${now.toISOString()}'::timestamptz`
  await db.exec(`
    insert into users (email, created_at)
      select format('bench-%s@example.com', lpad(i::text, 4, '0')), ${nowSql} - interval '60 days'
      from generate_series(0, ${int(scale.users - 1)}) i;
    create table bench_users as
      select id, (row_number() over (order by email))::int - 1 as idx from users;
    -- Monitor i belongs to user 0 for i < bigUserMonitors, the others are dealt round the remaining users.
    insert into monitors (org_id, name, url, interval_minutes, status, is_active, consecutive_successes,
                          last_checked_at, next_check_at, created_at, updated_at)
      select u.id, 'Monitor ' || i, 'http://127.0.0.1:9/m' || i, 1, 'up', true, 1,
             ${nowSql}, ${nowSql} + interval '1 day',
             ${nowSql} - interval '45 days' + i * interval '1 second', ${nowSql} - interval '45 days' + i * interval '1 second'
      from generate_series(0, ${int(scale.monitors - 1)}) i
      join bench_users u on u.idx = case when i < ${int(scale.bigUserMonitors)} then 0
                                         else 1 + (i - ${int(scale.bigUserMonitors)}) % ${int(Math.max(1, scale.users - 1))} end;
    create table bench_monitors as
      select id, org_id, (row_number() over (order by created_at))::int - 1 as idx from monitors;
  `)
  const [read] = await db.query('select id from bench_users where idx = 0')
  const [write] = await db.query(`select id from bench_users where idx = ${int(scale.users - 1)}`)
  const keys: Array<{ key: string, id: string }> = []
  for (const userId of [read.id, write.id]) {
    const key = generateApiKey()
    const [row] = await db.query('insert into api_keys (user_id, org_id, name, key_hash, prefix, scope) values ($1, $1, $2, $3, $4, $5) returning id',
      [userId, 'bench', hashApiKey(key), keyPrefix(key), 'write'])
    keys.push({ key, id: row.id })
  }
  return { readUserId: read.id, readKey: keys[0].key, readKeyId: keys[0].id, writeUserId: write.id, writeKey: keys[1].key, writeKeyId: keys[1].id }
}

/**
 * Check rows for time slots [from, to) of every monitor, inserted slot by slot as a real checker would
 * write them, so a monitor's newest 100 checks lie on many heap pages (not side by side).
 */
function checksSql (scale: Scale, now: Date, from: number, to: number): string {
  const stepMs = scale.days * 86_400_000 / scale.checksPerMonitor
  // Monitor idx is offset by a fraction of a step, so the fleet's checks are spread in time.
  return `
    insert into checks (monitor_id, is_up, status_code, response_time_ms, checked_at, error_message)
      select id, up, case when up then 200 when k < 0.5 then 503 else null end,
             20 + (k * 300)::int,
             '${now.toISOString()}'::timestamptz
               - ((${int(scale.checksPerMonitor - 1)} - g)::bigint * ${int(stepMs)} + idx::bigint * ${int(stepMs)} / ${int(scale.monitors)}) * interval '1 millisecond',
             case when up then null when k < 0.5 then 'expected status 200, got 503' else 'timeout after 10000 ms' end
      from (select m.id, m.idx, g, random() > 0.02 as up, random() as k
            from generate_series(${int(from)}, ${int(to - 1)}) g cross join bench_monitors m) s
      order by g`
}

/** Seeds PostgreSQL: constraints and indexes of `checks` are dropped for the load and rebuilt after it. */
export async function seedPostgres (
  connections: SqlRunner[], scale: Scale, now: Date, log: (line: string) => void
): Promise<Seeded> {
  const [db] = connections
  for (const c of connections) await c.exec("set synchronous_commit = off; set maintenance_work_mem = '512MB'")
  const seeded = await seedUsersAndMonitors(db, scale, now)
  const constraints = await db.query(`select conname, pg_get_constraintdef(oid) as def, contype from pg_constraint
    where conrelid = 'checks'::regclass order by contype desc`)
  const indexes = await db.query(`select indexname, indexdef from pg_indexes where tablename = 'checks'
    and indexname not in (select conname from pg_constraint where conrelid = 'checks'::regclass)`)
  for (const c of constraints.filter((c) => c.contype === 'f')) await db.exec(`alter table checks drop constraint "${c.conname}"`)
  for (const c of constraints.filter((c) => c.contype !== 'f')) await db.exec(`alter table checks drop constraint "${c.conname}"`)
  for (const i of indexes) await db.exec(`drop index "${i.indexname}"`)

  let started = Date.now()
  const batch = Math.max(1, Math.floor(100_000 / scale.monitors))
  const slots: Array<[number, number]> = []
  for (let g = 0; g < scale.checksPerMonitor; g += batch) slots.push([g, Math.min(scale.checksPerMonitor, g + batch)])
  let done = 0
  const total = scale.checksPerMonitor * scale.monitors
  // The connections take batches from one queue: PostgreSQL runs each INSERT on one core.
  await Promise.all(connections.map(async (c) => {
    for (let next = slots.shift(); next; next = slots.shift()) {
      await c.exec(checksSql(scale, now, next[0], next[1]))
      const before = done
      done += (next[1] - next[0]) * scale.monitors
      if (Math.floor(done / total * 5) > Math.floor(before / total * 5)) log(`  ${(done / 1e6).toFixed(1)}M check rows (${((Date.now() - started) / 1000).toFixed(0)} s)`)
    }
  }))
  log(`  rows loaded in ${((Date.now() - started) / 1000).toFixed(0)} s; building indexes and constraints`)
  started = Date.now()
  // Primary key and unique constraints first (they are indexes), then the other indexes, then the foreign keys.
  for (const c of constraints.filter((c) => c.contype !== 'f')) await db.exec(`alter table checks add constraint "${c.conname}" ${c.def}`)
  await Promise.all(indexes.map((i, n) => connections[n % connections.length].exec(i.indexdef)))
  for (const c of constraints.filter((c) => c.contype === 'f')) await db.exec(`alter table checks add constraint "${c.conname}" ${c.def}`)
  log(`  indexes and constraints in ${((Date.now() - started) / 1000).toFixed(0)} s; vacuum analyze`)
  started = Date.now()
  await db.exec('vacuum (analyze) checks')
  await db.exec('analyze')
  log(`  vacuum analyze in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return { ...seeded, monitorIds: await readMonitorIds(db, seeded.readUserId) }
}

/** Seeds PGlite (small scales only: one connection, indexes kept). */
export async function seedPglite (db: SqlRunner, scale: Scale, now: Date): Promise<Seeded> {
  const seeded = await seedUsersAndMonitors(db, scale, now)
  const batch = Math.max(1, Math.floor(50_000 / scale.monitors))
  for (let g = 0; g < scale.checksPerMonitor; g += batch) {
    await db.exec(checksSql(scale, now, g, Math.min(scale.checksPerMonitor, g + batch)))
  }
  await db.exec('vacuum analyze')
  return { ...seeded, monitorIds: await readMonitorIds(db, seeded.readUserId) }
}

async function readMonitorIds (db: SqlRunner, userId: string): Promise<string[]> {
  const rows = await db.query('select id from monitors where org_id = $1 order by created_at', [userId])
  return rows.map((r) => r.id as string)
}

/** The user whose list GET /monitors?limit=50 pages, and the key it reads with. */
export interface PageUser { key: string, keyId: string, monitors: number }

const PAGE_USER_EMAIL = 'bench-page@example.com'

/**
 * A user with `monitors` monitors of its own (up, due a day later, so no checker takes them; created a second
 * apart), made again on every run (its rows go with the user): not in bench_monitors, whose count the other
 * parts rely on; the checker's part removes them anyway.
 */
export async function seedPageUser (db: SqlRunner, monitors: number, now: Date): Promise<PageUser> {
  const nowSql = `'${now.toISOString()}'::timestamptz`
  await db.query('delete from users where email = $1', [PAGE_USER_EMAIL])
  const [user] = await db.query(`insert into users (email, created_at) values ($1, ${nowSql} - interval '60 days') returning id`, [PAGE_USER_EMAIL])
  await db.query(`insert into monitors (org_id, name, url, interval_minutes, status, is_active, consecutive_successes,
                                        last_checked_at, next_check_at, created_at, updated_at)
    select $1, 'Page ' || i, 'http://127.0.0.1:9/p' || i, 1, 'up', true, 1, ${nowSql}, ${nowSql} + interval '1 day',
           ${nowSql} - interval '45 days' + i * interval '1 second', ${nowSql} - interval '45 days' + i * interval '1 second'
    from generate_series(0, ${int(monitors - 1)}) i`, [user.id])
  await db.exec('analyze monitors')
  const key = generateApiKey()
  const [row] = await db.query('insert into api_keys (user_id, org_id, name, key_hash, prefix, scope) values ($1, $1, $2, $3, $4, $5) returning id',
    [user.id, 'bench-page', hashApiKey(key), keyPrefix(key), 'read'])
  return { key, keyId: row.id, monitors }
}
