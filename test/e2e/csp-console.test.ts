// In real headless Chromium (Debian's /usr/bin/chromium via playwright-core): Swagger UI at /docs and the dashboard's
// pages run under their Content Security Policies without a single violation (the browser's own
// `securitypolicyviolation` events and its console errors), and the browser's icon requests are answered.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { Page } from 'playwright-core'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { buildTestApp, makeUser, testAudit } from '../helper.ts'
import { chromiumMissing as skip, launchChromium } from '../support/chromium.ts'
import { makeDashboardUser, PASSWORD } from '../dashboard/dashboard-helper.ts'

/** Every CSP violation the page reports, and every console error, from before its first script runs. */
async function watch (page: Page) {
  const violations: string[] = []
  const errors: string[] = []
  const answers: Array<{ path: string, status: number }> = []
  await page.exposeFunction('reportViolation', (text: string) => { violations.push(text) })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { reportViolation: (text: string) => void })
        .reportViolation(`${e.violatedDirective} refused ${e.blockedURI || 'an inline'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`)
    })
  })
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
  page.on('response', (response) => { answers.push({ path: new URL(response.url()).pathname, status: response.status() }) })
  return { violations, errors, answers }
}

t.test('Swagger UI and the dashboard report no CSP violation and no console error', { skip }, async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const { user } = await makeUser(app)
  await createMonitor(app.db, { orgId: user.id }, withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  const person = await makeDashboardUser(app)

  const { page } = await launchChromium(t)
  const seen = await watch(page)

  await page.goto(`${base}/docs`)
  const operation = page.locator('#operations-monitors-listMonitors')
  await operation.waitFor({ state: 'visible' })
  // Open an operation, a schema and the Authorize dialog: more of Swagger UI renders (examples, models, the modal).
  await operation.locator('.opblock-summary').first().click()
  await operation.locator('button.try-out__btn').waitFor({ state: 'visible' })
  await page.locator('section.models .json-schema-2020-12-accordion').first().click()
  await page.locator('section.models .json-schema-2020-12-body').first().waitFor({ state: 'visible' })
  await page.locator('button.authorize').first().click()
  await page.locator('.modal-ux').waitFor({ state: 'visible' })
  t.same(seen.violations, [], '/docs: no CSP violation')
  t.same(seen.errors, [], '/docs: no console error')
  seen.violations.length = seen.errors.length = 0

  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(person.email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${base}/`)
  t.same(seen.violations, [], 'the dashboard: no CSP violation')
  t.same(seen.errors, [], 'the dashboard: no console error')
  const icon = seen.answers.find((a) => a.path === '/assets/favicon.svg')
  t.same(icon, { path: '/assets/favicon.svg', status: 200 }, 'the dashboard\'s icon loaded')
  t.same((await page.request.get(`${base}/favicon.ico`)).status(), 200, '/favicon.ico is there for the browsers that ask for it')
  t.same(seen.answers.filter((a) => a.status >= 400), [], 'nothing the pages asked for failed')
})
