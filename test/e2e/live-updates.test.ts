// Live updates in real headless Chromium, straight to Pingward and through the nginx and Caddy of docs/deploy/: a
// heartbeat's ping shows on the open monitor list, a failed ping on the open monitor page (status, incident, checks),
// with no reload (a marker set on the page survives), and a relative time moves on worded as the server words it.
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { request as httpRequest } from 'undici'
import { hashPassword } from '../../src/auth/passwords.ts'
import { ago } from '../../src/dashboard/format.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp, makeKey, makeMonitor } from '../helper.ts'
import { chromiumMissing, launchChromium } from '../support/chromium.ts'
import { CADDY, NGINX, skipWithout, startCaddy, startNginx } from '../deploy/proxies.ts'

const PASSWORD = 'a long enough live-updates password'

// CI has Chromium: a missing one fails there.
const noChromium = process.env.CI ? false : chromiumMissing

type Via = 'direct' | 'nginx' | 'caddy'

/** Waits for the page's event stream to be open: what happens from then on reaches it. */
const listening = (page: Page) => page.waitForFunction(() => document.documentElement.getAttribute('data-live-state') === 'open')

async function scenario (t: Test, via: Via) {
  const { app } = await buildTestApp(t, { env: { TRUST_PROXY: '127.0.0.1' } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as AddressInfo).port
  const direct = `http://127.0.0.1:${port}`
  const base = via === 'nginx' ? (await startNginx(t, port)).url : via === 'caddy' ? (await startCaddy(t, port)).url : direct

  const user = await createUser(app.db, `live-${via}-${Date.now()}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))
  const { auth } = await makeKey(app, user.id)
  const monitor = await makeMonitor(app, auth, {
    monitor_type: 'heartbeat', url: undefined, name: 'Nightly backup', interval_minutes: 60, grace_minutes: 5, failure_threshold: 1,
  })
  const ping = async (suffix = '') => {
    const res = await httpRequest(`${direct}${new URL(monitor.ping_url, direct).pathname}${suffix}`)
    await res.body.dump()
    t.equal(res.statusCode, 200, `ping${suffix}`)
  }

  const { page } = await launchChromium(t, { ignoreHTTPSErrors: true })
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/`)

  // The list: pending and never pinged, then up and just now, without a reload.
  const row = page.locator('table.monitors tbody tr', { hasText: 'Nightly backup' })
  t.equal(await row.locator('.st').textContent(), 'Pending', 'never pinged')
  await listening(page)
  await page.evaluate(() => { (window as unknown as { marker: string }).marker = 'not reloaded' })
  await ping()
  await row.locator('.st', { hasText: 'Up' }).waitFor()
  t.equal(await row.locator('time').textContent(), 'just now', 'up, pinged just now')
  t.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'not reloaded', 'the list followed without a reload')

  // The monitor's page: a failed ping turns it down, opens an incident and adds a check, without a reload.
  await page.goto(`${base}/monitors/${monitor.id}`)
  await listening(page)
  await page.evaluate(() => { (window as unknown as { marker: string }).marker = 'not reloaded' })
  t.equal(await page.locator('section[aria-labelledby="checks-title"] tbody tr').count(), 1, 'one check: the ping')
  await ping('/fail')
  await page.locator('.title-row .st', { hasText: 'Down' }).waitFor()
  await page.locator('section[aria-labelledby="incidents-title"] tbody tr', { hasText: 'Ongoing' }).waitFor()
  t.equal(await page.locator('section[aria-labelledby="checks-title"] tbody tr').count(), 2, 'the failed ping is the newest check')
  t.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'not reloaded', 'the page followed without a reload')

  // A relative time moves on with the clock, worded as format.ts's ago() words it.
  const then = new Date(Date.now() - (2 * 3600 + 5 * 60 + 30) * 1000)
  await page.evaluate((iso) => {
    document.querySelector('main')!.insertAdjacentHTML('beforeend', `<p><time id="tick" data-ago datetime="${iso}">long ago</time></p>`)
  }, then.toISOString())
  await page.waitForFunction(() => document.getElementById('tick')!.textContent !== 'long ago')
  t.equal(await page.locator('#tick').textContent(), ago(then, new Date()).value.replace(/<[^>]+>/g, ''), 'as the server words it')
}

for (const [via, skip] of [
  ['direct', noChromium],
  ['nginx', noChromium || skipWithout(NGINX, 'nginx')],
  ['caddy', noChromium || skipWithout(CADDY, 'caddy')],
] as const) {
  t.test(`an open page follows a ping without a reload (${via})`, { skip }, (t) => scenario(t, via))
}
