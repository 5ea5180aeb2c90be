// drizzle/0024_organizations.sql on a database populated at the schema before it (0023): every row of every table
// is still there with the same values, each user's rows now in the user's personal organization (which takes the
// user's id), and each user is that organization's owner. The old API key still lists the same monitors.
import t from 'tap'
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { buildApp } from '../../src/app.ts'
import { rowsOf, type DatabaseHandle } from '../../src/db/client.ts'
import { generateApiKey, hashApiKey, keyPrefix } from '../../src/auth/keys.ts'
import { createTestDatabase, request, tempDir, testConfig, type Teardown } from '../helper.ts'

const DRIZZLE = fileURLToPath(new URL('../../drizzle', import.meta.url))
const BEFORE = '0023_live_updates'
// Tables whose user_id became org_id; api_keys keeps its user_id and gains org_id, sessions a null org_id.
const RENAMED = ['monitors', 'notification_channels', 'notification_events', 'idempotency_keys']

/** A migrations folder that ends at `last`, as the release before this one shipped it. */
function folderUpTo (t: Teardown, last: string): string {
  const dir = tempDir(t, 'pingward-drizzle-')
  cpSync(DRIZZLE, dir, { recursive: true })
  const journalPath = join(dir, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'))
  const end = journal.entries.findIndex((e: { tag: string }) => e.tag === last)
  journal.entries = journal.entries.slice(0, end + 1)
  mkdirSync(join(dir, 'meta'), { recursive: true })
  writeFileSync(journalPath, JSON.stringify(journal))
  return dir
}

async function migrateWith (handle: DatabaseHandle, migrationsFolder: string): Promise<void> {
  if (handle.kind === 'pglite') {
    const { migrate } = await import('drizzle-orm/pglite/migrator')
    await migrate(handle.db as never, { migrationsFolder })
  } else {
    const { migrate } = await import('drizzle-orm/postgres-js/migrator')
    await migrate(handle.db as never, { migrationsFolder })
  }
}

const TABLES = [
  'users', 'sessions', 'setup_tokens', 'sign_in_attempts', 'idempotency_keys', 'api_keys', 'monitors', 'checks', 'incidents',
  'notification_channels', 'monitor_notification_channels', 'notification_events', 'notification_deliveries', 'monitor_pauses',
  'monitor_rollups', 'rollup_progress',
]

/** Every row of the table as JSON text, keyed so that row order does not matter. */
async function rowsOfTable (handle: DatabaseHandle, table: string): Promise<Array<Record<string, unknown>>> {
  const rows = rowsOf<{ row: Record<string, unknown> }>(await handle.db.execute(sql.raw(`select to_jsonb(x) as row from "${table}" x`)))
  return rows.map((r) => typeof r.row === 'string' ? JSON.parse(r.row) : r.row)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
}

/** Two users with a bit of everything, written as the schema before organizations had it. */
async function populate (handle: DatabaseHandle): Promise<Record<string, string>> {
  const keys: Record<string, string> = {}
  const exec = (text: string) => handle.db.execute(sql.raw(text))
  for (const who of ['ada', 'bob']) {
    const [{ id }] = rowsOf<{ id: string }>(await exec(`insert into users (email, password_hash) values ('${who}@example.com', 'scrypt$x') returning id`))
    const key = generateApiKey()
    keys[who] = key
    await exec(`insert into api_keys (user_id, name, key_hash, prefix, scope) values ('${id}', 'k', '${hashApiKey(key)}', '${keyPrefix(key)}', 'write')`)
    await exec(`insert into api_keys (user_id, name, key_hash, prefix, scope, expires_at) values ('${id}', 'r', '${hashApiKey(generateApiKey())}', 'sk_r', 'read', now() + interval '1 day')`)
    await exec(`insert into sessions (id, user_id, csrf_token, expires_at) values ('s-${who}', '${id}', 'c', now() + interval '1 day')`)
    await exec(`insert into setup_tokens (id, user_id, expires_at) values ('t-${who}', '${id}', now() + interval '1 day')`)
    await exec(`insert into idempotency_keys (user_id, key, request_hash, response) values ('${id}', 'retry-1', 'h', '{"status":201}')`)
    const [site] = rowsOf<{ id: string }>(await exec(`insert into monitors (user_id, name, url, request_headers, secret_headers)
      values ('${id}', '${who} site', 'https://${who}.example.com', '{"x-token":"secret"}', '["x-token"]') returning id`))
    await exec(`insert into monitors (user_id, name, monitor_type, ping_token, grace_minutes) values ('${id}', '${who} beat', 'heartbeat', 'tok-${who}', 5)`)
    await exec(`insert into monitors (user_id, name, url, deleted_at) values ('${id}', '${who} gone', 'https://gone.example.com', now())`)
    await exec(`insert into checks (monitor_id, is_up, status_code, response_time_ms, checked_at) values ('${site.id}', false, 500, 12, now())`)
    const [incident] = rowsOf<{ id: string }>(await exec(`insert into incidents (monitor_id, cause, status_code, started_at) values ('${site.id}', 'got 500', 500, now()) returning id`))
    const [channel] = rowsOf<{ id: string }>(await exec(`insert into notification_channels (user_id, name, type, config, events, secret)
      values ('${id}', 'hook', 'webhook', '{"url":"https://hooks.example.com"}', '{incident.opened}', 'whsec_x') returning id`))
    await exec(`insert into monitor_notification_channels (monitor_id, channel_id) values ('${site.id}', '${channel.id}')`)
    const [event] = rowsOf<{ id: string }>(await exec(`insert into notification_events (user_id, type, monitor_id, incident_id, payload)
      values ('${id}', 'incident.opened', '${site.id}', '${incident.id}', '{"type":"incident.opened"}') returning id`))
    await exec(`insert into notification_deliveries (channel_id, event_id, monitor_id, next_attempt_at) values ('${channel.id}', '${event.id}', '${site.id}', now())`)
    await exec(`insert into monitor_pauses (monitor_id, paused_at, resumed_at) values ('${site.id}', now() - interval '1 hour', now())`)
    await exec(`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts)
      values ('${site.id}', 'day', date_trunc('day', now()), 10, 1, 86400000, 60000, '{3,4}', '{5,5}')`)
  }
  await exec("insert into sign_in_attempts (key, attempts, expires_at) values ('a', 2, now() + interval '1 hour')")
  await exec("insert into rollup_progress (granularity, built_until) values ('hour', date_trunc('hour', now()))")
  return keys
}

t.test('0024 moves every row into its owner\'s personal organization, nothing lost', async (t) => {
  const { handle, DATABASE_URL: url } = await createTestDatabase(t, { unmigrated: true })
  await migrateWith(handle, folderUpTo(t, BEFORE))
  const keys = await populate(handle)
  const before = Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, await rowsOfTable(handle, table)] as const)))
  t.ok(TABLES.every((table) => before[table].length > 0), 'every table has rows')

  await migrateWith(handle, DRIZZLE)
  for (const table of TABLES) {
    const expected = before[table].map((row) => {
      if (RENAMED.includes(table)) {
        const { user_id: owner, ...rest } = row
        return { ...rest, org_id: owner }
      }
      if (table === 'api_keys') return { ...row, org_id: row.user_id }
      if (table === 'sessions') return { ...row, org_id: null }
      // 0032 puts maintenance_ms (0 for rows made before it) after downtime_ms in a day row's text.
      if (table === 'monitor_rollups' && typeof row.row_text === 'string') return { ...row, row_text: row.row_text.replace(/^((?:[^,]*,){5})/, '$10,') }
      return row
    })
    const shown = (row: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))
    // The columns 0024 leaves (later migrations add their own, with their defaults).
    const columns = new Set(expected.flatMap((row) => Object.keys(row)))
    const after = (await rowsOfTable(handle, table))
      .map((row) => shown(Object.fromEntries(Object.entries(row).filter(([column]) => columns.has(column)))))
    t.same(after.sort(), expected.map(shown).sort(), `${table}: every row, with the same values`)
  }
  const users = before.users as Array<{ id: string, email: string, created_at: string }>
  const orgs = await rowsOfTable(handle, 'organizations')
  t.same(orgs.map((o) => [o.id, o.name, o.personal_user_id]).sort(), users.map((u) => [u.id, u.email, u.id]).sort(), 'a personal organization per user')
  t.same(orgs.map((o) => o.slug).sort(), users.map((u) => `${u.email.split('@')[0]}-${u.id.replaceAll('-', '').slice(0, 8)}`).sort())
  t.same((await rowsOfTable(handle, 'memberships')).map((m) => [m.org_id, m.user_id, m.role]).sort(), users.map((u) => [u.id, u.id, 'owner']).sort(),
    'each user owns theirs')

  const app = await buildApp({ config: testConfig(url ? { DATABASE_URL: url } : {}), database: handle, logger: false })
  t.teardown(() => app.close())
  await app.ready()
  const listed = await request(app, { authorization: `Bearer ${keys.ada}` }, { url: '/api/v1/monitors' })
  t.same(listed.json().data.map((m: { name: string }) => m.name).sort(), ['ada beat', 'ada site'], 'the old key lists its user\'s monitors, as before')
  const created = await request(app, { authorization: `Bearer ${keys.bob}` }, { method: 'POST', url: '/api/v1/monitors', payload: { name: 'new', url: 'https://new.example.com' } })
  t.equal(created.statusCode, 201, 'and can still create')
})
