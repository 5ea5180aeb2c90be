// The public status page in real headless Chromium with axe-core: no WCAG 2.2 A/AA or best-practice violation with every
// state on it at once (operational, degraded, partial and major outage, maintenance under way and to come, open and resolved
// reports, grouped and ungrouped components), in light and dark colours, at 320 px (no horizontal scroll) and at 200% zoom;
// each status in words, not colour alone; every interactive element reached by Tab, in order, with a visible focus, no trap.
import { mkdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import axe from 'axe-core'
import { sql } from 'drizzle-orm'
import { chromium, type Browser, type Page } from 'playwright-core'
import { recordCheck } from '../../src/checks/record-check.ts'
import { buildTestApp, makeMonitor, makeTeam, request, until } from '../helper.ts'
import { chromiumMissing as skip } from '../support/chromium.ts'

const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url))
const DAY_MS = 86_400_000
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']
const LABELS = ['Operational', 'Degraded performance', 'Partial outage', 'Major outage', 'Under maintenance']

const check = (isUp: boolean) => ({
  isUp, statusCode: isUp ? 200 : 503, responseTimeMs: 42, errorMessage: isUp ? null : 'expected status 200, got 503', checkedAt: new Date(),
})

/** A page with every state a component, a report and a window can be in, and some history in its day bars. */
async function setUp (t: Test) {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const team = await makeTeam(app)
  const api = async (method: 'POST', url: string, payload: Record<string, unknown>) => {
    const res = await request(app, team.auth, { method, url: `/api/v1${url}`, payload })
    if (res.statusCode !== 201) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const monitor = (name: string, overrides: Record<string, unknown> = {}) =>
    makeMonitor(app, team.auth, { name, url: `https://${name}.example.com/health`, failure_threshold: 1, ...overrides })
  const web = await monitor('web')
  const db = await monitor('db')
  const api1 = await monitor('api-1', { labels: { tier: 'api' } })
  const api2 = await monitor('api-2', { labels: { tier: 'api' } })
  const queue = await monitor('queue')

  // History for the day bars: mostly up, a short and a long outage, a day only in maintenance, older days without data.
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  const rows = []
  for (const id of [web.id, db.id, api1.id, api2.id, queue.id]) {
    for (let back = 1; back <= 30; back++) {
      const down = id === db.id && back === 3 ? 7_200_000 : id === api1.id && back === 5 ? 300_000 : 0
      const maintenance = id === queue.id && back === 2 ? DAY_MS : 0
      rows.push(sql`(${id}::uuid, 'day', ${new Date(today - back * DAY_MS).toISOString()}::timestamptz, 1440, ${down / 60_000},
        ${DAY_MS - maintenance}, ${down}, ${maintenance}, '{}', '{}')`)
    }
  }
  await app.db.execute(sql`insert into monitor_rollups (monitor_id, granularity, start, checks, failed_checks, tracked_ms,
    downtime_ms, maintenance_ms, hist_buckets, hist_counts) values ${sql.join(rows, sql`, `)}`)

  const slug = `a11y-${Math.random().toString(36).slice(2, 8)}`
  const page = await api('POST', '/status-pages', {
    slug, title: 'Acme status', description: 'The state of Acme\'s services', homepage_url: 'https://acme.example.com', published: true,
  })
  const component = (payload: Record<string, unknown>) => api('POST', `/status-pages/${page.id}/components`, payload)
  await component({ name: 'Website', description: 'www.acme.example.com and the shop', monitor_id: web.id })
  await component({ name: 'Database', monitor_id: db.id, group: 'Backend' })
  await component({ name: 'API fleet', label_selector: ['tier:api'], group: 'Backend' })
  await component({ name: 'Job queue', monitor_id: queue.id, group: 'Backend' })
  const desk = await component({ name: 'Support desk', manual_status: 'degraded_performance' })

  for (const [id, isUp] of [[web.id, true], [api2.id, true], [db.id, false], [api1.id, false]] as const) {
    await recordCheck(app.db, id, check(isUp), 30_000)
  }
  await api('POST', '/maintenance-windows', { title: 'Queue migration', description: 'Jobs wait until it is done.', ends_at: new Date(Date.now() + 3_600_000).toISOString(), monitor_ids: [queue.id] })
  await api('POST', '/maintenance-windows', {
    title: 'Website upgrade', starts_at: new Date(Date.now() + DAY_MS).toISOString(), ends_at: new Date(Date.now() + DAY_MS + 7_200_000).toISOString(), monitor_ids: [web.id],
  })
  const open = await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Slow replies from support', impact: 'minor', component_ids: [desk.id], message: 'We are looking into it.' })
  await api('POST', `/status-reports/${open.id}/updates`, { status: 'identified', message: 'A mail server is slow; we are moving to another.' })
  const past = await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Failed sign-ins', impact: 'major', message: 'Sign-ins fail for some.' })
  await api('POST', `/status-reports/${past.id}/updates`, { status: 'resolved', message: 'Fixed; sign-ins work again.' })

  // The checks reach the page through the change feed: wait until it shows them all.
  await until(async () => {
    const body = (await app.inject({ url: `/status/${slug}` })).body
    return LABELS.every((label) => body.includes(`</span>${label}</span>`)) && body.includes('Failed sign-ins')
  })
  return { url: `${base}/status/${slug}` }
}

interface Violation { id: string, impact?: string | null, help: string, nodes: Array<{ target: unknown[], failureSummary?: string }> }

/** axe-core's violations of the page as it is now, and how many rules it passed (so that it surely ran). */
async function violations (page: Page): Promise<{ violations: Violation[], passed: number }> {
  if (!await page.evaluate(() => 'axe' in window)) await page.addScriptTag({ content: axe.source })
  return page.evaluate((values) => (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values } })
    .then((results) => ({ violations: results.violations, passed: results.passes.length })), TAGS)
}

