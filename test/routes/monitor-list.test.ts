// The monitor list's parameters: filters (status, is_active, search), keyset paging with Link rel="next" (a
// monitor created mid-way neither skipped nor repeated, no Link on the last page), and a 400 naming each bad value.
import t from 'tap'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { monitors } from '../../src/db/schema.ts'
import type { MonitorStatus } from '../../src/domain/vocabulary.ts'
import { buildTestApp, makeMonitor, makeUser, request } from '../helper.ts'

type Item = { id: string, name: string, url: string | null, status: string, is_active: boolean }

/** Follows Link rel="next" from `url` to the last page; every page's items and Link. */
async function pages (app: FastifyInstance, auth: Record<string, string>, url: string, between?: (page: number) => Promise<void>) {
  const seen: Array<{ items: Item[], link?: string }> = []
  for (let next: string | undefined = url; next !== undefined;) {
    const res = await request(app, auth, { url: next })
    if (res.statusCode !== 200) throw new Error(`${next}: ${res.statusCode} ${res.body}`)
    const link = res.headers.link as string | undefined
    seen.push({ items: res.json().data, link })
    next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]
    if (between) await between(seen.length)
  }
  return seen
}

t.test('the monitor list: filters, paging and their errors', async (t) => {
  let now = new Date('2026-11-21T09:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const { auth } = await makeUser(app)
  const other = await makeUser(app)
  await makeMonitor(app, other.auth, { name: 'Someone else\'s shop' })
  const setStatus = (id: string, status: MonitorStatus) => app.db.update(monitors).set({ status }).where(eq(monitors.id, id))

  // 12 monitors, three of them created in the same millisecond (the id orders those); every third paused.
  const made: Item[] = []
  for (let i = 0; i < 12; i++) {
    if (i < 3 || i > 4) now = new Date(now.getTime() + 1000)
    made.push(await makeMonitor(app, auth, {
      name: i === 7 ? 'Shop 100%_off' : `Site ${i}`,
      url: i === 4 ? 'https://API.example.org/health' : `https://example.com/${i}`,
      is_active: i % 3 !== 2,
    }) as Item)
  }
  await setStatus(made[0].id, 'down')
  await setStatus(made[6].id, 'down')
  await setStatus(made[9].id, 'up')
  const whole = (await request(app, auth, { url: '/api/v1/monitors' }))
  const all: Item[] = whole.json().data
  const names = (items: Item[]) => items.map((m) => m.name)

  await t.test('without parameters: the whole list, newest first, no Link', async (t) => {
    t.equal(whole.statusCode, 200)
    t.notOk(whole.headers.link)
    t.equal(all.length, 12)
    t.same(new Set(all.map((m) => m.id)), new Set(made.map((m) => m.id)))
    t.equal(all[0].name, 'Site 11')
    t.equal(all[11].name, 'Site 0')
  })

  await t.test('filters keep the monitors that match, in the list\'s order', async (t) => {
    const list = async (query: string) => {
      const res = await request(app, auth, { url: `/api/v1/monitors?${query}` })
      t.equal(res.statusCode, 200, query)
      t.notOk(res.headers.link, `${query}: no Link without limit`)
      return names(res.json().data)
    }
    t.same(await list('status=down'), ['Site 6', 'Site 0'])
    t.same(await list('status=paused'), names(all.filter((m) => m.status === 'paused')))
    t.same(await list('status=degraded'), [])
    t.same(await list('is_active=false'), names(all.filter((m) => !m.is_active)))
    t.equal((await list('is_active=true')).length, 8)
    t.same(await list('search=api.EXAMPLE'), ['Site 4'], 'the URL, in any case')
    t.same(await list('search=site%201'), ['Site 11', 'Site 10', 'Site 1'], 'the name, in any case')
    t.same(await list(`search=${encodeURIComponent('100%_')}`), ['Shop 100%_off'], '% and _ are taken literally')
    t.same(await list('search=_'), ['Shop 100%_off'], 'a lone _ matches only the name with one')
    t.same(await list('search=shop'), ['Shop 100%_off'], 'another user\'s monitors never')
    t.same(await list('status=down&is_active=true&search=site'), ['Site 6', 'Site 0'])
    t.same(await list('status=down&is_active=false'), [])
  })

  await t.test('paging: every monitor once, a monitor created mid-way neither skipped nor repeated, no Link on the last page', async (t) => {
    const seen = await pages(app, auth, '/api/v1/monitors?limit=5', async (page) => {
      if (page !== 1) return
      // Newer than everything: it belongs before the first page, so no later page holds it.
      now = new Date(now.getTime() + 1000)
      await makeMonitor(app, auth, { name: 'Created while paging' })
    })
    t.same(seen.map((p) => p.items.length), [5, 5, 2])
    t.same(seen.flatMap((p) => p.items).map((m) => m.id), all.map((m) => m.id), 'in order, each once')
    t.match(seen[0].link, /^<\/api\/v1\/monitors\?limit=5&cursor=[A-Za-z0-9_-]+>; rel="next"$/)
    t.notOk(seen[2].link)

    const after = await pages(app, auth, '/api/v1/monitors?limit=13')
    t.same(after.map((p) => p.items.length), [13], 'exactly a page left: no Link')
    t.equal(after[0].items[0].name, 'Created while paging')
    const exact = await pages(app, auth, '/api/v1/monitors?limit=1000')
    t.equal(exact.length, 1)
  })

  await t.test('filters and paging combine; the Link carries them', async (t) => {
    const seen = await pages(app, auth, '/api/v1/monitors?search=SITE&is_active=true&limit=3')
    t.match(seen[0].link, /^<\/api\/v1\/monitors\?is_active=true&search=SITE&limit=3&cursor=[A-Za-z0-9_-]+>; rel="next"$/)
    t.same(seen.flatMap((p) => p.items).map((m) => m.id), all.filter((m) => m.is_active && /site/i.test(m.name)).map((m) => m.id))
    const down = await pages(app, auth, '/api/v1/monitors?status=down&limit=1')
    t.same(down.map((p) => names(p.items)), [['Site 6'], ['Site 0']])
    t.match(down[0].link, /\?status=down&limit=1&cursor=/)
  })

  await t.test('a deleted monitor on a page boundary does not lose the place', async (t) => {
    const [first] = await pages(app, auth, '/api/v1/monitors?limit=4').then((p) => p.slice(0, 1))
    const last = first.items[3]
    t.equal((await request(app, auth, { method: 'DELETE', url: `/api/v1/monitors/${last.id}` })).statusCode, 204)
    const next = /^<([^>]+)>/.exec(first.link!)![1]
    const res = await request(app, auth, { url: next })
    const ids = res.json().data.map((m: Item) => m.id)
    const current = (await request(app, auth, { url: '/api/v1/monitors' })).json().data.map((m: Item) => m.id)
    t.same(ids, current.slice(3, 7), 'the next page starts right after the deleted one')
  })

  await t.test('bad values are a 400 naming the parameter', async (t) => {
    const badContent = Buffer.from('12:not-a-uuid').toString('base64url')
    for (const [query, message] of [
      ['limit=0', 'querystring/limit must be >= 1'],
      ['limit=1001', 'querystring/limit must be <= 1000'],
      ['limit=ten', 'querystring/limit must be integer'],
      ['cursor=', 'querystring/cursor must be a cursor from the Link header of this list'],
      ['cursor=a%2Bb', 'querystring/cursor must be a cursor from the Link header of this list'],
      [`cursor=${badContent}`, 'querystring/cursor must be a cursor from the Link header of this list'],
      [`cursor=${'x'.repeat(101)}`, 'querystring/cursor must be a cursor from the Link header of this list'],
      ['status=broken', 'querystring/status must be one of: pending, up, degraded, down, paused'],
      ['is_active=maybe', 'querystring/is_active must be boolean'],
      ['search=', 'querystring/search must be 1-2048 characters without NUL'],
      ['search=a%00b', 'querystring/search must be 1-2048 characters without NUL'],
      ['page=2', 'querystring/page is not allowed'],
    ]) {
      const res = await request(app, auth, { url: `/api/v1/monitors?${query}` })
      t.equal(res.statusCode, 400, query)
      t.same(res.json(), { error: message }, query)
    }
    // A cursor whose base64 decodes to a valid place, with something after it that decoding skips.
    const good = /cursor=([^>&]+)/.exec((await request(app, auth, { url: '/api/v1/monitors?limit=1' })).headers.link as string)![1]
    const res = await request(app, auth, { url: `/api/v1/monitors?limit=1&cursor=${good}A` })
    t.equal(res.statusCode, 400, 'a cursor with a character more')
  })
})
