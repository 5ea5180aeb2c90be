// Notification channel routes: every type's config (valid, each secret masked, each rule broken names its
// field), defaults, strict bodies, updates merged over the stored config, delete, rotate-secret, isolation.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { notificationChannels } from '../../src/db/schema.ts'
import { CHANNEL_EVENT_TYPES, CHANNEL_TYPES, type ChannelType } from '../../src/domain/vocabulary.ts'
import { secretFields } from '../../src/notifications/schema.ts'
import { buildTestApp, makeUser, request } from '../helper.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const FIELDS = ['all_monitors', 'config', 'created_at', 'disabled_reason', 'events', 'id', 'is_active', 'name', 'reminder_minutes', 'type', 'updated_at']
const PRIVATE = /: \S+ is not a public address; .*ALLOW_PRIVATE_TARGETS=true$/

/** A valid config of each type, its secrets long enough to be masked to their last 4 characters. */
const VALID: Record<ChannelType, Record<string, unknown>> = {
  webhook: { url: 'https://example.com/hooks/pingward' },
  slack: { webhook_url: 'https://hooks.slack.com/services/T000/B000/slack1234' },
  discord: { webhook_url: 'https://discord.com/api/webhooks/123/discord5678' },
  teams: { webhook_url: 'https://example.webhook.office.com/webhookb2/teams9012' },
  telegram: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890' },
  ntfy: { topic: 'pingward-alerts', server_url: 'https://ntfy.example.com', token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' },
  pagerduty: { routing_key: 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12' },
  email: { to: ['oncall@example.com', 'boss@example.com'] },
}

/** For each type, configs that break one rule, and the message that names it. */
const INVALID: Record<ChannelType, Array<[Record<string, unknown>, string | RegExp]>> = {
  webhook: [
    [{}, 'body/config/url is required'],
    [{ url: 'ftp://example.com/x' }, 'body/config/url must be an absolute http or https URL of at most 2048 characters'],
    [{ url: 'https://example.com', secret: 'x' }, 'body/config/secret is not allowed'],
    [{ url: 'http://10.1.2.3/hook' }, /^body\/config\/url: 10\.1\.2\.3 is not a public address/],
    [{ url: 'https://user:pw@example.com/' }, 'body/config/url must not contain credentials'],
  ],
  slack: [
    [{ url: 'https://hooks.slack.com/x' }, 'body/config/webhook_url is required'],
    [{ webhook_url: 'hooks.slack.com/x' }, 'body/config/webhook_url must be an absolute http or https URL of at most 2048 characters'],
    [{ webhook_url: 'http://127.0.0.1:9/x' }, PRIVATE],
  ],
  discord: [[{ webhook_url: 42 }, 'body/config/webhook_url must be string']],
  teams: [[{ webhook_url: 'http://169.254.169.254/latest' }, PRIVATE]],
  telegram: [
    [{ chat_id: '1' }, 'body/config/bot_token is required'],
    [{ bot_token: 'nope', chat_id: '1' }, 'body/config/bot_token must be a Telegram bot token (digits, a colon, then letters, digits, - and _)'],
    [{ bot_token: '1:a', chat_id: 12 }, 'body/config/chat_id must be string'],
    [{ bot_token: '1:a', chat_id: 'my chat' }, 'body/config/chat_id must be a numeric chat id (e.g. -1001234567890) or a channel username (e.g. @mychannel)'],
  ],
  ntfy: [
    [{}, 'body/config/topic is required'],
    [{ topic: 'a b' }, 'body/config/topic must be 1-64 letters, digits, - or _'],
    [{ topic: 'a', server_url: 'http://192.168.1.1' }, /^body\/config\/server_url: 192\.168\.1\.1 is not a public address/],
    [{ topic: 'a', token: 'two words' }, 'body/config/token must be 1-256 characters without spaces'],
    [{ topic: 'a', token: null }, 'body/config/token must be string, not null'],
  ],
  pagerduty: [[{ routing_key: 'short' }, 'body/config/routing_key must be the 32-character integration key of an Events API v2 integration']],
  email: [
    [{ to: [] }, 'body/config/to must NOT have fewer than 1 items'],
    [{ to: ['not an address'] }, 'body/config/to/0 must be a valid email'],
    [{ to: 'a@example.com' }, 'body/config/to must be array'],
    [{ to: ['a@example.com', 'a@example.com'] }, /^body\/config\/to must NOT have duplicate items/],
  ],
}

// Email channels need a mail server: one is configured (nothing is sent in these tests).
const MAIL = { SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'pingward@example.com' }

t.test('notification channel routes', async (t) => {
  const { app } = await buildTestApp(t, { env: MAIL })
  const { auth, user } = await makeUser(app)
  const post = (payload: unknown, who = auth) => request(app, who, { method: 'POST', url: '/api/v1/notification-channels', payload: payload as object })
  const patch = (id: string, payload: unknown) => request(app, auth, { method: 'PATCH', url: `/api/v1/notification-channels/${id}`, payload: payload as object })
  const stored = async (id: string) => (await app.db.select().from(notificationChannels).where(eq(notificationChannels.id, id)))[0]

  await t.test('every type: created with its config, defaults applied, each secret masked in every answer', async (t) => {
    for (const type of CHANNEL_TYPES) {
      const config = VALID[type]
      const res = await post({ name: `  ${type} channel  `, type, config })
      t.equal(res.statusCode, 201, type)
      const channel = res.json().data
      t.equal(res.headers.location, `/api/v1/notification-channels/${channel.id}`)
      t.same(Object.keys(channel).sort(), type === 'webhook' ? [...FIELDS, 'secret'].sort() : FIELDS, `${type}: the fields`)
      t.match(channel, {
        name: `${type} channel`, type, events: ['incident.opened', 'incident.resolved'], all_monitors: false, is_active: true, disabled_reason: null,
      })
      t.match(channel.created_at, ISO)
      const secrets = secretFields(type)
      const masked = Object.fromEntries(Object.entries(config).map(([key, value]) =>
        [key, secrets.includes(key) ? `…${(value as string).slice(-4)}` : value]))
      t.same(channel.config, masked, `${type}: ${secrets.join(', ') || 'no secret'} masked, the rest as sent`)
      t.same((await stored(channel.id)).config, config, `${type}: stored in full`)
      const read = await request(app, auth, { url: `/api/v1/notification-channels/${channel.id}` })
      const { secret: _secret, ...record } = channel
      t.same(read.json(), { data: record }, `${type}: read back the same, without a secret`)
      for (const secret of secrets) {
        for (const body of [res.body, read.body]) t.notOk(body.includes(config[secret] as string), `${type}: ${secret} never shown`)
      }
    }
    t.same(CHANNEL_TYPES.filter((type) => secretFields(type).length === 0), ['webhook', 'email'], 'the types without config secrets')
  })

  await t.test('every type: each broken rule of its config is a 400 naming the field', async (t) => {
    for (const type of CHANNEL_TYPES) {
      t.ok(INVALID[type].length > 0, `${type} has cases`)
      for (const [config, message] of INVALID[type]) {
        const res = await post({ name: 'x', type, config })
        t.equal(res.statusCode, 400, `${type} ${JSON.stringify(config)}`)
        t.match(res.json().error, message)
      }
    }
  })

  await t.test('a webhook channel\'s create answer carries its signing secret once', async (t) => {
    const res = await post({ name: 'hook', type: 'webhook', config: VALID.webhook, events: ['incident.opened'], all_monitors: true, is_active: false })
    const channel = res.json().data
    t.match(channel.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    t.equal(Buffer.from(channel.secret.slice(6), 'base64').length, 32, '32 random bytes')
    t.match(channel, { events: ['incident.opened'], all_monitors: true, is_active: false })
    const row = await stored(channel.id)
    t.equal(row.secret, channel.secret)
    const list = await request(app, auth, { url: '/api/v1/notification-channels' })
    t.notOk(list.body.includes(channel.secret), 'never again')
    const other = await post({ name: 'hook 2', type: 'webhook', config: VALID.webhook })
    t.not(other.json().data.secret, channel.secret, 'each webhook its own')
  })

  await t.test('strict bodies: type, required fields, unknown and read-only fields, wrong types', async (t) => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', config: VALID.webhook }, 'body/type is required'],
      [{ name: 'x', type: 'sms', config: {} }, `body/type must be one of: ${CHANNEL_TYPES.join(', ')}`],
      [{ name: 'x', type: 7, config: {} }, 'body/type must be string'],
      [{ type: 'webhook', config: VALID.webhook }, 'body/name is required'],
      [{ name: '   ', type: 'webhook', config: VALID.webhook }, 'body/name must be 1-255 characters and not blank'],
      [{ name: 'x', type: 'webhook' }, 'body/config is required'],
      [{ name: 'x', type: 'webhook', config: VALID.webhook, id: 'x' }, 'body/id is not allowed'],
      [{ name: 'x', type: 'webhook', config: VALID.webhook, secret: 'whsec_x' }, 'body/secret is not allowed'],
      [{ name: 'x', type: 'webhook', config: VALID.webhook, events: [] }, 'body/events must NOT have fewer than 1 items'],
      [{ name: 'x', type: 'webhook', config: VALID.webhook, events: ['incident.reopened'] }, `body/events/0 must be one of: ${CHANNEL_EVENT_TYPES.join(', ')}`],
      [{ name: 'x', type: 'webhook', config: VALID.webhook, all_monitors: 'yes' }, 'body/all_monitors must be boolean'],
      [{ name: 'x', type: 'slack', config: VALID.webhook }, 'body/config/webhook_url is required'],
    ]
    for (const [payload, message] of cases) {
      const res = await post(payload)
      t.same([res.statusCode, res.json()], [400, { error: message }], JSON.stringify(payload))
    }
  })

  await t.test('list: the caller\'s channels, newest first', async (t) => {
    const { auth: other } = await makeUser(app)
    const first = (await post({ name: 'first', type: 'email', config: VALID.email }, other)).json().data
    const second = (await post({ name: 'second', type: 'ntfy', config: { topic: 'x' } }, other)).json().data
    const list = await request(app, other, { url: '/api/v1/notification-channels' })
    t.equal(list.statusCode, 200)
    t.same(list.json(), { data: [second, first] })
  })

  await t.test('update: a subset of fields, config merged over the stored one, type fixed', async (t) => {
    const channel = (await post({ name: 'tg', type: 'telegram', config: VALID.telegram })).json().data
    const noop = await patch(channel.id, {})
    t.equal(noop.statusCode, 200)
    t.same({ ...noop.json().data, updated_at: channel.updated_at }, channel, '{} changes nothing')

    const renamed = await patch(channel.id, { name: ' renamed ', events: ['incident.resolved'], all_monitors: true })
    t.match(renamed.json().data, { name: 'renamed', events: ['incident.resolved'], all_monitors: true, config: channel.config })

    const moved = await patch(channel.id, { config: { chat_id: '@pingward_alerts' } })
    t.equal(moved.statusCode, 200)
    t.same(moved.json().data.config, { bot_token: channel.config.bot_token, chat_id: '@pingward_alerts' })
    t.same((await stored(channel.id)).config, { ...VALID.telegram, chat_id: '@pingward_alerts' }, 'the token kept')

    const echoed = await patch(channel.id, { config: moved.json().data.config })
    t.equal(echoed.statusCode, 200, 'the config as read, masked secret and all, sent back')
    t.equal((await stored(channel.id)).config.bot_token, VALID.telegram.bot_token, 'keeps the stored secret')

    const token = '987654321:NewTokenNewTokenNewToken'
    const rekeyed = await patch(channel.id, { config: { bot_token: token } })
    t.equal(rekeyed.json().data.config.bot_token, '…oken')
    t.equal((await stored(channel.id)).config.bot_token, token)

    const refusals: Array<[unknown, string | RegExp]> = [
      [{ type: 'slack' }, 'body/type is not allowed'],
      [{ config: { chat_id: 'two words' } }, /^body\/config\/chat_id must be a numeric chat id/],
      [{ config: { bot_token: null } }, 'body/config/bot_token is required'],
      [{ config: { extra: 1 } }, 'body/config/extra is not allowed'],
      [{ config: 'x' }, 'body/config must be object'],
      [{ is_active: null }, 'body/is_active must be boolean, not null'],
      [{ created_at: '2026-01-01T00:00:00.000Z' }, 'body/created_at is not allowed'],
    ]
    for (const [payload, message] of refusals) {
      const res = await patch(channel.id, payload)
      t.equal(res.statusCode, 400, JSON.stringify(payload))
      t.match(res.json(), { error: message })
    }
    t.same((await stored(channel.id)).config, { ...VALID.telegram, bot_token: token, chat_id: '@pingward_alerts' }, 'refused updates change nothing')
  })

  await t.test('update: optional fields removed with null; every URL passes the target policy', async (t) => {
    const channel = (await post({ name: 'n', type: 'ntfy', config: VALID.ntfy })).json().data
    const res = await patch(channel.id, { config: { token: null, server_url: null } })
    t.same(res.json().data.config, { topic: 'pingward-alerts' })
    t.same((await stored(channel.id)).config, { topic: 'pingward-alerts' })
    const refused = await patch(channel.id, { config: { server_url: 'http://127.0.0.1:8080' } })
    t.equal(refused.statusCode, 400)
    t.match(refused.json().error, /^body\/config\/server_url: 127\.0\.0\.1 is not a public address/)
    const hook = (await post({ name: 'w', type: 'webhook', config: VALID.webhook })).json().data
    const local = await patch(hook.id, { config: { url: 'http://[::1]/hook' } })
    t.match(local.json().error, /^body\/config\/url: /)
  })

  await t.test('update: turning a channel the service disabled back on clears its reason', async (t) => {
    const channel = (await post({ name: 'gone', type: 'webhook', config: VALID.webhook })).json().data
    await app.db.update(notificationChannels).set({ isActive: false, disabledReason: 'the receiver answered 410 Gone' })
      .where(eq(notificationChannels.id, channel.id))
    const read = await request(app, auth, { url: `/api/v1/notification-channels/${channel.id}` })
    t.match(read.json().data, { is_active: false, disabled_reason: 'the receiver answered 410 Gone' })
    const renamed = await patch(channel.id, { name: 'still gone' })
    t.match(renamed.json().data, { is_active: false, disabled_reason: 'the receiver answered 410 Gone' })
    const on = await patch(channel.id, { is_active: true })
    t.match(on.json().data, { is_active: true, disabled_reason: null })
  })

  await t.test('rotate-secret: a new secret shown once, the old one kept for 24 hours; webhooks only', async (t) => {
    const created = (await post({ name: 'hook', type: 'webhook', config: VALID.webhook })).json().data
    const url = `/api/v1/notification-channels/${created.id}/rotate-secret`
    const before = Date.now()
    const res = await request(app, auth, { method: 'POST', url })
    t.equal(res.statusCode, 200)
    const rotated = res.json().data
    t.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    t.not(rotated.secret, created.secret)
    const row = await stored(created.id)
    t.equal(row.secret, rotated.secret)
    t.equal(row.previousSecret, created.secret)
    const until = row.previousSecretUntil!.getTime() - Date.parse(rotated.updated_at)
    t.equal(until, 24 * 60 * 60 * 1000, 'the old secret signs for 24 hours from the rotation')
    t.ok(Date.parse(rotated.updated_at) >= before - 1000)
    const again = (await request(app, auth, { method: 'POST', url })).json().data
    t.equal((await stored(created.id)).previousSecret, rotated.secret, 'a second rotation keeps the one it replaces')
    t.not(again.secret, rotated.secret)

    const slack = (await post({ name: 's', type: 'slack', config: VALID.slack })).json().data
    const refused = await request(app, auth, { method: 'POST', url: `/api/v1/notification-channels/${slack.id}/rotate-secret` })
    t.same([refused.statusCode, refused.json()], [400, { error: 'params/id must be a webhook channel: a slack channel has no signing secret' }])
  })

  await t.test('delete: gone for good, with its monitors\' opt-ins', async (t) => {
    const channel = (await post({ name: 'doomed', type: 'email', config: VALID.email })).json().data
    const monitor = (await request(app, auth, {
      method: 'POST', url: '/api/v1/monitors', payload: { name: 'm', url: 'https://example.com', notification_channel_ids: [channel.id] },
    })).json().data
    t.same(monitor.notification_channel_ids, [channel.id])
    const url = `/api/v1/notification-channels/${channel.id}`
    const res = await request(app, auth, { method: 'DELETE', url })
    t.equal(res.statusCode, 204)
    t.equal(res.body, '')
    t.notOk(await stored(channel.id), 'the row is deleted')
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const gone = await request(app, auth, { method, url, ...(method === 'PATCH' ? { payload: {} } : {}) })
      t.same([gone.statusCode, gone.json()], [404, { error: 'Notification channel not found' }], method)
    }
    const after = (await request(app, auth, { url: `/api/v1/monitors/${monitor.id}` })).json().data
    t.same(after.notification_channel_ids, [], 'no monitor lists it any more')
  })

  await t.test('another user\'s channel is a 404 on every route, and stays as it was', async (t) => {
    const stranger = await makeUser(app)
    const channel = (await post({ name: 'mine', type: 'webhook', config: VALID.webhook })).json().data
    const before = await stored(channel.id)
    const base = `/api/v1/notification-channels/${channel.id}`
    for (const route of [
      { method: 'GET', url: base },
      { method: 'PATCH', url: base, payload: { name: 'stolen', is_active: false } },
      { method: 'DELETE', url: base },
      { method: 'POST', url: `${base}/test` },
      { method: 'POST', url: `${base}/rotate-secret` },
      { method: 'GET', url: `${base}/deliveries` },
    ] as const) {
      const res = await request(app, stranger.auth, route)
      t.same([res.statusCode, res.json()], [404, { error: 'Notification channel not found' }], `${route.method} ${route.url}`)
    }
    t.same(await stored(channel.id), before, 'unchanged')
    const list = await request(app, stranger.auth, { url: '/api/v1/notification-channels' })
    t.same(list.json(), { data: [] })
    t.equal((await stored(channel.id)).orgId, user.id)
  })
})

