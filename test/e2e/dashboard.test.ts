// The dashboard end to end in real headless Chromium (Debian's /usr/bin/chromium via playwright-core): sign in,
// create a monitor and see it checked against a local target, create a key and use it, delete it and see the API
// refuse it, make a webhook channel, send it a test that arrives signed and have the monitor notify it, sign out. Screenshots of each page go to test-output/screenshots/ (git-ignored).
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { startChecker } from '../../src/checker/index.ts'
import { hashPassword } from '../../src/auth/passwords.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp, testConfig, until } from '../helper.ts'
import { chromiumMissing as skip, launchChromium, screenshotPath } from '../support/chromium.ts'
import { targetServer } from '../support/target-server.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const PASSWORD = 'a long enough e2e password'

t.test('a person runs Pingward from the dashboard, without curl', { skip }, async (t) => {
  // The local target the monitor checks.
  let targetHits = 0
  const target = await targetServer(t, (_req, res) => { targetHits++; res.end('ok') })
  const targetUrl = `${target.url}/health`

  const env = { ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const checker = startChecker({ config: testConfig(env), db: app.db, log: app.log })
  t.teardown(() => checker.stop())

  const user = await createUser(app.db, `e2e-${Date.now()}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))

  const { browser, page } = await launchChromium(t)
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
  page.on('dialog', (dialog) => dialog.accept())
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true })
  const heading = () => page.locator('h1').textContent()

  // Signed out, the dashboard sends us to sign in; the first Tab reaches the skip link.
  await page.goto(`${base}/`)
  t.equal(new URL(page.url()).pathname, '/sign-in')
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content', 'the skip link comes first')
  await shot('01-sign-in')

  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password').fill('not the password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  t.match(await page.getByRole('alert').textContent(), 'The email or password is incorrect.')
  await shot('02-sign-in-failed')

  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/`)
  t.equal(await heading(), 'Monitors')
  await shot('03-monitors-empty')

  // A bad value: the API's message appears next to the field, and what was typed is kept.
  await page.getByLabel('Name').fill('Local target')
  await page.getByLabel('URL').fill(targetUrl)
  await page.getByText('More settings').click()
  await page.getByLabel('Check every (minutes)').fill('0')
  await page.getByRole('button', { name: 'Add monitor' }).click()
  t.equal(await page.locator('#new-monitor-interval_minutes-error').textContent(), 'Check every (minutes) must be >= 1')
  t.equal(await page.getByLabel('Check every (minutes)').getAttribute('aria-invalid'), 'true')
  t.equal(await page.getByLabel('URL').inputValue(), targetUrl, 'the input is kept')
  await shot('04-monitor-validation')

  await page.getByLabel('Check every (minutes)').fill('1')
  await page.getByRole('button', { name: 'Add monitor' }).click()
  await page.waitForURL(/\/monitors\/[0-9a-f-]{36}\?notice=monitor-created$/)
  t.equal(await heading(), 'Local target')

  // The running checker checks it by itself: reload until the page says Up.
  const status = await until(async () => {
    const shown = await page.locator('.title-row .st').textContent()
    if (shown !== 'Up') await page.reload()
    return shown === 'Up' && shown
  }, 300)
  t.equal(status, 'Up', 'the monitor was checked and is up')
  t.ok(targetHits >= 1, 'the local target was requested')
  t.match(await page.locator('.stat-value').first().textContent(), '100%')
  t.equal(await page.locator('figure.chart svg[role="img"]').count(), 1, 'the response-time chart')
  t.ok(await page.locator('table').filter({ hasText: 'HTTP status' }).locator('tbody tr').count() >= 1, 'the check is listed')
  await shot('05-monitor')

  await page.getByRole('link', { name: 'Monitors' }).first().click()
  const row = page.locator('table.monitors tbody tr', { hasText: 'Local target' })
  t.equal(await row.locator('.st').textContent(), 'Up')
  t.equal(await row.locator('svg.spark').count(), 1, 'a sparkline')
  await shot('06-monitors')

  // Phone width: nothing wider than the screen.
  await page.setViewportSize({ width: 375, height: 800 })
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the monitors page fits 375 px')
  await shot('07-monitors-phone')
  await row.getByRole('link', { name: 'Local target', exact: true }).click()
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the monitor page fits 375 px')
  await shot('08-monitor-phone')
  await page.setViewportSize({ width: 1280, height: 900 })

  // Settings, then API Keys: create a key, shown once with a copy button.
  await page.getByRole('link', { name: 'Settings' }).click()
  t.equal(await heading(), 'API Keys')
  await page.getByLabel('Name').fill('e2e script')
  await page.getByLabel('Scope').selectOption('write')
  await page.getByRole('button', { name: 'Create key' }).click()
  const key = await page.locator('#new-key-value').inputValue()
  t.match(key, /^sk_[0-9A-Za-z]{38}$/)
  t.match(await page.locator('.new-key').textContent(), 'it will not be shown again')
  await page.getByRole('button', { name: 'Copy' }).click()
  await page.locator('.copy-status', { hasText: 'Copied' }).waitFor()
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the copy button copied the key')
  await shot('09-api-key-created')

  const api = (k: string) => fetch(`${base}/api/v1/monitors`, { headers: { authorization: `Bearer ${k}` } })
  const listed = await api(key)
  t.equal(listed.status, 200, 'the new key works against the API')
  t.same(((await listed.json()) as { data: Array<{ name: string }> }).data.map((m) => m.name), ['Local target'])

  await page.reload()
  t.equal(await page.locator('#new-key-value').count(), 0, 'a reload does not show the key again')
  const keyRow = page.locator('table.keys tbody tr', { hasText: 'e2e script' })
  t.match(await keyRow.textContent(), key.slice(0, 11), 'listed by its prefix')
  await keyRow.getByRole('button', { name: 'Delete key e2e script' }).click()
  await page.waitForURL(/notice=key-deleted/)
  t.equal(await page.locator('table.keys tbody tr', { hasText: 'e2e script' }).count(), 0)
  await shot('10-api-key-deleted')
  t.equal((await api(key)).status, 401, 'the deleted key is refused at once')

  // Settings, then Notifications: a webhook channel to a local receiver, its signing secret shown once, a test
  // that arrives signed, the delivery log with the attempt; then the monitor's form chooses the channel.
  const secrets: string[] = []
  const receiver = await webhookReceiver(t, { verifyWith: () => secrets })
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Notifications' }).click()
  t.equal(await heading(), 'Notifications')
  await page.getByRole('link', { name: 'Webhook', exact: true }).click()
  t.equal(await heading(), 'New Webhook channel')
  await page.getByLabel('Name').fill('e2e hook')
  await page.getByLabel('URL').fill('ftp://example.com/hook')
  await page.getByRole('button', { name: 'Create channel' }).click()
  t.equal(await page.locator('[id="new-channel-config/url-error"]').textContent(), 'URL must be an absolute http or https URL of at most 2048 characters')
  await shot('11-channel-validation')
  await page.getByLabel('URL').fill(`${receiver.url}/hook`)
  await page.getByRole('button', { name: 'Create channel' }).click()
  await page.waitForURL(/\/settings\/notifications\/[0-9a-f-]{36}\?notice=channel-created$/)
  const secret = await page.locator('#new-secret-value').inputValue()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.equal(await page.evaluate(() => document.activeElement?.id), 'new-secret', 'focus lands on the secret')
  secrets.push(secret)
  await shot('12-channel-created')

  await page.getByRole('button', { name: 'Send a test to e2e hook' }).click()
  t.match(await page.locator('#test-result').textContent(), /^Test delivered: HTTP 204, in \d+ ms\.$/)
  t.equal(receiver.received.length, 1)
  t.same(receiver.received[0].verifiedWith, [secret], 'signed with the secret shown (standardwebhooks verifies it)')
  t.equal(await page.locator('#new-secret-value').count(), 0, 'the secret is not shown again')
  t.equal(await page.locator('table.deliveries tbody tr').count(), 1, 'in the delivery log')
  t.match(await page.locator('ol.attempts li').textContent(), /: HTTP 204, \d+ ms$/, 'with its attempt')
  await shot('13-channel-tested')
  await page.setViewportSize({ width: 375, height: 800 })
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the channel page fits 375 px')
  await shot('14-channel-phone')
  await page.setViewportSize({ width: 1280, height: 900 })

  await page.getByRole('link', { name: 'Monitors' }).first().click()
  await page.getByRole('link', { name: 'Edit Local target' }).click()
  await page.getByLabel('e2e hook').check()
  await page.getByRole('button', { name: 'Save' }).click()
  await page.waitForURL(/notice=monitor-saved$/)
  t.match(await page.locator('.facts').textContent(), 'Notifiese2e hook', 'the monitor notifies the channel')
  await shot('15-monitor-notifies')

  // Sign out ends the session on the server, not only in this browser.
  const session = (await browser.cookies(base)).find((c) => c.name === 'pw_session')!
  t.equal(session.httpOnly, true)
  t.equal(session.sameSite, 'Lax')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(/\/sign-in\?notice=signed-out$/)
  t.match(await page.getByRole('status').textContent(), 'You have signed out.')
  await shot('16-signed-out')
  const reuse = await fetch(`${base}/`, { headers: { cookie: `pw_session=${session.value}` }, redirect: 'manual' })
  t.equal(reuse.status, 303, 'the old session cookie no longer signs anyone in')
  t.equal(reuse.headers.get('location'), '/sign-in?next=%2F')
})

t.test('the monitor form shows only the chosen kind\'s fields, and a heartbeat\'s ping URL is copied', { skip }, async (t) => {
  const PUBLIC_URL = 'https://pingward.example.com'
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL } })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const user = await createUser(app.db, `e2e-kinds-${Date.now()}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))

  const { browser, page } = await launchChromium(t)
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(user.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/`)

  // Each group of kind fields: which kinds it is for, whether it is hidden, whether all its inputs are disabled.
  const groups = () => page.locator('#new-monitor [data-kinds]').evaluateAll((elements) => elements.map((e) => ({
    kinds: e.getAttribute('data-kinds'),
    hidden: (e as HTMLElement).hidden && getComputedStyle(e).display === 'none',
    disabled: [...e.querySelectorAll('input, select, textarea')].every((i) => (i as HTMLInputElement).disabled),
  })))
  const shownFor = async () => (await groups()).filter((g) => !g.hidden).map((g) => g.kinds)
  t.same(await shownFor(), ['site tcp dns', 'site', 'site tcp dns', 'site'], 'a site: its own fields, with the url and timeout')

  await page.getByLabel('Kind').selectOption('tcp')
  t.same(await shownFor(), ['site tcp dns', 'site tcp dns'], 'tcp: the url and the timeout only')
  t.ok((await groups()).every((g) => g.hidden === g.disabled), 'every hidden input is disabled, every shown one enabled')
  t.equal(await page.locator('label[for="new-monitor-url"]').textContent(), 'Host and port', 'the url\'s label is tcp\'s')
  t.equal(await page.getByLabel('Host and port').getAttribute('placeholder'), 'tcp://host:port')

  await page.getByLabel('Kind').selectOption('dns')
  t.same(await shownFor(), ['site tcp dns', 'dns', 'site tcp dns'])
  t.equal(await page.getByLabel('Host to look up').getAttribute('placeholder'), 'dns://example.com')

  await page.getByLabel('Kind').selectOption('heartbeat')
  t.same(await shownFor(), ['heartbeat'])
  t.ok(await page.locator('#new-monitor-url').isDisabled(), 'a heartbeat sends no url')
  await page.getByLabel('Name').fill('Nightly backup')
  await page.getByLabel('Grace (minutes)').fill('5')
  await page.screenshot({ path: screenshotPath('17-heartbeat-form'), fullPage: true })
  await page.getByRole('button', { name: 'Add monitor' }).click()
  await page.waitForURL(/\/monitors\/[0-9a-f-]{36}\?notice=heartbeat-created$/)

  const pingUrl = await page.locator('#ping-url').inputValue()
  t.match(pingUrl, new RegExp(`^${PUBLIC_URL}/ping/\\S+$`), 'the absolute ping URL')
  t.match(await page.locator('pre.curl').textContent(), `curl -fsS -m 10 --retry 3 ${pingUrl}/fail`)
  await page.getByRole('button', { name: 'Copy' }).click()
  await page.locator('.copy-status', { hasText: 'Copied' }).waitFor()
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), pingUrl, 'Copy put the ping URL on the clipboard')
  await page.screenshot({ path: screenshotPath('18-heartbeat-monitor'), fullPage: true })
})
