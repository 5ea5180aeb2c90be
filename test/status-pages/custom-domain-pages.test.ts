// A status page on its verified custom domain takes subscriptions: its form posts to /subscribe there and the mails link
// to the page's own address (PUBLIC_URL's), whose links need only their token; it pages through its past reports at
// /history there. An unverified domain, another organization's or a forged X-Forwarded-Host serve nothing.
import { sql } from 'drizzle-orm'
import pino from 'pino'
import t from 'tap'
import { startSubscriberMailer } from '../../src/status-pages/mailer.ts'
import { makeTeam, testConfig, until } from '../helper.ts'
import { DOMAIN, PUBLIC_URL, customDomainApp as setUp } from '../support/custom-domain-app.ts'
import { smtpServer } from '../support/smtp-server.ts'

t.test('on its domain the page\'s form subscribes at /subscribe; the mail links to the page\'s own address', async (t) => {
  const smtp = await smtpServer(t)
  const env = { SMTP_URL: smtp.url, SMTP_FROM: 'Acme status <status@acme.example>' }
  const { app, makePage, publish, api, onHost } = await setUp(t, env)
  const mailer = startSubscriberMailer({ config: testConfig({ ...env, PUBLIC_URL }), db: app.db, log: pino({ level: 'silent' }), clock: () => new Date() })
  t.teardown(() => mailer.stop())
  const subscribe = (host: string, email: string, headers: Record<string, string> = {}) => app.inject({
    method: 'POST', url: '/subscribe', headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams({ email }).toString(),
  })
  const page = await makePage({ custom_domain: DOMAIN })
  const early = await subscribe(DOMAIN, 'early@example.com')
  t.same([early.statusCode, early.json()], [404, { error: 'Status page not found' }], 'an unverified domain takes no subscription')
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)

  const home = await onHost(DOMAIN)
  t.match(home.body, '<form method="post" action="/subscribe">', 'the page on its domain offers subscriptions, posting there')
  const asked = await subscribe(DOMAIN, 'reader@example.com')
  t.equal(asked.statusCode, 200)
  t.match(asked.body, /Check your inbox/)
  const json = await app.inject({ method: 'POST', url: '/subscribe', headers: { host: DOMAIN }, payload: { email: 'other@example.com' } })
  t.equal(json.statusCode, 202, 'JSON too')
  const bad = await app.inject({ method: 'POST', url: '/subscribe', headers: { host: DOMAIN }, payload: { email: 'not an address' } })
  t.same([bad.statusCode, bad.json()], [400, { error: 'body/email must be an email address' }])
  await mailer.drain()
  t.same(smtp.received.map((m) => m.envelope.to[0]).sort(), ['other@example.com', 'reader@example.com'])
  const confirmation = smtp.received.find((m) => m.envelope.to[0] === 'reader@example.com')!.mail
  t.equal(confirmation.subject, 'Confirm your subscription to Acme status')
  const manage = new URL(new RegExp(`${PUBLIC_URL}/status/${page.slug}/subscription\\?token=[\\w-]+`).exec(confirmation.text!)![0])
  const token = manage.searchParams.get('token')!
  const confirmed = await app.inject({
    method: 'POST', url: `/status/${page.slug}/subscription/confirm`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}`,
  })
  t.equal(confirmed.statusCode, 200)
  t.match(confirmed.body, /Subscribed/)

  // Nothing else: the other subscriber routes, another organization's unverified domain, a Host the proxy did not name.
  for (const url of ['/subscription?token=x', '/subscription/confirm', '/unsubscribe']) {
    t.equal((await app.inject({ method: 'POST', url, headers: { host: DOMAIN } })).statusCode, 404, `POST ${url} on the domain`)
  }
  t.equal((await onHost(DOMAIN, '/subscribe')).statusCode, 404, 'GET /subscribe')
  const rival = await makeTeam(app)
  await makePage({ custom_domain: 'status.rival.test' }, rival.auth)
  await until(async () => (await onHost('status.rival.test', '/sign-in')).statusCode === 404)
  t.equal((await subscribe('status.rival.test', 'x@example.com')).statusCode, 404, 'another organization\'s unverified domain')
  const forged = await subscribe('pingward.example.com', 'x@example.com', { 'x-forwarded-host': DOMAIN })
  t.same([forged.statusCode, forged.json()], [404, { error: 'Status page not found' }], 'X-Forwarded-Host without TRUST_PROXY')
  await mailer.drain()
  t.equal(smtp.received.length, 2, 'none of them mailed anyone')
})

t.test('a password page on its domain: subscribing needs its cookie; the mail\'s link needs only its token', async (t) => {
  const smtp = await smtpServer(t)
  const env = { SMTP_URL: smtp.url, SMTP_FROM: 'Acme status <status@acme.example>' }
  const { app, makePage, publish, api } = await setUp(t, env)
  const mailer = startSubscriberMailer({ config: testConfig({ ...env, PUBLIC_URL }), db: app.db, log: pino({ level: 'silent' }), clock: () => new Date() })
  t.teardown(() => mailer.stop())
  const page = await makePage({ custom_domain: DOMAIN, access: 'password', password: 'correct horse battery' })
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)
  const subscribe = (headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: '/subscribe', headers: { host: DOMAIN, ...headers }, payload: { email: 'reader@example.com' } })
  const refused = await subscribe()
  t.same([refused.statusCode, refused.json()], [401, { error: 'Unauthorized' }], 'no cookie: no subscription')
  const right = await app.inject({ method: 'POST', url: '/', headers: { host: DOMAIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'password=correct+horse+battery' })
  const cookie = String(right.headers['set-cookie']).split(';')[0]
  t.match((await app.inject({ url: '/', headers: { host: DOMAIN, cookie } })).body, '<form method="post" action="/subscribe">')
  t.equal((await subscribe({ cookie })).statusCode, 202)
  await mailer.drain()
  const [{ mail }] = smtp.received
  const manage = new URL(/https:\/\/\S+\/subscription\?token=[\w-]+/.exec(mail.text!)![0])
  t.equal(manage.host, 'pingward.example.com', 'the link is the server\'s, where the domain\'s cookie is not sent')
  const opened = await app.inject({ url: manage.pathname + manage.search })
  t.equal(opened.statusCode, 200, 'the link opens without the cookie')
  t.match(opened.body, /<button type="submit"[^>]*>Confirm<\/button>/)
  const confirmed = await app.inject({
    method: 'POST', url: `${manage.pathname}/confirm`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${manage.searchParams.get('token')}`,
  })
  t.match(confirmed.body, /Subscribed/)
})