t.test('without a mail server, email channels are refused', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth } = await makeUser(app)
  const res = await request(app, auth, { method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'mail', type: 'email', config: VALID.email } })
  t.same([res.statusCode, res.json()], [400, { error: 'body/type: email channels need a mail server, and this server has none (its operator sets SMTP_URL)' }])
})

t.test('test: a `test` event through the real pipeline, answered after its first attempt', async (t) => {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const { auth } = await makeUser(app)
  const secrets: string[] = []
  const receiver = await webhookReceiver(t, { verifyWith: () => secrets })
  // Neither its events nor its being off keep a test from a channel.
  const created = (await request(app, auth, {
    method: 'POST',
    url: '/api/v1/notification-channels',
    payload: { name: 'hook', type: 'webhook', config: { url: `${receiver.url}/hook` }, events: ['incident.opened'], is_active: false },
  })).json().data
  secrets.push(created.secret)
  const test = () => request(app, auth, { method: 'POST', url: `/api/v1/notification-channels/${created.id}/test` })

  const res = await test()
  t.equal(res.statusCode, 200)
  const delivery = res.json().data
  t.match(delivery, {
    channel_id: created.id, event_type: 'test', status: 'delivered', attempts: 1, next_attempt_at: null, last_status_code: 204, last_error: null,
  })
  t.match(delivery.delivered_at, ISO)
  t.match(delivery.attempt_log, [{ status_code: 204, error: null }])
  t.equal(receiver.received.length, 1, 'sent once')
  const [sent] = receiver.received
  t.same(sent.verifiedWith, [created.secret], 'signed with the channel\'s secret (standardwebhooks verifies it)')
  t.equal(sent.id, delivery.event_id, 'webhook-id is the event id')
  t.match(sent.payload, { type: 'test', data: { monitor: null, incident: null, check: null } })
  const listed = (await request(app, auth, { url: `/api/v1/notification-channels/${created.id}/deliveries` })).json().data
  t.same(listed.map((d: { id: string }) => d.id), [delivery.id], 'in the channel\'s delivery log')

  receiver.setAnswer(() => ({ status: 500 }))
  const failed = (await test()).json().data
  t.match(failed, { status: 'failed', attempts: 1, last_status_code: 500 })
  t.ok(Date.parse(failed.next_attempt_at) > Date.now(), 'retried later, as any delivery')

  receiver.setAnswer(() => ({ status: 200 }))
  const rotated = (await request(app, auth, { method: 'POST', url: `/api/v1/notification-channels/${created.id}/rotate-secret` })).json().data
  secrets.push(rotated.secret)
  t.match((await test()).json().data, { status: 'delivered' })
  t.same(receiver.received.at(-1)!.verifiedWith, [created.secret, rotated.secret], 'after a rotation, both secrets sign')
})
