// Telegram Bot API sendMessage: a JSON POST to `${TELEGRAM_API_URL}/bot<token>/sendMessage` with chat_id, text,
// parse_mode HTML and no link preview, received by a local server standing in for the Bot API.
import t from 'tap'
import { telegramAdapter } from '../../../src/notifications/channels/telegram.ts'
import {
  MESSAGES_FOR_PEOPLE, MONITOR_ID, channel, degradedOpened, expiring, monitorRecord, openedEvent, post, sendContext, standIn, stormEvents,
} from '../support.ts'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const answer = JSON.stringify({ ok: true, result: { message_id: 1 } })

t.test('an incident that opened: the bot\'s method URL, the chat, the text in HTML', async (t) => {
  const bot = await standIn(t, { answer })
  const context = sendContext(bot.url)
  t.equal(await post(telegramAdapter.render(channel('telegram', { bot_token: TOKEN, chat_id: '-1001234567890' }), MESSAGES_FOR_PEOPLE[0][1], context)), 200)
  const [request] = bot.received
  t.equal(request.method, 'POST')
  t.equal(request.url, `/telegram/bot${TOKEN}/sendMessage`, 'TELEGRAM_API_URL, then /bot<token>/sendMessage')
  t.equal(request.headers['content-type'], 'application/json')
  t.strictSame(JSON.parse(request.body), {
    chat_id: '-1001234567890',
    text: [
      '🔴 <b>Homepage is down</b>',
      '',
      '<b>What failed:</b> expected status 200, got 503',
      '<b>Down since:</b> 2026-05-01 12:00 UTC',
      '<b>Down for:</b> 2 min so far',
      '<b>Checking:</b> https://example.com/health',
      '',
      `<a href="https://pingward.example.com/monitors/${MONITOR_ID}">Open in Pingward</a>`,
    ].join('\n'),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  })
})

t.test('a numeric chat id stays a number; resolved, flap, test and digest', async (t) => {
  const bot = await standIn(t, { answer })
  const chat = channel('telegram', { bot_token: TOKEN, chat_id: 42 })
  for (const [, message] of MESSAGES_FOR_PEOPLE.slice(1)) t.equal(await post(telegramAdapter.render(chat, message, sendContext(bot.url))), 200)
  const [resolved, flap, test, digest] = bot.received.map((request) => JSON.parse(request.body))
  t.equal(resolved.chat_id, 42)
  t.match(resolved.text, /^🟢 <b>Homepage is up again<\/b>\n\n<b>What failed:<\/b> expected status 200, got 503\n<b>Down from:<\/b> 2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC\n<b>Down for:<\/b> 3 min\n/)
  t.match(flap.text, /^⚠️ <b>Homepage was down 3 min, now up<\/b>\n/)
  t.equal(test.text, 'ℹ️ <b>Test notification from Pingward</b>\n\n<b>Channel:</b> Ops telegram\n<b>Sent:</b> 2026-05-01 12:01 UTC\n\n<a href="https://pingward.example.com/">Open Pingward</a>')
  const lines = digest.text.split('\n')
  t.equal(lines[0], '🔴 <b>12 notifications: 8 down, 4 up again</b>')
  t.equal(lines[2], '🔴 Monitor 1 is down since 2026-05-01 12:00 UTC: expected status 200, got 503 <a href="https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000000">open</a>')
  t.equal(lines.length, 2 + 12 + 2)
})

t.test('HTML in a monitor\'s text is escaped, and a storm stays within 4,096 characters', async (t) => {
  const bot = await standIn(t, { answer })
  const chat = channel('telegram', { bot_token: TOKEN, chat_id: '@ops' })
  const sly = openedEvent(monitorRecord({ name: '<b>A & B</b>' }))
  sly.event.data.incident!.cause = 'got "<script>"'
  await post(telegramAdapter.render(chat, { kind: 'event', told: sly }, sendContext(bot.url)))
  await post(telegramAdapter.render(chat, { kind: 'digest', told: stormEvents(500) }, sendContext(bot.url)))
  const [escaped, storm] = bot.received.map((request) => JSON.parse(request.body))
  t.match(escaped.text, /^🔴 <b>&lt;b&gt;A &amp; B&lt;\/b&gt; is down<\/b>\n\n<b>What failed:<\/b> got &quot;&lt;script&gt;&quot;\n/)
  t.ok(storm.text.length <= 4096, `${storm.text.length} characters`)
  t.match(storm.text, /\n…and \d+ more\n\n<a href=/)
})

t.test('a certificate near its expiry: when, who issued it, what is checked, the link', async (t) => {
  const bot = await standIn(t, { answer })
  t.equal(await post(telegramAdapter.render(channel('telegram', { bot_token: TOKEN, chat_id: '42' }), expiring, sendContext(bot.url))), 200)
  t.strictSame(JSON.parse(bot.received[0].body), {
    chat_id: '42',
    text: [
      '⏳ <b>The certificate of Homepage expires in 7 days</b>',
      '',
      '<b>Expires on:</b> 2026-05-08 11:59 UTC',
      '<b>Issued by:</b> Let\'s Encrypt, R11',
      '<b>Checking:</b> https://example.com/health',
      '',
      `<a href="https://pingward.example.com/monitors/${MONITOR_ID}">Open in Pingward</a>`,
    ].join('\n'),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  })
})

t.test('a degraded incident that opened: the bold title says why, then what is slow, since when, the link', async (t) => {
  const bot = await standIn(t, { answer })
  t.equal(await post(telegramAdapter.render(channel('telegram', { bot_token: TOKEN, chat_id: '42' }), degradedOpened, sendContext(bot.url))), 200)
  t.strictSame(JSON.parse(bot.received[0].body), {
    chat_id: '42',
    text: [
      '⚠️ <b>Homepage is degraded: response took 9120 ms, degraded after 2000 ms</b>',
      '',
      '<b>What is slow:</b> response took 9120 ms, degraded after 2000 ms',
      '<b>Degraded since:</b> 2026-05-01 12:00 UTC',
      '<b>Slow for:</b> 2 min so far',
      '<b>Checking:</b> https://example.com/health',
      '',
      `<a href="https://pingward.example.com/monitors/${MONITOR_ID}">Open in Pingward</a>`,
    ].join('\n'),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  })
})
