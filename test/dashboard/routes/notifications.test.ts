// Settings, then Notifications through app.inject and the real sign-in: every channel type made from its form,
// the API's messages next to the config field, edits that keep a secret left blank, Send test, the signing
// secret shown once, the delivery log with each attempt and Retry, delete, the monitor form's channels, and
// other users' channels as 404.
import t, { type Test } from 'tap'
import { eq } from 'drizzle-orm'
import { notificationChannels, notificationDeliveries } from '../../../src/db/schema.ts'
import { CHANNEL_TYPES, type ChannelType } from '../../../src/domain/vocabulary.ts'
import { attemptDelivery, deliveryOptionsFromConfig } from '../../../src/notifications/deliver.ts'
import { enqueueEvent } from '../../../src/repositories/notification-outbox.ts'
import { findChannelRow, findDelivery, listChannels } from '../../../src/notifications/repository.ts'
import { listMonitors } from '../../../src/monitors/repository.ts'
import { findMonitor } from '../../../src/monitors/service.ts'
import { secretFields } from '../../../src/notifications/schema.ts'
import { configFields } from '../../../src/dashboard/channel-input.ts'
import { buildTestApp, testConfig } from '../../helper.ts'
import { webhookReceiver } from '../../support/webhook-receiver.ts'
import { cookieOf, signedIn, type Browser } from '../dashboard-helper.ts'

