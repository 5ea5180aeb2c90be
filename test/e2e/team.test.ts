// A team in real headless Chromium: an owner invites a second user from Settings, then Members, the second user
// accepts the link as a viewer (no edit controls, a forced POST refused), is promoted to editor, and creates a
// monitor the owner then sees, and finds in the audit log. Screenshots go to test-output/screenshots/ (git-ignored).
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { hashPassword } from '../../src/auth/passwords.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'
import { buildTestApp } from '../helper.ts'
import { chromiumMissing as skip, launchChromium, screenshotPath } from '../support/chromium.ts'

const PASSWORD = 'a long enough e2e password'

t.test('an owner invites a colleague, who joins as a viewer, is promoted, and adds a monitor', { skip }, async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const people = await Promise.all(['ada', 'grace'].map(async (name) => {
    const user = await createUser(app.db, `${name}-${Date.now()}@example.com`)
    await setPasswordHash(app.db, user.id, await hashPassword(PASSWORD))
    return user
  }))
  const [ada, grace] = people

  /** A browser of its own per person: separate cookies. */
  async function browserOf (email: string): Promise<{ context: BrowserContext, page: Page }> {
    const { browser: context, page } = await launchChromium(t)
    page.on('dialog', (dialog) => dialog.accept())
    await page.goto(`${base}/sign-in`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${base}/`)
    return { context, page }
  }
  const { page: owner } = await browserOf(ada.email)
  const { page: colleague } = await browserOf(grace.email)

  await owner.goto(`${base}/settings/members`)
  await owner.getByLabel('Email').fill(grace.email)
  await owner.getByLabel('Role', { exact: true }).selectOption('viewer')
  await owner.getByRole('button', { name: 'Invite' }).click()
  const link = await owner.getByLabel('Invitation link').inputValue()
  t.match(link, /\/invitations\/[\w-]{43}$/)
  await owner.screenshot({ path: screenshotPath('team-01-invited'), fullPage: true })

  await colleague.goto(link.replace('http://localhost:3000', base))
  t.equal(await colleague.locator('h1').textContent(), `Join ${ada.email}`)
  await colleague.getByRole('button', { name: 'Accept and join' }).click()
  await colleague.waitForURL(`${base}/?notice=invitation-accepted`)
  t.match(await colleague.locator('.org').textContent(), '(viewer)')
  t.equal(await colleague.getByText('Add a monitor').count(), 0, 'a viewer sees no create form')
  await colleague.screenshot({ path: screenshotPath('team-02-viewer'), fullPage: true })
  // A forced POST, as a crafted form would send it, with the page's own CSRF token.
  const forced = await colleague.evaluate(async () => {
    const csrf = (document.querySelector('input[name="_csrf"]') as HTMLInputElement).value
    const res = await fetch('/monitors', { method: 'POST', body: new URLSearchParams({ _csrf: csrf, name: 'x', url: 'https://example.com' }) })
    return res.status
  })
  t.equal(forced, 403, 'a forced POST is refused')

  await owner.goto(`${base}/settings/members`)
  await owner.getByLabel(`Role of ${grace.email}`).selectOption('editor')
  await owner.locator(`form[action$="/role"]:has(#role-${grace.id})`).getByRole('button', { name: 'Save' }).click()
  await owner.waitForURL(`${base}/settings/members?notice=member-saved`)

  await colleague.goto(`${base}/`)
  t.match(await colleague.locator('.org').textContent(), '(editor)')
  // The organization has no monitors yet: the form is open.
  await colleague.getByLabel('Name').fill('Made by Grace')
  await colleague.getByLabel('URL').fill('https://example.com/health')
  await colleague.getByRole('button', { name: 'Add monitor' }).click()
  await colleague.waitForURL(/\/monitors\/[0-9a-f-]{36}\?notice=monitor-created$/)

  await owner.goto(`${base}/`)
  t.equal(await owner.getByRole('link', { name: 'Made by Grace', exact: true }).count(), 1, 'the owner sees the editor\'s monitor')
  await owner.screenshot({ path: screenshotPath('team-03-shared'), fullPage: true })

  // Settings, then Audit log: Grace's monitor, by Grace, newest first.
  await owner.getByRole('link', { name: 'Settings' }).click()
  await owner.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click()
  const newest = owner.locator('table.audit tbody tr').first()
  t.match(await newest.textContent(), new RegExp(`${grace.email.replace(/[.]/g, '\\.')} \\(user\\)\\s*monitor\\.created`))
  t.match(await newest.textContent(), 'Made by Grace')
  t.match(await owner.locator('table.audit').textContent(), 'member.role_changed', 'and the promotion before it')
  await owner.screenshot({ path: screenshotPath('team-04-audit-log'), fullPage: true })
})
