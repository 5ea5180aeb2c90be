// Check routes: newest first, at most 100, paging with limit and before; rows seeded through the repository.
import t from 'tap'
import { insertChecks, type NewCheck } from '../../src/repositories/checks.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

const CHECK_FIELDS = ['checked_at', 'error_message', 'id', 'is_up', 'monitor_id', 'response_time_ms', 'status_code']

t.test('checks of a monitor', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  const other = await makeMonitor(app, auth)
  const base = Date.UTC(2026, 10, 1)
  // 150 checks in shuffled order (every 7th down, no response for every 21st), plus noise on another monitor.
  const rows: NewCheck[] = Array.from({ length: 150 }, (_, i) => ({
    monitorId: monitor.id,
    isUp: i % 7 !== 0,
    statusCode: i % 21 === 0 ? null : i % 7 === 0 ? 503 : 200,
    responseTimeMs: i,
    checkedAt: new Date(base + i * 60_000),
    errorMessage: i % 21 === 0 ? 'timeout after 10000 ms' : i % 7 === 0 ? 'expected status 200, got 503' : null,
  })).sort(() => Math.random() - 0.5)
  await insertChecks(app.db, rows)
  await insertChecks(app.db, [{ monitorId: other.id, isUp: true, statusCode: 200, responseTimeMs: 5, checkedAt: new Date(base + 10e9) }])

  await t.test('without parameters: the last 100, newest first, exactly the specified fields', async (t) => {
    const res = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks` })
    t.equal(res.statusCode, 200)
    const data = res.json().data
    t.equal(data.length, 100)
    t.same(data.map((c: { response_time_ms: number }) => c.response_time_ms), Array.from({ length: 100 }, (_, i) => 149 - i))
    for (const c of data) t.same(Object.keys(c).sort(), CHECK_FIELDS)
    t.same(data[0], {
      id: data[0].id,
      monitor_id: monitor.id,
      is_up: true,
      status_code: 200,
      response_time_ms: 149,
      checked_at: new Date(base + 149 * 60_000).toISOString(),
      error_message: null,
    })
    const down = data.find((c: { response_time_ms: number }) => c.response_time_ms === 147)
    t.match(down, { is_up: false, status_code: null, error_message: 'timeout after 10000 ms' })
    t.match(data.find((c: { response_time_ms: number }) => c.response_time_ms === 140), { is_up: false, status_code: 503 })
  })

  await t.test('limit and before page back through the history', async (t) => {
    const first = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks?limit=60` })).json().data
    t.equal(first.length, 60)
    const cursor = first[59].checked_at
    const second = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks?limit=100&before=${encodeURIComponent(cursor)}` })).json().data
    t.equal(second.length, 90)
    t.equal(second[0].response_time_ms, 89)
    t.equal(second[89].response_time_ms, 0)
    const ids = new Set([...first, ...second].map((c: { id: string }) => c.id))
    t.equal(ids.size, 150, 'no check is skipped or repeated')
  })

  await t.test('a full page carries Link rel="next" (the same limit, before its oldest check); the last page none', async (t) => {
    const whole = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks` })
    const oldest = whole.json().data[99].checked_at
    t.equal(whole.headers.link, `</api/v1/monitors/${monitor.id}/checks?limit=100&before=${encodeURIComponent(oldest)}>; rel="next"`)
    const seen: string[] = []
    let next: string | undefined = `/api/v1/monitors/${monitor.id}/checks?limit=50`
    let pages = 0
    while (next !== undefined) {
      const res = await request(app, auth, { url: next })
      seen.push(...res.json().data.map((c: { id: string }) => c.id))
      pages++
      const link = res.headers.link as string | undefined
      next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]
    }
    t.equal(pages, 4, 'three full pages, then an empty one (a full page cannot know that nothing follows)')
    t.equal(new Set(seen).size, 150, 'every check once')
    const last = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks?before=${encodeURIComponent(oldest)}` })
    t.equal(last.json().data.length, 50)
    t.notOk(last.headers.link, 'a page that is not full has no Link')
  })

  await t.test('bad query values are 400 naming the parameter', async (t) => {
    for (const [query, message] of [
      ['limit=0', 'querystring/limit must be >= 1'],
      ['limit=101', 'querystring/limit must be <= 100'],
      ['limit=ten', 'querystring/limit must be integer'],
      ['before=yesterday', 'querystring/before must be a valid date-time'],
      ['page=2', 'querystring/page is not allowed'],
    ]) {
      const res = await request(app, auth, { url: `/api/v1/monitors/${monitor.id}/checks?${query}` })
      t.equal(res.statusCode, 400, query)
      t.same(res.json(), { error: message })
    }
  })

  await t.test('a monitor without checks has an empty list', async (t) => {
    const fresh = await makeMonitor(app, auth)
    t.same((await request(app, auth, { url: `/api/v1/monitors/${fresh.id}/checks` })).json(), { data: [] })
  })
})
