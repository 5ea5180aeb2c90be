// Discord webhook: a JSON POST with `content`, one embed (title, url, color, fields, timestamp) and no mentions
// allowed, as Discord's "Execute Webhook" documents it, received by a local server standing in for Discord.
import t from 'tap'
import { discordAdapter } from '../../../src/notifications/channels/discord.ts'
import {
  MESSAGES_FOR_PEOPLE, MONITOR_ID, channel, degradedEvent, degradedOpened, expiring, monitorRecord, openedEvent, post, sendContext, standIn, stormEvents,
} from '../support.ts'

const monitorPage = `https://pingward.example.com/monitors/${MONITOR_ID}`

t.test('an incident that opened: content for the phone, an embed with the facts and the link', async (t) => {
  const discord = await standIn(t, { status: 204, answer: '' })
  const hook = channel('discord', { webhook_url: `${discord.url}/api/webhooks/123/abc` })
  t.equal(await post(discordAdapter.render(hook, MESSAGES_FOR_PEOPLE[0][1], sendContext())), 204)
  const [request] = discord.received
  t.equal(request.url, '/api/webhooks/123/abc')
  t.equal(request.headers['content-type'], 'application/json')
  t.strictSame(JSON.parse(request.body), {
    content: '🔴 Homepage is down',
    embeds: [{
      title: 'Homepage is down',
      url: monitorPage,
      color: 0xd93025,
      fields: [
        { name: 'What failed', value: 'expected status 200, got 503', inline: true },
        { name: 'Down since', value: '2026-05-01 12:00 UTC', inline: true },
        { name: 'Down for', value: '2 min so far', inline: true },
        { name: 'Checking', value: 'https://example.com/health', inline: false },
      ],
      timestamp: '2026-05-01T12:02:05.000Z',
      footer: { text: 'Pingward' },
    }],
    allowed_mentions: { parse: [] },
  })
})

t.test('resolved, flap, test and digest', async (t) => {
  const discord = await standIn(t, { status: 204, answer: '' })
  const hook = channel('discord', { webhook_url: `${discord.url}/hook` })
  for (const [, message] of MESSAGES_FOR_PEOPLE.slice(1)) t.equal(await post(discordAdapter.render(hook, message, sendContext())), 204)
  const [resolved, flap, test, digest] = discord.received.map((request) => JSON.parse(request.body))
  t.equal(resolved.content, '🟢 Homepage is up again')
  t.equal(resolved.embeds[0].color, 0x1e8e3e)
  t.strictSame(resolved.embeds[0].fields[2], { name: 'Down for', value: '3 min', inline: true })
  t.equal(flap.content, '⚠️ Homepage was down 3 min, now up')
  t.equal(flap.embeds[0].color, 0xf9ab00)
  t.strictSame(test.embeds[0].fields, [{ name: 'Channel', value: 'Ops discord', inline: true }, { name: 'Sent', value: '2026-05-01 12:01 UTC', inline: true }])
  t.equal(test.embeds[0].url, 'https://pingward.example.com/')
  t.equal(digest.content, '🔴 12 notifications: 8 down, 4 up again')
  t.strictSame(digest.embeds[0].fields, [])
  const lines = digest.embeds[0].description.split('\n')
  t.equal(lines.length, 12)
  t.equal(lines[2], '🟢 Monitor 3 is up again after 3 min down ([open](https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000002))')
})

t.test('a monitor\'s name is shown as written (markdown escaped), pings nobody, and a storm stays within the limits', async (t) => {
  const discord = await standIn(t, { status: 204, answer: '' })
  const hook = channel('discord', { webhook_url: `${discord.url}/hook` })
  await post(discordAdapter.render(hook, { kind: 'event', told: openedEvent(monitorRecord({ name: '@everyone *bold* `code`' })) }, sendContext()))
  await post(discordAdapter.render(hook, { kind: 'digest', told: stormEvents(500) }, sendContext()))
  const [named, storm] = discord.received.map((request) => JSON.parse(request.body))
  t.equal(named.content, '🔴 @everyone \\*bold\\* \\`code\\` is down')
  t.strictSame(named.allowed_mentions, { parse: [] })
  const embed = storm.embeds[0]
  t.ok(embed.description.length <= 4096, `description ${embed.description.length} characters`)
  t.ok(JSON.stringify(embed).length < 6000, 'the whole embed under 6,000 characters')
  t.match(embed.description, /\n…and \d+ more$/)
})

t.test('a certificate near its expiry: content for the phone, an embed with when, who issued it and the link', async (t) => {
  const discord = await standIn(t, { status: 204, answer: '' })
  t.equal(await post(discordAdapter.render(channel('discord', { webhook_url: `${discord.url}/hook` }), expiring, sendContext())), 204)
  t.strictSame(JSON.parse(discord.received[0].body), {
    content: '⏳ The certificate of Homepage expires in 7 days',
    embeds: [{
      title: 'The certificate of Homepage expires in 7 days',
      url: monitorPage,
      color: 0xe8710a,
      fields: [
        { name: 'Expires on', value: '2026-05-08 11:59 UTC', inline: true },
        { name: 'Issued by', value: 'Let\'s Encrypt, R11', inline: true },
        { name: 'Checking', value: 'https://example.com/health', inline: false },
      ],
      timestamp: '2026-05-01T12:02:05.000Z',
      footer: { text: 'Pingward' },
    }],
    allowed_mentions: { parse: [] },
  })
})

t.test('a degraded incident that opened: the content and the embed\'s title say why; a long name keeps the title within 256', async (t) => {
  const discord = await standIn(t, { status: 204, answer: '' })
  const hook = channel('discord', { webhook_url: `${discord.url}/hook` })
  t.equal(await post(discordAdapter.render(hook, degradedOpened, sendContext())), 204)
  const long = degradedEvent('opened')
  long.event.data.monitor = { ...long.event.data.monitor!, name: 'N'.repeat(255) }
  t.equal(await post(discordAdapter.render(hook, { kind: 'event', told: long }, sendContext())), 204)
  const [degraded, named] = discord.received.map((request) => JSON.parse(request.body))
  t.strictSame(degraded, {
    content: '⚠️ Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
    embeds: [{
      title: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
      url: monitorPage,
      color: 0xf9ab00,
      fields: [
        { name: 'What is slow', value: 'response took 9120 ms, degraded after 2000 ms', inline: true },
        { name: 'Degraded since', value: '2026-05-01 12:00 UTC', inline: true },
        { name: 'Slow for', value: '2 min so far', inline: true },
        { name: 'Checking', value: 'https://example.com/health', inline: false },
      ],
      timestamp: '2026-05-01T12:02:05.000Z',
      footer: { text: 'Pingward' },
    }],
    allowed_mentions: { parse: [] },
  })
  t.equal(named.embeds[0].title.length, 256, 'the embed title cut to Discord\'s 256')
  t.match(named.embeds[0].title, /^N{255}…$/)
  t.equal(named.content, `⚠️ ${'N'.repeat(255)} is degraded: response took 9120 ms, degraded after 2000 ms`, 'content (2,000) takes it whole')
})