const describe = (found: Violation[]) => found.map((v) =>
  `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes[0]?.target)} (${v.nodes.length} node(s))\n  ${v.nodes[0]?.failureSummary?.replaceAll('\n', '\n  ')}`).join('\n')

/** Axe, with the details closed as the page comes and with all of them open. */
async function audit (t: Test, page: Page, what: string) {
  const closed = await violations(page)
  t.ok(closed.passed > 20, `${what}: axe ran (${closed.passed} rules passed)`)
  t.same(closed.violations, [], `${what}: no violations\n${describe(closed.violations)}`)
  await page.evaluate(() => { for (const details of document.querySelectorAll('details')) details.open = true })
  const opened = await violations(page)
  t.same(opened.violations, [], `${what}, every details open: no violations\n${describe(opened.violations)}`)
}

/** A new context (its own viewport, scale and colours) on the page. CSP is bypassed only so that axe's script may be added. */
async function open (browser: Browser, url: string, options: { width: number, height: number, deviceScaleFactor?: number, dark?: boolean }) {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height }, deviceScaleFactor: options.deviceScaleFactor ?? 1, bypassCSP: true })
  const page = await context.newPage()
  await page.emulateMedia({ colorScheme: options.dark ? 'dark' : 'light' })
  const res = await page.goto(url)
  if (res?.status() !== 200) throw new Error(`${url}: ${res?.status()}`)
  return { context, page }
}

const noHorizontalScroll = (page: Page) => page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }))