t.test('on its domain the page links its older past reports to /history there', async (t) => {
  const { app, team, makePage, publish, api, onHost } = await setUp(t)
  const page = await makePage({ custom_domain: DOMAIN })
  const rows = Array.from({ length: 51 }, (_, i) => sql`(${team.orgId}::uuid, ${`Past ${i}`}, 'resolved', 'minor', array[${page.id}]::uuid[],
    ${new Date(Date.now() - (i + 1) * 3_600_000).toISOString()}::timestamptz)`)
  await app.db.execute(sql`insert into status_reports (org_id, title, status, impact, status_page_ids, resolved_at) values ${sql.join(rows, sql`, `)}`)
  t.equal((await onHost(DOMAIN, '/history')).statusCode, 404, 'unverified: nothing')
  publish(DOMAIN, [page.domain_txt_record])
  t.equal((await api('POST', `/status-pages/${page.id}/verify-domain`)).statusCode, 200)
  const home = await onHost(DOMAIN)
  const older = /<a href="(\/history\?before=[\w-]+)" rel="next">Older reports<\/a>/.exec(home.body)?.[1]
  t.ok(older, 'the link is the domain\'s')
  const history = await onHost(DOMAIN, older)
  t.equal(history.statusCode, 200)
  t.match(history.body, '<a href="/">Current status</a>')
  t.match(history.body, '<h3>Past 50</h3>', 'the 51st')
  t.notMatch(history.body, 'rel="next"', 'the last page')
  t.match(history.headers['cache-control'], /^public, max-age=30/)
  const bad = await onHost(DOMAIN, '/history?before=nope')
  t.equal(bad.statusCode, 400)
  t.match(bad.body, 'querystring/before must be the cursor')
})