// Email channels need a mail server: one is configured (nothing is mailed in these tests).
const MAIL = { SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'pingward@example.com' }
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** Each type's form fields as a person types them, and the config the API stores from them. */
const VALID: Record<ChannelType, { form: Record<string, string>, config: Record<string, unknown> }> = {
  webhook: { form: { 'config/url': ' https://example.com/hooks/pingward ' }, config: { url: 'https://example.com/hooks/pingward' } },
  slack: { form: { 'config/webhook_url': 'https://hooks.slack.com/services/T000/B000/slack1234' }, config: { webhook_url: 'https://hooks.slack.com/services/T000/B000/slack1234' } },
  discord: { form: { 'config/webhook_url': 'https://discord.com/api/webhooks/123/discord5678' }, config: { webhook_url: 'https://discord.com/api/webhooks/123/discord5678' } },
  teams: { form: { 'config/webhook_url': 'https://example.webhook.office.com/webhookb2/teams9012' }, config: { webhook_url: 'https://example.webhook.office.com/webhookb2/teams9012' } },
  telegram: {
    form: { 'config/bot_token': '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', 'config/chat_id': '-1001234567890' },
    config: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890' },
  },
  ntfy: {
    form: { 'config/topic': 'pingward-alerts', 'config/server_url': 'https://ntfy.example.com', 'config/token': 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' },
    config: { topic: 'pingward-alerts', server_url: 'https://ntfy.example.com', token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' },
  },
  pagerduty: { form: { 'config/routing_key': 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12' }, config: { routing_key: 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12' } },
  email: { form: { 'config/to': 'oncall@example.com, boss@example.com' }, config: { to: ['oncall@example.com', 'boss@example.com'] } },
}

const EVENTS = { 'event:incident.opened': 'on', 'event:incident.resolved': 'on' }

/** Creates a channel through the form; returns its id. */
async function createChannel (t: Test, browser: Browser, type: ChannelType, fields: Record<string, string> = {}) {
  const res = await browser.post('/settings/notifications', { type, name: `My ${type}`, ...EVENTS, is_active: 'on', ...VALID[type].form, ...fields })
  t.equal(res.statusCode, 303, `${type} created: ${res.statusCode === 303 ? '' : res.body.match(/<div class="error-summary".*?<\/div>/s)?.[0]}`)
  const location = res.headers.location as string
  t.match(location, new RegExp(`^/settings/notifications/${UUID}\\?notice=channel-created$`))
  return { id: location.split('/')[3].split('?')[0], res }
}

/** The field's error as the form shows it: right after the input that points to it and is marked invalid. */
const fieldError = (form: string, field: string, message: string) => new RegExp(`<input id="${form}-${field}"[^>]*aria-describedby="[^"]*${form}-${field}-error"[^>]* aria-invalid="true" autofocus>` +
  `(<p class="hint"[^<]*</p>)?<p class="error" id="${form}-${field}-error">${message.replace(/[()?.+*[\]]/g, '\\$&')}`)

t.test('every channel type made from its form, its fields read off the API\'s config schema', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const browser = await signedIn(app)

  const empty = await browser.get('/settings/notifications')
  t.equal(empty.statusCode, 200)
  t.match(empty.body, '<h1>Notifications</h1>')
  t.match(empty.body, '<a href="/settings/notifications" aria-current="page">Notifications</a>', 'the settings navigation')
  t.match(empty.body, '<a href="/settings/api-keys" aria-current="page">Settings</a>')
  t.match(empty.body, 'No channels yet')
  for (const type of CHANNEL_TYPES) t.match(empty.body, `href="/settings/notifications/new?type=${type}"`, `a link to add a ${type} channel`)
  t.equal((await browser.get('/settings/notifications/new?type=carrier-pigeon')).statusCode, 400)

  for (const type of CHANNEL_TYPES) {
    const form = await browser.get(`/settings/notifications/new?type=${type}`)
    t.equal(form.statusCode, 200)
    const fields = configFields(type)
    t.same(fields.filter((f) => f.secret).map((f) => f.key), secretFields(type), `${type}: the schema's writeOnly fields are its secrets`)
    for (const field of fields) {
      const input = new RegExp(`<input id="new-channel-config/${field.key}" name="config/${field.key}" type="${field.secret ? 'password' : field.kind === 'url' ? 'url' : 'text'}"`)
      t.match(form.body, input, `${type}: a field for config.${field.key}`)
    }

    const { id, res } = await createChannel(t, browser, type)
    const row = (await findChannelRow(app.db, browser.user.id, id))!
    t.same(row.config, VALID[type].config, `${type}: the config as typed, trimmed and split`)
    t.match(row, { name: `My ${type}`, type, events: ['incident.opened', 'incident.resolved'], allMonitors: false, isActive: true })
    t.equal(cookieOf(res, 'pw_new_secret') !== undefined, type === 'webhook', 'only a webhook has a signing secret to show')

    const page = await browser.get(`/settings/notifications/${id}?notice=channel-created`)
    t.equal(page.statusCode, 200)
    t.match(page.body, 'Channel created. Send a test to see that it arrives.')
    for (const key of secretFields(type)) {
      const secret = VALID[type].config[key] as string
      t.notMatch(page.body, secret, `${type}: the ${key} is never shown`)
      t.match(page.body, `…${secret.slice(-4)}`, `${type}: the ${key} is shown masked`)
    }
  }
  const list = (await browser.get('/settings/notifications')).body
  t.equal([...list.matchAll(/<td class="name"><a href="\/settings\/notifications\//g)].length, CHANNEL_TYPES.length, 'all listed')
  t.match(list, '<td>Microsoft Teams</td>')
})

t.test('the form offers every event, certificates expiring too (off by default), and the list names them', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const browser = await signedIn(app)
  const form = await browser.get('/settings/notifications/new?type=webhook')
  t.match(form.body, /<input id="[^"]+" name="event:tls\.expiring" type="checkbox"><label for="[^"]+">Certificate expiring: 14, 7 and 1 days before an HTTPS certificate expires<\/label>/,
    'a checkbox, not checked for a new channel')
  t.match(form.body, /name="event:incident\.opened" type="checkbox" checked>/, 'the defaults are')
  const { id } = await createChannel(t, browser, 'webhook', { 'event:incident.resolved': '', 'event:tls.expiring': 'on' })
  t.same((await findChannelRow(app.db, browser.user.id, id))?.events, ['incident.opened', 'tls.expiring'])
  t.match((await browser.get('/settings/notifications')).body, 'Down, Certificate expiring')
  t.match((await browser.get(`/settings/notifications/${id}/edit`)).body, /name="event:tls\.expiring" type="checkbox" checked>/, 'the edit form shows it chosen')
  t.notMatch(form.body, 'event:incident.reminder', 'reminders come with the interval, not a checkbox')
  const reminded = await createChannel(t, browser, 'webhook', { reminder_minutes: '30' })
  t.equal((await findChannelRow(app.db, browser.user.id, reminded.id))?.reminderMinutes, 30)
  t.match((await browser.get(`/settings/notifications/${reminded.id}/edit`)).body, /name="reminder_minutes" type="number" value="30"/)
})

t.test('a value the API refuses is refused with its message next to the field', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const browser = await signedIn(app)
  const cases: Array<[ChannelType, Record<string, string>, string, string]> = [
    ['webhook', { 'config/url': '' }, 'config/url', 'URL is required'],
    ['webhook', { 'config/url': 'ftp://example.com/x' }, 'config/url', 'URL must be an absolute http or https URL of at most 2048 characters'],
    ['webhook', { 'config/url': 'https://user:pw@example.com/' }, 'config/url', 'URL must not contain credentials'],
    ['webhook', { 'config/url': 'http://127.0.0.1:8080/' }, 'config/url', 'URL: 127.0.0.1 is not a public address'],
    ['slack', { 'config/webhook_url': 'http://169.254.169.254/latest' }, 'config/webhook_url', 'Webhook URL: 169.254.169.254 is not a public address'],
    ['telegram', { 'config/bot_token': 'nope' }, 'config/bot_token', 'Bot token must be a Telegram bot token (digits, a colon, then letters, digits, - and _)'],
    ['telegram', { 'config/chat_id': 'my chat' }, 'config/chat_id', 'Chat ID must be a numeric chat id (e.g. -1001234567890) or a channel username (e.g. @mychannel)'],
    ['ntfy', { 'config/topic': 'a b' }, 'config/topic', 'Topic must be 1-64 letters, digits, - or _'],
    ['ntfy', { 'config/server_url': 'http://192.168.1.1' }, 'config/server_url', 'Server URL: 192.168.1.1 is not a public address'],
    ['pagerduty', { 'config/routing_key': 'short' }, 'config/routing_key', 'Routing key must be the 32-character integration key of an Events API v2 integration'],
    ['email', { 'config/to': 'oncall@example.com, not-an-address' }, 'config/to', 'To #2 must be a valid email'],
    ['email', { 'config/to': ' , ' }, 'config/to', 'To must NOT have fewer than 1 items'],
    ['webhook', { name: '  ' }, 'name', 'Name must be 1-255 characters and not blank'],
    ['webhook', { reminder_minutes: '2' }, 'reminder_minutes', 'Remind every (minutes) must be >= 5'],
  ]
  for (const [type, fields, field, message] of cases) {
    const res = await browser.post('/settings/notifications', { type, name: 'Bad', ...EVENTS, ...VALID[type].form, ...fields })
    t.equal(res.statusCode, 400, `${type} ${JSON.stringify(fields)}`)
    const shown = message.replace(/&/g, '&amp;').replace(/>/g, '&gt;')
    t.match(res.body, fieldError('new-channel', field, shown), message)
    t.match(res.body, `<a href="#new-channel-${field}">${shown}`, 'and in the summary, linking to it')
  }
  // A list of checkboxes: its error is on the group.
  const none = await browser.post('/settings/notifications', { type: 'webhook', name: 'No events', ...VALID.webhook.form })
  t.equal(none.statusCode, 400)
  t.match(none.body, /<fieldset id="new-channel-events" class="checks invalid"[^>]*aria-describedby="new-channel-events-error">/)
  t.match(none.body, '<p class="error" id="new-channel-events-error">Send when must NOT have fewer than 1 items</p>')
  t.match(none.body, 'value=" https://example.com/hooks/pingward "', 'what was typed is kept')
  const tampered = await browser.post('/settings/notifications', { type: 'fax', name: 'x' })
  t.equal(tampered.statusCode, 400)
  t.match(tampered.body, 'body/type must be one of: webhook, slack')
  t.same(await listChannels(app.db, browser.user.id), [], 'nothing was created')

  // Without a mail server, email channels are refused, as by the API.
  const { app: noMail } = await buildTestApp(t)
  const person = await signedIn(noMail)
  t.match((await person.get('/settings/notifications')).body, 'needs a mail server: the operator sets SMTP_URL')
  const mail = await person.post('/settings/notifications', { type: 'email', name: 'Mail', ...EVENTS, ...VALID.email.form })
  t.equal(mail.statusCode, 400)
  t.match(mail.body, 'email channels need a mail server, and this server has none (its operator sets SMTP_URL)')
})

t.test('an edit keeps a secret left blank and checks the merged config', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const browser = await signedIn(app)
  const { id } = await createChannel(t, browser, 'ntfy')
  const stored = async () => (await findChannelRow(app.db, browser.user.id, id))!

  const form = await browser.get(`/settings/notifications/${id}/edit`)
  t.equal(form.statusCode, 200)
  t.match(form.body, '<input id="edit-channel-config/token" name="config/token" type="password" autocomplete="off"', 'the secret field is empty')
  t.match(form.body, 'Saved: …NIz2. Leave blank to keep it.')
  t.notMatch(form.body, VALID.ntfy.config.token as string, 'the secret is not in the page')
  t.match(form.body, 'value="pingward-alerts"')
  t.notMatch(form.body, 'name="type"', 'the type cannot change')

  // The form as shown: the server_url saved (a new one would need the token again).
  let serverUrl = 'https://ntfy.example.com'
  const edit = (fields: Record<string, string>) => browser.post(`/settings/notifications/${id}/edit`, {
    name: 'Renamed', ...EVENTS, is_active: 'on', 'config/topic': 'pingward-alerts', 'config/server_url': serverUrl, ...fields,
  })
  const saved = await edit({ 'config/token': '' })
  t.equal(saved.statusCode, 303)
  t.equal(saved.headers.location, `/settings/notifications/${id}?notice=channel-saved`)
  t.match(await stored(), { name: 'Renamed', config: VALID.ntfy.config }, 'the token left blank is kept')

  t.equal((await edit({ 'config/token': 'tk_new_token_1234', 'config/server_url': '' })).statusCode, 303)
  t.same((await stored()).config, { topic: 'pingward-alerts', token: 'tk_new_token_1234' }, 'a new token is saved; an optional field left blank is removed')
  serverUrl = ''

  const refused = await edit({ 'config/topic': '' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, fieldError('edit-channel', 'config/topic', 'Topic must be 1-64 letters, digits, - or _'))
  const privateUrl = await edit({ 'config/server_url': 'http://10.0.0.1/' })
  t.equal(privateUrl.statusCode, 400)
  t.match(privateUrl.body, fieldError('edit-channel', 'config/server_url', 'Server URL: 10.0.0.1 is not a public address'))
  t.same((await stored()).config, { topic: 'pingward-alerts', token: 'tk_new_token_1234' }, 'unchanged by refused edits')

  t.equal((await edit({ is_active: '', all_monitors: 'on', 'event:incident.resolved': '' })).statusCode, 303)
  t.match(await stored(), { isActive: false, allMonitors: true, events: ['incident.opened'] }, 'unticked boxes are false')

  // Turned off by the service (its receiver answered 410 Gone): said so, and ticking Active turns it on again.
  await app.db.update(notificationChannels).set({ disabledReason: 'the receiver answered 410 Gone' }).where(eq(notificationChannels.id, id))
  t.match((await browser.get('/settings/notifications')).body, '<span class="st st-down">Turned off</span><span class="url">the receiver answered 410 Gone</span>')
  t.match((await browser.get(`/settings/notifications/${id}`)).body, 'Turned off by Pingward: the receiver answered 410 Gone. Edit it and tick Active to send again.')
  t.equal((await edit({})).statusCode, 303)
  t.match(await stored(), { isActive: true, disabledReason: null })
  t.match((await browser.get('/settings/notifications')).body, '<span class="st st-up">Active</span>')
})

t.test('Send test, the signing secret once, the delivery log with each attempt, Retry, rotate and delete', async (t) => {
  const env = { ALLOW_PRIVATE_TARGETS: 'true' }
  const { app } = await buildTestApp(t, { env })
  const browser = await signedIn(app)
  const secrets: string[] = []
  const receiver = await webhookReceiver(t, { verifyWith: () => secrets })

  // The secret rides to the channel's page in a cookie of that path, shown once.
  const { id, res } = await createChannel(t, browser, 'webhook', { 'config/url': `${receiver.url}/hook` })
  const flash = cookieOf(res, 'pw_new_secret')!
  t.match(res.headers['set-cookie'], /^pw_new_secret=[^;]+; Max-Age=300; Path=\/settings\/notifications; HttpOnly; SameSite=Strict$/)
  const base = `/settings/notifications/${id}`
  const withFlash = (cookie: string) => app.inject({ url: base, headers: { cookie: `${browser.cookie}; pw_new_secret=${cookie}` } })
  const shown = await withFlash(flash)
  const secret = /id="new-secret-value" class="key" type="text" value="(whsec_[A-Za-z0-9+/=]+)"/.exec(shown.body)![1]
  t.equal((await findChannelRow(app.db, browser.user.id, id))!.secret, secret, 'the channel\'s secret')
  t.match(shown.body, 'Copy it now: it will not be shown again.')
  t.match(shown.headers['set-cookie'], /^pw_new_secret=; Max-Age=0; Path=\/settings\/notifications/, 'the page deletes the cookie')
  t.notMatch((await browser.get(base)).body, secret, 'never shown again')
  t.notMatch((await withFlash(`${id}.whsec_forged`)).body, 'new-secret-value', 'only the channel\'s own secret is shown')
  secrets.push(secret)
  t.match(shown.body, 'Nothing sent yet')

  // Send test: the real pipeline, and its outcome on the channel's page.
  const tested = await browser.post(`${base}/test`)
  t.equal(tested.statusCode, 303)
  t.match(tested.headers.location, new RegExp(`^${base}\\?tested=(${UUID})#test-result$`))
  t.equal(receiver.received.length, 1)
  t.same(receiver.received[0].verifiedWith, [secret], 'signed with the secret that was shown')
  const ok = await browser.get((tested.headers.location as string).split('#')[0])
  t.match(ok.body, /<p class="notice" role="status" id="test-result">Test delivered: HTTP 204, in \d+ ms\.<\/p>/)
  t.match(ok.body, /<td>Tests<span class="url"><time[^>]*>[^<]*<\/time><\/span><\/td>\s*<td><span class="st st-delivered">Delivered<\/span><span class="url">Last: HTTP 204<\/span><\/td>\s*<td>1<ol class="attempts"><li><time[^>]*>[^<]*<\/time>: HTTP 204, \d+ ms<\/li><\/ol><\/td>/)

  receiver.setAnswer(() => ({ status: 500, body: 'boom' }))
  const failedRes = await browser.post(`${base}/test`)
  const failedId = /tested=([0-9a-f-]+)/.exec(failedRes.headers.location as string)![1]
  const failed = await browser.get(`${base}?tested=${failedId}`)
  t.match(failed.body, '<h2>The test was not delivered</h2>')
  t.match(failed.body, /<p>HTTP 500: boom, in \d+ ms\. It is tried again at <time/)
  t.match(failed.body, `formaction="/settings/notifications/deliveries/${failedId}/retry"`, 'a failed delivery can be retried')
  t.equal([...failed.body.matchAll(/>Retry<\/button>/g)].length, 1, 'only the failed one')
  t.notMatch((await browser.get(`${base}?tested=${failedId}`)).body.replace(/id="delivery-[^"]+"/g, ''), /tested=/, 'no link keeps the test')

  // Retry: due again at once, its attempts kept; the next attempt (the worker's own function) adds to the log.
  receiver.setAnswer(() => ({ status: 200 }))
  const retried = await browser.post(`/settings/notifications/deliveries/${failedId}/retry`)
  t.equal(retried.statusCode, 303)
  t.equal(retried.headers.location, `${base}?notice=delivery-retried#delivery-${failedId}`)
  t.match(await findDelivery(app.db, browser.user.id, failedId), { status: 'pending', attempts: 1 })
  const options = deliveryOptionsFromConfig(testConfig(env))
  t.teardown(() => options.transport.close())
  await attemptDelivery(app.db, failedId, options)
  const log = await browser.get(`${base}?notice=delivery-retried`)
  t.match(log.body, 'The delivery is due again: it is sent within seconds.')
  const row = new RegExp(`<tr id="delivery-${failedId}">.*?</tr>`, 's').exec(log.body)![0]
  t.match(row, '<span class="st st-delivered">Delivered</span>')
  t.match(row, /<td>2<ol class="attempts"><li><time[^>]*>[^<]*<\/time>: HTTP 500: boom, \d+ ms<\/li><li><time[^>]*>[^<]*<\/time>: HTTP 200, \d+ ms<\/li><\/ol><\/td>/, 'each attempt, oldest first')

  // A delivery given up is listed and can be retried; the status filter shows only those.
  await app.db.update(notificationDeliveries).set({ status: 'dead', nextAttemptAt: null }).where(eq(notificationDeliveries.id, failedId))
  const dead = await browser.get(`${base}?status=dead`)
  t.match(dead.body, '<a href="/settings/notifications/' + id + '?status=dead" aria-current="page">Given up</a>')
  t.equal([...dead.body.matchAll(/<tr id="delivery-/g)].length, 1)
  t.match(dead.body, '<span class="st st-dead">Given up</span>')
  t.match(dead.body, `formaction="/settings/notifications/deliveries/${failedId}/retry"`)
  t.match((await browser.get(`${base}?status=pending`)).body, 'No deliveries here.')

  // Rotate: a new secret, shown once; both sign for a day.
  const rotated = await browser.post(`${base}/rotate-secret`)
  t.equal(rotated.statusCode, 303)
  t.equal(rotated.headers.location, base)
  const newSecret = /id="new-secret-value" class="key" type="text" value="(whsec_[^"]+)"/.exec((await withFlash(cookieOf(rotated, 'pw_new_secret')!)).body)![1]
  t.not(newSecret, secret)
  secrets.push(newSecret)
  await browser.post(`${base}/test`)
  t.same(receiver.received.at(-1)!.verifiedWith, [secret, newSecret], 'signed with both secrets')
  const slack = await createChannel(t, browser, 'slack')
  t.equal((await browser.post(`/settings/notifications/${slack.id}/rotate-secret`)).statusCode, 400, 'only a webhook has a secret')
  t.notMatch((await browser.get(`/settings/notifications/${slack.id}`)).body, 'Rotate secret')

  const deleted = await browser.post(`${base}/delete`)
  t.equal(deleted.statusCode, 303)
  t.equal(deleted.headers.location, '/settings/notifications?notice=channel-deleted')
  t.match((await browser.get(deleted.headers.location as string)).body, 'Channel deleted: nothing more is sent to it.')
  t.equal(await findChannelRow(app.db, browser.user.id, id), undefined)
  t.equal((await browser.get(base)).statusCode, 404)
})

t.test('the delivery log pages back, 50 at a time, within a status', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const { id } = await createChannel(t, browser, 'slack')
  const start = Date.parse('2026-11-21T12:00:00.000Z')
  for (let i = 0; i < 52; i++) {
    const at = new Date(start + i * 1000)
    const payload = { type: 'test' as const, timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } }
    await enqueueEvent(app.db, { orgId: browser.user.id, monitorId: null, incidentId: null, channelId: id, at, payload })
  }
  const base = `/settings/notifications/${id}`
  const rows = (body: string) => [...body.matchAll(/<tr id="delivery-/g)].length
  const first = await browser.get(base)
  t.equal(rows(first.body), 50)
  t.match(first.body, '<td>0<span class="muted">None yet</span></td>', 'not attempted yet')
  t.notMatch(first.body, 'Newest deliveries')
  t.match(first.body, `<a href="${base}?before=2026-11-21T12%3A00%3A02.000Z">Older deliveries</a>`)
  const second = await browser.get(`${base}?before=2026-11-21T12%3A00%3A02.000Z`)
  t.equal(rows(second.body), 2)
  t.match(second.body, `<a href="${base}">Newest deliveries</a>`)
  t.notMatch(second.body, 'Older deliveries')
  t.match((await browser.get(`${base}?status=pending`)).body, `<a href="${base}?status=pending&amp;before=2026-11-21T12%3A00%3A02.000Z">Older deliveries</a>`)
  t.match((await browser.get(`${base}?status=pending&before=2026-11-21T12%3A00%3A02.000Z`)).body, `<a href="${base}?status=pending">Newest deliveries</a>`)
  t.equal((await browser.get(`${base}?status=sent`)).statusCode, 400)
})

t.test('the monitor form chooses the channels a monitor notifies, only the user\'s own', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const browser = await signedIn(app)
  const other = await signedIn(app)
  const chosen = await createChannel(t, browser, 'slack', { name: 'Team Slack' })
  const everyone = await createChannel(t, browser, 'email', { name: 'On-call mail', all_monitors: 'on' })
  const theirs = await createChannel(t, other, 'webhook', { name: 'Their hook' })
  const box = (id: string) => `channel:${id}`

  const home = await browser.get('/')
  t.match(home.body, /<fieldset id="new-monitor-notification_channel_ids" class="checks"/)
  t.match(home.body, new RegExp(`name="${box(chosen.id)}" type="checkbox"><label[^>]*>Team Slack <span class="muted">\\(Slack\\)</span>`))
  t.match(home.body, new RegExp(`name="${box(everyone.id)}" type="checkbox" checked disabled><label[^>]*>On-call mail <span class="muted">\\(Email, covers every monitor\\)</span>`))
  t.notMatch(home.body, theirs.id, 'another user\'s channel is not offered')
  t.match((await other.get('/')).body, 'Their hook')

  const valid = { name: 'Shop', url: 'https://shop.example.com/', is_active: 'on' }
  const refused = await browser.post('/monitors', { ...valid, [box(chosen.id)]: 'on', [box(theirs.id)]: 'on' })
  t.equal(refused.statusCode, 400)
  t.match(refused.body, '<p class="error" id="new-monitor-notification_channel_ids-error">Notification channels #2 is not one of your notification channels</p>')
  t.same(await listMonitors(app.db, { orgId: browser.user.id }), [], 'nothing was created')

  const created = await browser.post('/monitors', { ...valid, [box(chosen.id)]: 'on' })
  t.equal(created.statusCode, 303)
  const monitorId = (created.headers.location as string).split('/')[2].split('?')[0]
  t.same((await findMonitor(app.db, { orgId: browser.user.id }, monitorId))!.notification_channel_ids, [chosen.id])
  const page = await browser.get(`/monitors/${monitorId}`)
  t.match(page.body, /<dt>Notifies<\/dt><dd><a href="\/settings\/notifications\/[^"]+">(Team Slack|On-call mail)<\/a>, <a href="\/settings\/notifications\/[^"]+">(Team Slack|On-call mail)<\/a><\/dd>/)

  const edit = await browser.get(`/monitors/${monitorId}/edit`)
  t.match(edit.body, new RegExp(`name="${box(chosen.id)}" type="checkbox" checked>`), 'the choice is shown')
  const form = { ...valid, method: 'GET', expected_status: '200', interval_minutes: '5', timeout_seconds: '10', failure_threshold: '1', recovery_threshold: '1' }
  const stolen = await browser.post(`/monitors/${monitorId}/edit`, { ...form, [box(theirs.id)]: 'on' })
  t.equal(stolen.statusCode, 400)
  t.match(stolen.body, 'Notification channels #1 is not one of your notification channels')
  t.same((await findMonitor(app.db, { orgId: browser.user.id }, monitorId))!.notification_channel_ids, [chosen.id], 'unchanged')

  t.equal((await browser.post(`/monitors/${monitorId}/edit`, form)).statusCode, 303)
  t.same((await findMonitor(app.db, { orgId: browser.user.id }, monitorId))!.notification_channel_ids, [], 'unticked')
  t.match((await browser.get(`/monitors/${monitorId}`)).body, /<dt>Notifies<\/dt><dd><a href="[^"]+">On-call mail<\/a><\/dd>/, 'the channel for every monitor still')

  // Chosen and also for every monitor: the choice is kept (hidden), for when it stops covering every monitor.
  t.equal((await browser.post(`/monitors/${monitorId}/edit`, { ...form, [box(everyone.id)]: 'on' })).statusCode, 303)
  const kept = await browser.get(`/monitors/${monitorId}/edit`)
  t.match(kept.body, `<input type="hidden" name="${box(everyone.id)}" value="on">`)
  t.equal((await browser.post(`/monitors/${monitorId}/edit`, { ...form, [box(everyone.id)]: 'on' })).statusCode, 303)
  t.same((await findMonitor(app.db, { orgId: browser.user.id }, monitorId))!.notification_channel_ids, [everyone.id])
})

t.test('another user\'s channel and delivery are 404, the same page as none', async (t) => {
  const { app } = await buildTestApp(t, { env: { ...MAIL, ALLOW_PRIVATE_TARGETS: 'true' } })
  const owner = await signedIn(app)
  const stranger = await signedIn(app)
  const receiver = await webhookReceiver(t, { verifyWith: () => [] })
  const { id } = await createChannel(t, owner, 'webhook', { 'config/url': receiver.url })
  const deliveryId = /tested=([0-9a-f-]+)/.exec((await owner.post(`/settings/notifications/${id}/test`)).headers.location as string)![1]
  const missing = '00000000-0000-4000-8000-000000000000'

  for (const channel of [id, missing]) {
    for (const path of ['', '/edit']) {
      const res = await stranger.get(`/settings/notifications/${channel}${path}`)
      t.equal(res.statusCode, 404, `GET ${path}`)
      t.match(res.body, 'There is no such notification channel, or it is not yours.')
    }
    for (const action of ['edit', 'test', 'rotate-secret', 'delete']) {
      t.equal((await stranger.post(`/settings/notifications/${channel}/${action}`, { name: 'mine now', ...EVENTS })).statusCode, 404, action)
    }
  }
  for (const delivery of [deliveryId, missing]) {
    const res = await stranger.post(`/settings/notifications/deliveries/${delivery}/retry`)
    t.equal(res.statusCode, 404)
    t.match(res.body, 'There is no such delivery, or it is not yours.')
  }
  // A test delivery of the owner's is not shown on the stranger's own channel's page either.
  const theirs = await createChannel(t, stranger, 'slack')
  t.notMatch((await stranger.get(`/settings/notifications/${theirs.id}?tested=${deliveryId}`)).body, 'test-result')
  t.notMatch((await stranger.get('/settings/notifications')).body, `/settings/notifications/${id}`)
  t.match(await findChannelRow(app.db, owner.user.id, id), { name: 'My webhook' }, 'untouched')
  t.equal(receiver.received.length, 1, 'the stranger sent nothing')
  t.match(await findDelivery(app.db, owner.user.id, deliveryId), { status: 'delivered', attempts: 1 })
})
