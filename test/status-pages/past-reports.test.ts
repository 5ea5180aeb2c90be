// A public page's past reports, paged: the page shows the 50 last resolved within `history_days` and links to the older
// ones, each page of /status/{slug}/history 50 more by (resolved_at, id), none twice or left out, to the last. A bad
// cursor is a 400 page naming `before`; a password page asks its password; each request spends the address's budget.
import { sql } from 'drizzle-orm'
import t, { type Test } from 'tap'
import { rowsOf } from '../../src/db/client.ts'
import { buildTestApp, limiterStore, makeTeam, request } from '../helper.ts'

const HOUR = 3_600_000

async function setUp (t: Test, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env })
  const team = await makeTeam(app)
  const api = (method: 'POST' | 'PATCH', url: string, payload: Record<string, unknown>) => request(app, team.auth, { method, url: `/api/v1${url}`, payload })
  const slug = `acme-${Math.random().toString(36).slice(2, 8)}`
  const page = (await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })).json().data
  const other = (await api('POST', '/status-pages', { slug: `${slug}-2`, title: 'Other', published: true })).json().data
  // 120 resolved reports within the 90 days, two by two at the same time (so the id decides), an open one, one of
  // another page and one resolved before the page's history_days.
  const now = Date.now()
  const report = (title: string, pageId: string, resolvedAt: Date | null) => sql`(${team.orgId}::uuid, ${title}, ${resolvedAt ? 'resolved' : 'investigating'}, 'minor',
    array[${pageId}]::uuid[], ${new Date(now - 3000 * HOUR).toISOString()}::timestamptz, ${resolvedAt?.toISOString() ?? null}::timestamptz)`
  const rows = Array.from({ length: 120 }, (_, i) => report(`Past ${i}`, page.id, new Date(now - Math.floor(i / 2) * 10 * HOUR)))
  rows.push(report('Still open', page.id, null), report('Elsewhere', other.id, new Date(now - HOUR)), report('Too old', page.id, new Date(now - 100 * 24 * HOUR)))
  await app.db.execute(sql`insert into status_reports (org_id, title, status, impact, status_page_ids, created_at, resolved_at) values ${sql.join(rows, sql`, `)}`)
  const expected = rowsOf<{ id: string, title: string, resolvedAt: string }>(await app.db.execute(sql`select id, title, resolved_at as "resolvedAt"
    from status_reports where ${page.id}::uuid = any(status_page_ids) and title like 'Past %'`))
    .sort((a, b) => Date.parse(b.resolvedAt) - Date.parse(a.resolvedAt) || (a.id < b.id ? 1 : -1)).map((row) => row.title)
  return { app, api, slug, page, expected }
}

/** The past reports a page shows, in order, and its "Older reports" link. */
function pastOf (body: string) {
  const section = body.slice(body.indexOf('<h2 id="past-reports">'))
  const titles = [...section.slice(0, section.indexOf('</section>')).matchAll(/<article class="report [^"]*" id="report-[0-9a-f-]{36}">\s*<h3>([^<]*)<\/h3>/g)].map((m) => m[1])
  return { titles, older: /<a href="([^"]+)" rel="next">Older reports<\/a>/.exec(section)?.[1] }
}

