// A monitor's coverage (api-contract section 17): fewer fresh locations than its quorum keeps its status and tells
// `location.coverage_lost` once, whether a check or the sweep of silent locations finds it; enough of them again tell
// `location.coverage_restored`; a resumed monitor starts afresh. Agents' results drive the checks, on a driven clock.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { sweepSilentLocations } from '../../src/locations/coverage.ts'
import { buildTestApp, makeUser, request } from '../helper.ts'

t.test('coverage is lost once when locations fall silent, by a check or by the sweep, and restored when they report', async (t) => {
  const created = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  const clock = { now: created }
  const { app } = await buildTestApp(t, { clock: () => clock.now, env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const owner = await makeUser(app)
  const api = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: object) =>
    request(app, owner.auth, { method, url: `/api/v1${path}`, ...(payload && { payload }) })
  const tokens: Record<string, string> = {}
  for (const code of ['a', 'b', 'c'].map((letter) => `lab-${letter}`)) tokens[code] = (await api('POST', '/locations', { code, name: code })).json().data.agent_token
  const monitor = (await api('POST', '/monitors', { name: 'Shop', url: 'https://shop.example.com', locations: Object.keys(tokens), interval_minutes: 5 })).json().data
  const minutes = (n: number) => new Date(created.getTime() + n * 60_000)
  /** `code` checked the monitor at minute `n` (its slot is the one that holds it), up. */
  const check = async (code: string, n: number) => {
    const at = minutes(n).toISOString()
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/agent/results',
      headers: { authorization: `Bearer ${tokens[code]}` },
      payload: { results: [{ monitor_id: monitor.id, slot_at: at, checked_at: at, is_up: true, status_code: 200, response_time_ms: 10, error_message: null }] },
    })
    t.same(res.json().data, { recorded: 1, late: 0, duplicates: 0, unassigned: 0 }, `${code} at minute ${n}`)
  }
  const told = async () => rowsOf<{ type: string, silent: string[], check: boolean }>(await app.db.execute(sql`
    select type, payload->'data'->'silent_locations' as silent, payload->'data'->'check' <> 'null'::jsonb as check
    from notification_events where monitor_id = ${monitor.id} and type like 'location.%' order by created_at, id`))
  const status = async () => (await api('GET', `/monitors/${monitor.id}`)).json().data.status

  for (const code of Object.keys(tokens)) await check(code, 0)
  t.equal(await status(), 'up')
  t.same(await told(), [], 'the quorum made for the first time: nothing to tell')

  clock.now = minutes(11)
  await check('lab-a', 11)
  t.equal(await status(), 'up', 'one fresh location of three: the status is kept')
  t.same(await told(), [{ type: 'location.coverage_lost', silent: ['lab-b', 'lab-c'], check: true }], 'lost, told by the check that found it')
  clock.now = minutes(16)
  await check('lab-a', 16)
  t.equal((await told()).length, 1, 'told once')
  await check('lab-b', 16)
  t.same((await told()).at(-1), { type: 'location.coverage_restored', silent: ['lab-c'], check: true }, 'two of three again: restored')

  clock.now = minutes(30)
  t.equal(await sweepSilentLocations(app.db, clock.now), 1, 'no check comes: the sweep finds it')
  t.same((await told()).at(-1), { type: 'location.coverage_lost', silent: ['lab-a', 'lab-b', 'lab-c'], check: false })
  t.equal(await sweepSilentLocations(app.db, clock.now), 0, 'and tells it once')
  t.equal(await status(), 'up')

  t.equal((await api('PATCH', `/monitors/${monitor.id}`, { is_active: false })).statusCode, 200)
  t.equal((await api('PATCH', `/monitors/${monitor.id}`, { is_active: true })).statusCode, 200)
  clock.now = minutes(31)
  await check('lab-a', 31)
  t.equal(await sweepSilentLocations(app.db, clock.now), 0)
  t.equal((await told()).length, 3, 'a resumed monitor starts afresh: its first locations reporting one by one are no loss')
  await check('lab-c', 31)
  t.equal((await told()).length, 3, 'nor is its quorum made again')
  t.equal(await status(), 'up')
})
