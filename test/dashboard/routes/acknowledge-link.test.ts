// The one-click acknowledge link a notification carries: a real webhook receiver gets it (signature verified by
// standardwebhooks), a GET only shows the page, its button acknowledges without signing in and stops reminders;
// a second use, a tampered, expired or revoked link changes nothing.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { signAcknowledgeLink } from '../../../src/auth/acknowledge-links.ts'
import { recordCheck } from '../../../src/checks/record-check.ts'
import { notificationChannels } from '../../../src/db/schema.ts'
import { deliveryOptionsFromConfig } from '../../../src/notifications/deliver.ts'
import { DeliveryWorker } from '../../../src/notifications/delivery-worker.ts'
import { sendDueReminders } from '../../../src/notifications/reminders.ts'
import { serverSecret } from '../../../src/repositories/server-secrets.ts'
import { buildTestApp, makeMonitor, makeUser, request, testConfig } from '../../helper.ts'
import { webhookReceiver } from '../../support/webhook-receiver.ts'
import { newSecret } from '../../notifications/delivery-helper.ts'
import { FORM, cookieOf, csrfOf, encode, failedCheck } from '../dashboard-helper.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent', silent () {} } as never
const ENV = { ALLOW_PRIVATE_TARGETS: 'true', PUBLIC_URL: 'https://pingward.example.org' }

t.test('a notification\'s acknowledge link acknowledges with one button, once, and stops reminders', async (t) => {
  const { app } = await buildTestApp(t, { env: ENV })
  const owner = await makeUser(app)
  const secret = newSecret()
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  const [channel] = await app.db.insert(notificationChannels).values({
    orgId: owner.orgId, name: 'On-call hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, events: ['incident.opened'], allMonitors: true, secret, reminderMinutes: 5,
  }).returning()
  const monitor = await makeMonitor(app, owner.auth, { name: 'Shop', failure_threshold: 1 })
  const opened = new Date()
  await recordCheck(app.db, monitor.id, failedCheck(opened), 30_000)
  const worker = new DeliveryWorker({ ...deliveryOptionsFromConfig(testConfig(ENV)), db: app.db, log: silent, concurrency: 1 })
  t.teardown(() => worker.stop())
  await worker.runOnce()
  const [{ payload, verifiedWith }] = await receiver.waitFor(1)
  t.strictSame(verifiedWith, [secret], 'signed')
  const link = new URL(payload.data.acknowledge_url)
  t.equal(link.origin, 'https://pingward.example.org', 'made from PUBLIC_URL')
  const incidentId = payload.data.incident.id
  const incident = async () => (await request(app, owner.auth, { url: `/api/v1/incidents/${incidentId}` })).json().data

  // A link scanner or a preview fetches it: nothing changes.
  const page = await app.inject({ url: link.pathname })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<h1>Shop is down</h1>')
  t.match(page.body, 'Acknowledge: I am on it</button>')
  t.equal((await incident()).acknowledged_at, null, 'a GET acknowledges nothing')
  t.equal(await sendDueReminders(app.db, new Date(opened.getTime() + 6 * 60_000)), 1, 'unacknowledged: a reminder')

  const cookie = `pw_csrf=${cookieOf(page, 'pw_csrf')}`
  const press = () => app.inject({ method: 'POST', url: link.pathname, headers: { ...FORM, cookie }, payload: encode({ _csrf: csrfOf(page.body) }) })
  const noCsrf = await app.inject({ method: 'POST', url: link.pathname, headers: { ...FORM, cookie }, payload: encode({}) })
  t.equal(noCsrf.statusCode, 403, 'the button\'s form carries a CSRF token like every form')
  const pressed = await press()
  t.equal(pressed.statusCode, 303)
  const after = await app.inject({ url: pressed.headers.location as string })
  t.match(after.body, 'by acknowledge link sent to On-call hook. This link has done its work.')
  const acknowledged = await incident()
  t.match(acknowledged, { acknowledged_by: { type: 'system', id: null, label: 'acknowledge link sent to On-call hook' } })
  t.same(acknowledged.timeline.map((e: { kind: string }) => e.kind).filter((kind: string) => kind === 'acknowledged'), ['acknowledged'])
  t.equal(await sendDueReminders(app.db, new Date(opened.getTime() + 60 * 60_000)), 0, 'acknowledged: reminders stop')

  t.equal((await press()).statusCode, 303, 'pressed again')
  t.equal((await incident()).acknowledged_at, acknowledged.acknowledged_at, 'the first acknowledgement stands')
  const events = (await request(app, owner.auth, { url: `/api/v1/audit-events?entity_id=${incidentId}` })).json().data
  t.match(events, [{ action: 'incident.acknowledged', actor: { type: 'system', label: 'acknowledge link sent to On-call hook' } }])
  t.equal(events.length, 1, 'audited once')

  const token = link.pathname.split('/')[2]
  const tampered = `${token.slice(0, 40)}${token[40] === 'A' ? 'B' : 'A'}${token.slice(41)}`
  t.equal((await app.inject({ url: `/acknowledge/${tampered}` })).statusCode, 404, 'a changed link is refused')
  const key = await serverSecret(app.db, 'acknowledge_links')
  const expired = signAcknowledgeLink(key, { incidentId, channelId: channel.id, expiresAt: new Date(Date.now() - 1000) })
  const old = await app.inject({ url: `/acknowledge/${expired}` })
  t.same([old.statusCode, /has expired/.test(old.body)], [404, true], 'an expired link says so')
  await app.db.delete(notificationChannels).where(eq(notificationChannels.id, channel.id))
  t.equal((await app.inject({ url: link.pathname })).statusCode, 404, 'deleting the channel revokes its links')
})
