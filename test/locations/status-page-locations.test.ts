// A located monitor on a status page and in its uptime (issue 46): failing from fewer locations than its quorum, its
// component is a partial outage naming those locations, and its uptime stays whole; from a quorum of them, a major outage.
import t from 'tap'
import { buildTestApp, makeUser, request, until } from '../helper.ts'

t.test('a partial outage names the locations it is seen from; uptime counts only the quorum\'s failure', async (t) => {
  const created = new Date(Math.floor(Date.now() / 60_000) * 60_000)
  const clock = { now: new Date(created.getTime() + 1000) }
  const { app } = await buildTestApp(t, { clock: () => clock.now })
  const owner = await makeUser(app)
  const api = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const res = await request(app, owner.auth, { method, url: `/api/v1${path}`, ...(payload && { payload }) })
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const tokens = new Map<string, string>()
  for (const [code, name] of [['fra', 'Frankfurt'], ['tyo', 'Tokyo'], ['iad', 'Virginia']]) tokens.set(code, (await api('POST', '/locations', { code, name })).agent_token)
  clock.now = created
  const monitor = await api('POST', '/monitors', { name: 'Shop', url: 'https://shop.example.com/', locations: [...tokens.keys()], interval_minutes: 5 })
  const slug = `shop-${Math.random().toString(36).slice(2, 8)}`
  const page = await api('POST', '/status-pages', { slug, title: 'Shop status', published: true })
  await api('POST', `/status-pages/${page.id}/components`, { name: 'Checkout', monitor_id: monitor.id })

  /** Each location's check of the slot `slot` intervals after the monitor's creation, failing where `down` says. */
  const checkSlot = async (slot: number, down: string[]) => {
    const slotAt = new Date(created.getTime() + slot * 5 * 60_000)
    clock.now = new Date(slotAt.getTime() + 2000)
    for (const [code, token] of tokens) {
      const isUp = !down.includes(code)
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/agent/results',
        headers: { authorization: `Bearer ${token}` },
        payload: { results: [{ monitor_id: monitor.id, slot_at: slotAt.toISOString(), checked_at: new Date(slotAt.getTime() + 500).toISOString(), is_up: isUp, status_code: isUp ? 200 : 503, response_time_ms: 40, error_message: isUp ? null : 'HTTP 503' }] },
      })
      t.equal(res.json().data?.recorded, 1, `${code}: recorded`)
    }
  }
  /** The component's status line once it says `wanted` (the page's snapshot follows the checks through the change feed). */
  const componentLine = async (wanted: string) => until(async () => {
    const line = /<h3>Checkout<\/h3><p[^>]*>(.*?)<\/p>/.exec((await app.inject({ url: `/status/${slug}` })).body)?.[1]
    return line?.includes(wanted) ? line : undefined
  })
  const summaryStatus = async () => (await app.inject({ url: `/status/${slug}/summary.json` })).json().components[0].status

  await checkSlot(0, [])
  t.match(await componentLine('Operational'), /Operational<\/span>$/)

  await checkSlot(1, ['tyo'])
  t.equal((await api('GET', `/monitors/${monitor.id}`)).status, 'degraded')
  t.match(await componentLine('Partial outage'), /Partial outage<\/span> from Tokyo$/, 'failing from one location of three: a partial outage, named')
  t.equal(await summaryStatus(), 'partial_outage')

  await checkSlot(2, ['tyo', 'fra'])
  t.equal((await api('GET', `/monitors/${monitor.id}`)).status, 'down')
  t.match(await componentLine('Major outage'), /Major outage<\/span>$/, 'failing from a majority: a major outage')
  t.equal(await summaryStatus(), 'major_outage')

  await checkSlot(3, [])
  await componentLine('Operational')
  clock.now = new Date(created.getTime() + 20 * 60_000)
  const uptime = await api('GET', `/monitors/${monitor.id}/uptime?from=${created.toISOString()}&to=${clock.now.toISOString()}&granularity=hour`)
  t.match(uptime, { summary: { downtime_seconds: 300 } }, 'down only for the slot whose quorum failed, not for Tokyo\'s alone')
})
