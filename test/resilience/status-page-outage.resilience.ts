// A status page keeps answering while PostgreSQL is down (api-contract section 16): from its last snapshot, with
// the same body and ETag and its "Last updated" time, 304 for a copy that is current; a page never built answers
// 503; when the database is back, a change is on the page again.
import t from 'tap'
import { until } from '../helper.ts'
import { firstKey, SKIP_WITHOUT_POSTGRES, startPingward, startPrivatePostgres } from './support.ts'

t.test('a PostgreSQL outage under a published status page', { skip: SKIP_WITHOUT_POSTGRES }, async (t) => {
  const pg = await startPrivatePostgres(t)
  const server = await startPingward(t, { DATABASE_URL: pg.url, CHECKER: 'on' })
  const headers = { authorization: `Bearer ${await firstKey(server)}`, 'content-type': 'application/json' }
  const api = async (method: string, path: string, body?: object) =>
    (await fetch(`${server.base}/api/v1${path}`, { method, headers, body: body && JSON.stringify(body), signal: AbortSignal.timeout(20_000) })).json()
  const page = (await api('POST', '/status-pages', { slug: 'acme', title: 'Acme status', published: true })).data
  await api('POST', `/status-pages/${page.id}/components`, { name: 'Website', manual_status: 'operational' })
  t.match(await api('POST', '/status-pages', { slug: 'never-seen', title: 'Not built yet', published: true }), { data: { slug: 'never-seen' } })
  const get = (path: string, extra: Record<string, string> = {}) => fetch(`${server.base}/status/acme${path}`, { headers: extra, signal: AbortSignal.timeout(20_000) })

  const before = await get('')
  t.equal(before.status, 200)
  const html = await before.text()
  const etag = before.headers.get('etag')!
  const lastUpdated = /Last updated <time datetime="([^"]+)"/.exec(html)?.[1]
  t.ok(lastUpdated, `the page says when it was last updated (${lastUpdated})`)
  const summary = await (await get('/summary.json')).text()

  pg.stop()
  t.comment('PostgreSQL stopped')
  // The listening connection is lost: every page is stale, and a rebuild is tried on the next request and fails.
  const warned = server.output().length
  const answers = new Set<string>()
  await until(async () => {
    const res = await get('')
    answers.add(`${res.status} ${await res.text() === html ? 'the last snapshot' : 'another body'}`)
    return /status page snapshot not rebuilt/.test(server.output().slice(warned)) || undefined
  }, 200)
  t.same([...answers], ['200 the last snapshot'], 'the page answers during the outage, from its last snapshot whole')
  t.comment('a rebuild was tried and failed')
  const during = await get('')
  t.equal(during.status, 200)
  t.equal(during.headers.get('etag'), etag, 'the same strong ETag')
  t.equal(during.headers.get('cache-control'), 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400')
  t.match(await during.text(), `Last updated <time datetime="${lastUpdated}"`, 'with the time it was built')
  t.equal((await get('', { 'if-none-match': etag })).status, 304, 'a current copy is still a 304')
  const twin = await get('/summary.json')
  t.same([twin.status, await twin.text()], [200, summary], 'its twins answer too')
  const unbuilt = await fetch(`${server.base}/status/never-seen`)
  t.same([unbuilt.status, await unbuilt.json()], [503, { error: 'Service unavailable' }], 'a page never built has nothing to answer with')

  pg.start()
  t.comment('PostgreSQL started again')
  await until(async () => {
    const res = await fetch(`${server.base}/api/v1/status-pages/${page.id}`, { method: 'PATCH', headers, body: JSON.stringify({ title: 'Acme, back' }) }).catch(() => undefined)
    return res?.status === 200 || undefined
  }, 200)
  const after = await get('')
  t.equal(after.status, 200)
  t.match(await after.text(), 'Acme, back', 'a change after the outage is on the page')
  t.not(after.headers.get('etag'), etag)
  const built = await fetch(`${server.base}/status/never-seen`)
  t.equal(built.status, 200, 'and the page never built is built')

  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'stops cleanly afterwards')
})
