// Redirect targets from the dashboard's `next` and `back` parameters: always a safe local Location, never a 500.
import t from 'tap'
import { localPath } from '../../src/dashboard/respond.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { buildTestApp, testAudit } from '../helper.ts'
import { signedIn } from './dashboard-helper.ts'

// Characters a Location header cannot carry as they are: outside Latin-1, DEL, the line and paragraph
// separators, a lone surrogate (not even UTF-8), and Latin-1 letters that Node would send as raw bytes.
// Test names escaped: a raw U+2028 in a name ends the TAP line.
const named = (value: string) => value.replace(/[^\x21-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

const HOSTILE = ['/\u0100', '/\u007f', '/\u2028', '/\u2029', '/\ud800', '/a\udfffb', '/\u00e9', '/\u{1f600}', '/x y']

t.test('localPath gives a Location of printable ASCII only, or the fallback', async (t) => {
  for (const value of HOSTILE) {
    const path = localPath(value)
    t.match(path, /^\/[\x21-\x7e]*$/, named(value))
  }
  t.equal(localPath('/\u00e9t\u00e9?q=\u2028'), '/%C3%A9t%C3%A9?q=%E2%80%A8', 'characters are percent-encoded as UTF-8')
  t.equal(localPath('/monitors?status=down&q=%C3%A9'), '/monitors?status=down&q=%C3%A9', 'an encoded path is kept as it is')
  t.equal(localPath('/\ud800'), '/', 'a lone surrogate has no encoding: the fallback')
  t.equal(localPath('/\t/evil.example'), '/', 'control characters that browsers strip still refuse')
})

t.test('a signed-in sign-in page and a row action redirect safely whatever next/back hold', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const monitor = await createMonitor(app.db, { orgId: browser.user.id }, withMonitorDefaults({ name: 'Target', url: 'https://example.com' }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })
  for (const value of HOSTILE) {
    const page = await browser.get(`/sign-in?${new URLSearchParams({ next: value })}`)
    t.equal(page.statusCode, 303, `next=${named(value)}`)
    t.match(page.headers.location, /^\/[\x21-\x7e]*$/)
    const action = await browser.post(`/monitors/${monitor.id}/pause`, { back: value })
    t.equal(action.statusCode, 303, `back=${named(value)}`)
    t.match(action.headers.location, /^\/[\x21-\x7e]*\?notice=monitor-paused$/)
  }
  for (const raw of ['%2F%ED%A0%80', '%2F%FF', '%2F%C0%AF', '%2F%E2%80%A8%7F']) {
    const page = await browser.get(`/sign-in?next=${raw}`)
    t.equal(page.statusCode, 303, `next=${raw}, not UTF-8 or hostile`)
    t.match(page.headers.location, /^\/[\x21-\x7e]*$/)
  }
})
