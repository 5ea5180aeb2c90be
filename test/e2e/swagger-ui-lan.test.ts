// Swagger UI on a LAN over plain http, in real headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// the server listens on every address (HOST=0.0.0.0) and is opened at a name that is not localhost (browsers
// treat localhost as secure, which would hide the bug) and at the machine's own address. The document renders and
// Try it out lists the caller's monitors with a key. Before, /docs sent upgrade-insecure-requests: every asset was
// asked of https://, and the page stayed blank.
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import t from 'tap'
import { buildTestApp, makeMonitor, makeUser } from '../helper.ts'
import { chromiumMissing as skip, launchChromium } from '../support/chromium.ts'

const LAN_NAME = 'pingward.lan'
// This machine's own non-loopback IPv4 address, if it has one; the LAN name resolves to it (else to loopback).
const OWN_ADDRESS = Object.values(networkInterfaces()).flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address
const ARGS = [`--host-resolver-rules=MAP ${LAN_NAME} ${OWN_ADDRESS ?? '127.0.0.1'}`]

t.test('Swagger UI at a LAN name over plain http renders and Try it out works', { skip }, async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '0.0.0.0', port: 0 })
  const port = (app.server.address() as AddressInfo).port
  const { auth, key } = await makeUser(app)
  await makeMonitor(app, auth, { name: 'Seen from the LAN' })

  const { page } = await launchChromium(t, { args: ARGS })
  // What the browser refused or could not load: the diagnosis when the page stays blank.
  const failures: string[] = []
  page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`))
  // (CSP violations of any kind: test/e2e/csp-console.test.ts.)
  page.on('console', (message) => {
    if (message.type() === 'error' && /failed to load|mixed content|insecure/i.test(message.text())) failures.push(`console: ${message.text()}`)
  })

  const hosts = [LAN_NAME, ...(OWN_ADDRESS ? [OWN_ADDRESS] : [])]
  for (const host of hosts) {
    const base = `http://${host}:${port}`
    failures.length = 0
    await page.goto(`${base}/docs`)
    const operation = page.locator('#operations-monitors-listMonitors')
    await operation.waitFor({ state: 'visible', timeout: 20_000 }).catch(() => {})
    t.ok(await operation.isVisible(), `${base}/docs renders the operations; failures: ${failures.join('; ') || 'none'}`)
    if (!await operation.isVisible()) return
    t.ok(await page.locator('.opblock').count() > 10, 'every operation is listed')
    t.same(failures, [], 'every asset loaded over http')
    t.equal(new URL(page.url()).protocol, 'http:', 'still on http')
  }

  // Try it out, at the LAN name: authorize with the key, list the monitors, see 200 and the monitor.
  await page.goto(`http://${LAN_NAME}:${port}/docs`)
  await page.locator('button.authorize').first().click()
  const scheme = page.locator('.modal-ux form', { hasText: 'bearerAuth' })
  await scheme.locator('input').first().fill(key)
  await scheme.locator('button.authorize').click()
  await page.locator('.modal-ux button.btn-done').first().click()
  const operation = page.locator('#operations-monitors-listMonitors')
  await operation.locator('.opblock-summary').first().click()
  await operation.locator('button.try-out__btn').click()
  await operation.locator('button.execute').click()
  const status = operation.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor({ timeout: 20_000 })
  t.equal((await status.textContent())?.trim(), '200', 'Try it out succeeded')
  t.match(await operation.locator('.live-responses-table .response .response-col_description').first().textContent(), 'Seen from the LAN',
    'the body lists the key owner\'s monitor')
  t.match(await operation.locator('.request-url').first().textContent(), `http://${LAN_NAME}:${port}/api/v1/monitors`,
    'the request went to the server the page came from')
  t.same(failures, [], 'no request failed')
})
