// Subscribers of a status page (api-contract section 16), against a real SMTP server: double opt-in (a GET of the
// mail's link changes nothing), each report update and maintenance announcement mailed to confirmed subscribers
// with RFC 8058's one-click unsubscribe, and 10,000 subscriber mails that do not hold up an alert's delivery.
import t, { type Test } from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { startDeliveryWorker } from '../../src/notifications/delivery-worker.ts'
import { startSubscriberMailer } from '../../src/status-pages/mailer.ts'
import { announceWindows } from '../../src/status-pages/subscribers.ts'
import { buildTestApp, makeMonitor, makeTeam, request, testConfig, until } from '../helper.ts'
import { smtpServer, type SmtpOptions } from '../support/smtp-server.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const silent = { info () {}, warn () {}, error () {}, debug () {}, trace () {}, fatal () {}, child () { return silent }, level: 'silent' } as never

async function setUp (t: Test, smtpOptions: SmtpOptions = {}) {
  const smtp = await smtpServer(t, smtpOptions)
  const env = { SMTP_URL: smtp.url, SMTP_FROM: 'Acme status <status@acme.example>', ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const team = await makeTeam(app)
  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    request(app, team.auth, { method, url: `/api/v1${url}`, ...(payload ? { payload: payload as Record<string, unknown> } : {}) })
  const slug = `acme-${Math.random().toString(36).slice(2, 8)}`
  const page = (await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })).json().data
  const mailer = startSubscriberMailer({ config: testConfig(env), db: app.db, log: silent, clock: () => new Date() })
  t.teardown(() => mailer.stop())
  const form = (path: string, body: Record<string, string>) => app.inject({
    method: 'POST', url: `/status/${slug}${path}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(body).toString(),
  })
  return { app, smtp, env, team, api, slug, page, mailer, form }
}

/** A header as the mail carried it (mailparser folds List-* headers into one object). */
const rawHeader = (mail: { headerLines: ReadonlyArray<{ key: string, line: string }> }, name: string) =>
  mail.headerLines.find((header) => header.key === name)?.line.slice(name.length + 1).trim()

const linkIn = (text: string, kind: 'subscription' | 'unsubscribe') => new RegExp(`https?://\\S+/${kind}\\?token=[\\w-]+`).exec(text)?.[0]

t.test('double opt-in, each update and announcement to confirmed subscribers, one-click unsubscribe', async (t) => {
  const { app, smtp, api, slug, page, mailer, form, team } = await setUp(t)
  const home = await app.inject({ url: `/status/${slug}` })
  t.match(home.body, `<form method="post" action="/status/${slug}/subscribe">`, 'the page offers subscriptions')

  const asked = await form('/subscribe', { email: 'reader@example.com' })
  t.equal(asked.statusCode, 200)
  t.match(asked.body, /Check your inbox/)
  const json = await app.inject({ method: 'POST', url: `/status/${slug}/subscribe`, payload: { email: 'other@example.com' } })
  t.equal(json.statusCode, 202)
  const bad = await app.inject({ method: 'POST', url: `/status/${slug}/subscribe`, payload: { email: 'not an address' } })
  t.same([bad.statusCode, bad.json()], [400, { error: 'body/email must be an email address' }])
  await mailer.drain()
  t.same(smtp.received.map((m) => m.envelope.to).sort(), [['other@example.com'], ['reader@example.com']])
  const confirmation = smtp.received.find((m) => m.envelope.to[0] === 'reader@example.com')!.mail
  t.equal(confirmation.subject, 'Confirm your subscription to Acme status')
  t.equal(rawHeader(confirmation, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click')
  const manage = linkIn(confirmation.text!, 'subscription')!
  t.ok(manage, `the mail links to the subscriber's page (${manage})`)

  await form('/subscribe', { email: 'READER@example.com' })
  await mailer.drain()
  t.equal(smtp.received.length, 2, 'asking again within 10 minutes sends nothing more (and says the same)')

  const report = (await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Slow API', message: 'Looking into it.' })).json().data
  await mailer.drain()
  t.equal(smtp.received.length, 2, 'no news before the confirmation')
  const path = new URL(manage).pathname + new URL(manage).search
  const opened = await app.inject({ url: path })
  t.equal(opened.statusCode, 200)
  t.match(opened.body, /Confirm your subscription[\s\S]*<button type="submit"[^>]*>Confirm<\/button>/)
  await api('POST', `/status-reports/${report.id}/updates`, { status: 'identified', message: 'A bad deploy.' })
  await mailer.drain()
  t.equal(smtp.received.length, 2, 'opening the link (a GET, as a mail scanner does) confirmed nothing')

  const token = new URL(manage).searchParams.get('token')!
  const confirmed = await form('/subscription/confirm', { token })
  t.equal(confirmed.statusCode, 200)
  t.match(confirmed.body, /Subscribed/)
  await api('POST', `/status-reports/${report.id}/updates`, { status: 'resolved', message: 'Rolled back; all good.' })
  await mailer.drain()
  const update = smtp.received.at(-1)!
  t.same(update.envelope.to, ['reader@example.com'])
  t.equal(update.mail.subject, '[Resolved] Slow API')
  t.match(update.mail.text, /Rolled back; all good\./)
  t.equal(rawHeader(update.mail, 'list-unsubscribe-post'), 'List-Unsubscribe=One-Click')
  const unsubscribeUrl = /^<([^>]+)>$/.exec(rawHeader(update.mail, 'list-unsubscribe')!)![1]
  t.equal(linkIn(unsubscribeUrl, 'unsubscribe'), unsubscribeUrl)

  const monitor = await makeMonitor(app, team.auth)
  await api('POST', `/status-pages/${page.id}/components`, { name: 'API', monitor_id: monitor.id })
  const starts = new Date(Date.now() + 86_400_000)
  const windows = [
    await api('POST', '/maintenance-windows', { title: 'Database upgrade', starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + 3_600_000).toISOString(), monitor_ids: [monitor.id] }),
    await api('POST', '/maintenance-windows', { title: 'Elsewhere', starts_at: starts.toISOString(), ends_at: new Date(starts.getTime() + 3_600_000).toISOString(), all_monitors: true }),
  ].map((res) => res.json().data.id as string)
  // The mailer's own pass may hold one window, uncommitted, while this one runs: wait for both to commit.
  await announceWindows(app.db, new Date())
  await until(async () => rowsOf<{ n: number }>(await app.db.execute(sql`select count(*)::int as n from status_page_announcements
    where window_id in (${windows[0]}, ${windows[1]})`))[0].n === 2)
  t.equal(await announceWindows(app.db, new Date()), 0, 'every window is announced')
  await mailer.drain()
  t.same(smtp.received.map((m) => m.mail.subject).filter((subject) => subject?.startsWith('[Maintenance]')).sort(),
    ['[Maintenance] Database upgrade', '[Maintenance] Elsewhere'], 'one mail each')

  const oneClick = await app.inject({
    method: 'POST',
    url: new URL(unsubscribeUrl).pathname + new URL(unsubscribeUrl).search,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  })
  t.equal(oneClick.statusCode, 200, 'RFC 8058: a POST of List-Unsubscribe=One-Click to the header\'s URL')
  const count = smtp.received.length
  await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Another', message: 'Again.' })
  await mailer.drain()
  t.equal(smtp.received.length, count, 'nothing after the unsubscription')
  t.equal((await app.inject({ url: path })).statusCode, 404, 'the link is gone')
})

t.test('without SMTP_URL a page takes no subscriptions', async (t) => {
  const { app } = await buildTestApp(t)
  const team = await makeTeam(app)
  await request(app, team.auth, { method: 'POST', url: '/api/v1/status-pages', payload: { slug: 'quiet-page', title: 'Quiet', published: true } })
  t.notMatch((await app.inject({ url: '/status/quiet-page' })).body, /subscribe/)
  const res = await app.inject({ method: 'POST', url: '/status/quiet-page/subscribe', payload: { email: 'reader@example.com' } })
  t.same([res.statusCode, res.json()], [404, { error: 'This page takes no subscriptions' }])
})

t.test('10,000 subscriber mails queued before an alert do not hold up its delivery, by webhook or by mail', async (t) => {
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  // Subscribers' mail waits at the SMTP server until the alerts are in: a queue that cannot drain meanwhile.
  const { app, smtp, env, api, page, team } = await setUp(t, { slow: (to) => to[0].endsWith('@readers.test') ? held : undefined })
  t.teardown(() => release())
  await app.db.execute(sql`insert into status_page_subscribers (page_id, email, token, confirmed_at)
    select ${page.id}, 'reader' || n || '@readers.test', 'token-' || n, now() from generate_series(1, 10000) n`)
  await api('POST', '/status-reports', { status_page_ids: [page.id], title: 'Planned change', message: 'Heads up.' })
  const queued = rowsOf<{ count: number }>(await app.db.execute(sql`select count(*)::int as count from status_page_mails where sent_at is null`))[0].count
  t.equal(queued, 10_000, 'the report\'s update is queued to every subscriber, in its transaction')

  const receiver = await webhookReceiver(t, { verifyWith: () => [hook.secret] })
  const hook = (await api('POST', '/notification-channels', { name: 'hook', type: 'webhook', config: { url: receiver.url }, all_monitors: true })).json().data
  await api('POST', '/notification-channels', { name: 'ops', type: 'email', config: { to: ['ops@alerts.test'] }, all_monitors: true })
  const worker = startDeliveryWorker({ config: testConfig(env), db: app.db, log: silent })
  t.teardown(() => worker.stop())
  await until(async () => rowsOf<{ count: number }>(await app.db.execute(sql`select count(*)::int as count from status_page_mails where due_at > now()`))[0].count > 0, 20)
  t.comment('the subscriber mailer has claimed its first mails')

  const monitor = await makeMonitor(app, team.auth, { failure_threshold: 1 })
  await recordCheck(app.db, monitor.id, { isUp: false, statusCode: 503, responseTimeMs: 9, errorMessage: 'expected status 200, got 503', checkedAt: new Date() }, 30_000)
  await until(() => receiver.received.some((r) => r.payload?.type === 'incident.opened'))
  await until(() => smtp.received.some((m) => m.envelope.to.includes('ops@alerts.test')))
  const sent = rowsOf<{ count: number }>(await app.db.execute(sql`select count(*)::int as count from status_page_mails where sent_at is not null`))[0].count
  t.equal(sent, 0, 'the alert was delivered by webhook and by mail while not one subscriber mail had gone')
  release()
})