t.test('the public status page passes axe in light, dark, at 320 px and at 200% zoom, and works by keyboard', { skip }, async (t) => {
  const { url } = await setUp(t)
  mkdirSync(OUTPUT, { recursive: true })
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'], headless: true })
  t.teardown(() => browser.close())

  await t.test('light, 1280x800', async (t) => {
    const { context, page } = await open(browser, url, { width: 1280, height: 800 })
    t.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: light)').matches), true)
    await page.screenshot({ path: `${OUTPUT}status-page-light.png`, fullPage: true })

    // Every component's status in words beside its icon, the five states all on the page; the icon hidden from screen readers.
    const statuses = await page.$$eval('.component', (items) => items.map((item) => {
      const status = item.querySelector<HTMLElement>('.component-head [class^="s-"]')!
      const icon = status.querySelector('.icon')
      return { name: item.querySelector('h3')!.innerText, text: status.innerText.replace(icon?.textContent ?? '', '').trim(), iconHidden: icon?.getAttribute('aria-hidden') === 'true', width: status.offsetWidth }
    }))
    t.same(statuses.map((status) => status.name), ['Website', 'Database', 'API fleet', 'Job queue', 'Support desk'])
    t.same(statuses.map((status) => status.text), ['Operational', 'Major outage', 'Partial outage', 'Under maintenance', 'Degraded performance'], 'each status in words')
    t.ok(statuses.every((status) => status.iconHidden && status.width > 0), 'shown, its icon aria-hidden')
    const banner = await page.locator('.banner').innerText()
    t.match(banner, /Major System Outage$/, 'the overall status in words')
    t.match(await page.locator('#maintenance ~ article').allInnerTexts(), [/^Queue migration\n+⚙Under way: /, /^Website upgrade\n+⚙Scheduled: /])
    t.match(await page.locator('section[aria-labelledby="open-reports"] li').allInnerTexts(), [/^Identified · .*\nA mail server is slow/, /^Investigating · /])
    t.match(await page.locator('section[aria-labelledby="past-reports"]').innerText(), /Failed sign-ins\n+Resolved .*\n+Resolved · .*\nFixed; sign-ins work again\.\nInvestigating · /)

    // Each day of a bar: a text alternative, the same as its tooltip.
    const days = await page.$$eval('.days > li', (items) => items.map((item) => ({ sr: item.querySelector('.sr')?.textContent ?? '', title: (item as HTMLElement).title, level: item.className })))
    t.equal(days.length, 4 * 90, 'four components with history: 90 days each')
    t.ok(days.every((day) => /^\d{4}-\d\d-\d\d: \S/.test(day.sr) && day.sr === day.title), 'every day has its text')
    const levels = new Set(days.map((day) => day.level))
    t.same([...levels].sort(), ['day d-degraded', 'day d-maintenance', 'day d-none', 'day d-operational', 'day d-outage'], 'every level of a day shown')
    t.match(days.find((day) => day.level === 'day d-outage')?.sr, /: 91\.66% up, 120 min down$/)
    t.match(days.find((day) => day.level === 'day d-maintenance')?.sr, /: maintenance only, 1440 min maintenance$/)

    await t.test('keyboard: Tab reaches every interactive element in order, each with a visible focus, and leaves the page', async (t) => {
      // What the page offers to a keyboard as it comes (the tables of closed details are not shown, so not reached).
      const wanted = await page.$$eval('a[href], summary, button, input, select, textarea, [tabindex]', (found) => found
        .filter((element) => element.checkVisibility()).map((element, i) => {
          element.setAttribute('data-order', String(i))
          return `${element.tagName.toLowerCase()}: ${(element as HTMLElement).innerText}`
        }))
      t.equal(wanted.filter((name) => name.startsWith('summary')).length, 4, 'a summary per component with history')
      const reached: string[] = []
      for (let i = 0; i < wanted.length + 1; i++) {
        await page.keyboard.press('Tab')
        const focus = await page.evaluate(() => {
          const element = document.activeElement as HTMLElement | null
          if (!element || element === document.body) return null
          return { order: Number(element.dataset.order), outline: getComputedStyle(element).outlineStyle, visible: element.matches(':focus-visible') }
        })
        if (focus === null) break
        t.ok(focus.visible && focus.outline !== 'none', `${wanted[focus.order]}: a visible focus`)
        reached.push(wanted[focus.order])
      }
      t.same(reached, wanted, 'every interactive element once, in the order of the page')
      // Past the last, focus leaves the page; the next Tab starts over: nothing traps it.
      await page.keyboard.press('Tab')
      t.equal(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.order), '0', 'Tab starts over at the first')
      // A summary opens its days by keyboard; the next Tab reaches their table's box.
      const summary = page.locator('#components ~ section summary').first()
      await summary.focus()
      await page.keyboard.press('Enter')
      t.equal(await summary.evaluate((element) => (element.parentElement as HTMLDetailsElement).open), true, 'Enter opens the details')
      await page.keyboard.press('Tab')
      t.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Database: days with downtime, maintenance or reports')
    })

    await audit(t, page, 'light')
    await context.close()
  })

  await t.test('dark, 1280x800', async (t) => {
    const { context, page } = await open(browser, url, { width: 1280, height: 800, dark: true })
    t.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(17, 24, 39)', 'the dark colours apply')
    await page.screenshot({ path: `${OUTPUT}status-page-dark.png`, fullPage: true })
    await audit(t, page, 'dark')
    await context.close()
  })

  await t.test('320 px wide: no horizontal scroll', async (t) => {
    const { context, page } = await open(browser, url, { width: 320, height: 640 })
    const closed = await noHorizontalScroll(page)
    t.ok(closed.scrollWidth <= closed.innerWidth, `no horizontal scroll: ${JSON.stringify(closed)}`)
    await page.screenshot({ path: `${OUTPUT}status-page-mobile.png`, fullPage: true })
    await audit(t, page, '320 px')
    const opened = await noHorizontalScroll(page)
    t.ok(opened.scrollWidth <= opened.innerWidth, `none with every details open: ${JSON.stringify(opened)}`)
    const boxes = await page.$$eval('.scroll', (found) => found.map((box) => box.scrollWidth > box.clientWidth && box.tabIndex === 0))
    t.ok(boxes.length === 3 && boxes.every(Boolean), 'the day tables scroll in their own focusable boxes')
    await context.close()
  })

  // 200% zoom as the browser does it: 1280x800 device pixels, a CSS viewport of 640x400 at two device pixels per CSS pixel.
  await t.test('200% zoom', async (t) => {
    const { context, page } = await open(browser, url, { width: 640, height: 400, deviceScaleFactor: 2 })
    t.equal(await page.evaluate(() => window.devicePixelRatio), 2)
    const size = await noHorizontalScroll(page)
    t.ok(size.scrollWidth <= size.innerWidth, `no horizontal scroll: ${JSON.stringify(size)}`)
    await audit(t, page, '200% zoom')
    await context.close()
  })

  await t.test('the page of past reports: light, dark, and 320 px wide', async (t) => {
    for (const options of [{ width: 1280, height: 800 }, { width: 1280, height: 800, dark: true }, { width: 320, height: 640 }]) {
      const what = `history, ${options.width} px${options.dark ? ', dark' : ''}`
      const { context, page } = await open(browser, `${url}/history`, options)
      t.match(await page.locator('section[aria-labelledby="past-reports"]').innerText(), /Failed sign-ins/, `${what}: its reports`)
      const size = await noHorizontalScroll(page)
      t.ok(size.scrollWidth <= size.innerWidth, `${what}: no horizontal scroll: ${JSON.stringify(size)}`)
      await audit(t, page, what)
      await context.close()
    }
  })
})