t.test('the page shows the 50 last resolved; its "Older reports" link pages through the rest, each once, in order', async (t) => {
  const { app, slug, expected } = await setUp(t)
  const home = await app.inject({ url: `/status/${slug}` })
  t.equal(home.statusCode, 200)
  const first = pastOf(home.body)
  t.same(first.titles, expected.slice(0, 50), 'the 50 last resolved, the last first')
  t.match(first.older, new RegExp(`^/status/${slug}/history\\?before=[\\w-]+$`))
  t.match(home.body, /Still open/, 'the open report is a current incident')

  const seen = [...first.titles]
  let next = first.older
  let pages = 0
  while (next !== undefined) {
    const res = await app.inject({ url: next })
    t.equal(res.statusCode, 200, next)
    t.match(res.headers['content-type'], /^text\/html/)
    t.equal(res.headers['cache-control'], 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400', 'cached as the page is')
    t.match(res.headers['content-security-policy'], /default-src 'none'/)
    t.match(res.body, `<a href="/status/${slug}">Current status</a>`)
    t.match(res.body, /<title>Acme status: past incidents<\/title>/)
    const again = await app.inject({ url: next, headers: { 'if-none-match': String(res.headers.etag) } })
    t.same([again.statusCode, again.body], [304, ''], 'its ETag: a 304')
    const older = pastOf(res.body)
    seen.push(...older.titles)
    next = older.older
    pages++
  }
  t.equal(pages, 2, '50 and then 20')
  t.same(seen, expected, 'every past report of the window once, in order; not the open one, another page\'s or one too old')

  const start = await app.inject({ url: `/status/${slug}/history` })
  t.same(pastOf(start.body).titles, expected.slice(0, 50), 'without `before`: the last resolved')
})

t.test('a bad `before` is a 400 page naming it; an unknown or unpublished page is a 404', async (t) => {
  const { app, api, slug, page } = await setUp(t)
  const cursorOf = (text: string) => Buffer.from(text).toString('base64url')
  for (const [query, message] of [
    ['before=not%20a%20cursor', 'querystring/before must be the cursor of an &quot;Older reports&quot; link'],
    ['before=abc', 'querystring/before must be the cursor of an &quot;Older reports&quot; link'],
    [`before=${cursorOf('99999999999999999/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d')}`, 'querystring/before must be the cursor'],
    [`before=${cursorOf('1700000000000/not-a-uuid-at-all-but-thirty-six-chars')}`, 'querystring/before must be the cursor'],
    ['before=', 'querystring/before must be the cursor'],
    ['page=2', 'querystring/page is not allowed'],
  ]) {
    const res = await app.inject({ url: `/status/${slug}/history?${query}` })
    t.equal(res.statusCode, 400, query)
    t.match(res.headers['content-type'], /^text\/html/, `${query}: a page`)
    t.match(res.body, message, `${query}: names the parameter`)
  }
  const unknown = await app.inject({ url: '/status/no-such-page/history' })
  t.same([unknown.statusCode, unknown.json()], [404, { error: 'Status page not found' }])
  await api('PATCH', `/status-pages/${page.id}`, { published: false })
  t.equal((await app.inject({ url: `/status/${slug}/history` })).statusCode, 404, 'unpublished')
})

t.test('a password page\'s history needs its cookie; every request spends the address\'s budget', async (t) => {
  const { app, api, slug, page } = await setUp(t, { RATE_LIMIT_MAX: '30', ...limiterStore() })
  await api('PATCH', `/status-pages/${page.id}`, { access: 'password', password: 'correct horse battery' })
  const form = await app.inject({ url: `/status/${slug}/history` })
  t.equal(form.statusCode, 200)
  t.match(form.body, new RegExp(`<form method="post" action="/status/${slug}">`), 'the password form, posting to the page')
  t.equal(form.headers['cache-control'], 'no-store')
  const right = await app.inject({
    method: 'POST', url: `/status/${slug}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=correct+horse+battery',
  })
  const cookie = String(right.headers['set-cookie']).split(';')[0]
  const opened = await app.inject({ url: `/status/${slug}/history`, headers: { cookie } })
  t.equal(opened.statusCode, 200)
  t.equal(pastOf(opened.body).titles.length, 50)
  t.equal(opened.headers['cache-control'], 'private, no-cache')

  let answered = 3
  let res = opened
  while (res.statusCode !== 429 && answered < 40) {
    res = await app.inject({ url: `/status/${slug}/history`, headers: { cookie } })
    answered++
  }
  t.same([res.statusCode, res.json()], [429, { error: 'Rate limit exceeded' }], `refused past the budget (${answered} requests)`)
  t.ok(answered <= 31, 'at most RATE_LIMIT_MAX requests answered')
  t.equal((await app.inject({ url: `/status/${slug}`, headers: { cookie } })).statusCode, 200, 'the page itself is served from memory still')
})
