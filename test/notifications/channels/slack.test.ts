// Slack incoming webhook: a JSON POST to the webhook URL with `text` (the notification) and Block Kit `blocks`,
// as Slack documents them, received by a local server standing in for Slack.
import t from 'tap'
import { slackAdapter } from '../../../src/notifications/channels/slack.ts'
import {
  MESSAGES_FOR_PEOPLE, MONITOR_ID, channel, degradedEvent, degradedOpened, degradedResolved, expiring, monitorRecord, openedEvent, post, sendContext, standIn, stormEvents,
} from '../support.ts'

const monitorPage = `https://pingward.example.com/monitors/${MONITOR_ID}`

t.test('an incident that opened: text for the phone, a header, the facts as fields, the link', async (t) => {
  const slack = await standIn(t)
  const outgoing = slackAdapter.render(channel('slack', { webhook_url: `${slack.url}/services/T000/B000/XXXX` }), MESSAGES_FOR_PEOPLE[0][1], sendContext())
  t.equal(await post(outgoing), 200)
  const [request] = slack.received
  t.equal(request.method, 'POST')
  t.equal(request.url, '/services/T000/B000/XXXX')
  t.equal(request.headers['content-type'], 'application/json')
  t.strictSame(JSON.parse(request.body), {
    text: 'Homepage is down: expected status 200, got 503',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: ':red_circle: Homepage is down', emoji: true } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*What failed*\nexpected status 200, got 503' },
          { type: 'mrkdwn', text: '*Down since*\n2026-05-01 12:00 UTC' },
          { type: 'mrkdwn', text: '*Down for*\n2 min so far' },
          { type: 'mrkdwn', text: '*Checking*\nhttps://example.com/health' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `<${monitorPage}|Open in Pingward>` } },
    ],
  })
})

t.test('resolved, flap, test and digest each arrive in the same format', async (t) => {
  const slack = await standIn(t)
  const hook = channel('slack', { webhook_url: `${slack.url}/hook` })
  for (const [, message] of MESSAGES_FOR_PEOPLE.slice(1)) t.equal(await post(slackAdapter.render(hook, message, sendContext())), 200)
  const [resolved, flap, test, digest] = slack.received.map((request) => JSON.parse(request.body))
  t.equal(resolved.text, 'Homepage is up again: expected status 200, got 503')
  t.strictSame(resolved.blocks[0], { type: 'header', text: { type: 'plain_text', text: ':large_green_circle: Homepage is up again', emoji: true } })
  t.strictSame(resolved.blocks[1].fields[1], { type: 'mrkdwn', text: '*Down from*\n2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC' })
  t.strictSame(resolved.blocks[1].fields[2], { type: 'mrkdwn', text: '*Down for*\n3 min' })
  t.equal(flap.blocks[0].text.text, ':warning: Homepage was down 3 min, now up')
  t.strictSame(test, {
    text: 'Test notification from Pingward: Ops slack',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: ':information_source: Test notification from Pingward', emoji: true } },
      { type: 'section', fields: [{ type: 'mrkdwn', text: '*Channel*\nOps slack' }, { type: 'mrkdwn', text: '*Sent*\n2026-05-01 12:01 UTC' }] },
      { type: 'section', text: { type: 'mrkdwn', text: '<https://pingward.example.com/|Open Pingward>' } },
    ],
  })
  t.equal(digest.text, '12 notifications: 8 down, 4 up again')
  t.equal(digest.blocks.length, 3, 'header, the lines, the link')
  const lines = digest.blocks[1].text.text.split('\n')
  t.equal(lines.length, 12)
  t.equal(lines[0], ':red_circle: Monitor 1 is down since 2026-05-01 12:00 UTC: expected status 200, got 503 <https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000000|open>')
  t.equal(lines[2], ':large_green_circle: Monitor 3 is up again after 3 min down <https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000002|open>')
})

t.test('a monitor\'s own text cannot make links or mentions, and a storm stays within Slack\'s limits', async (t) => {
  const slack = await standIn(t)
  const hook = channel('slack', { webhook_url: `${slack.url}/hook` })
  const sly = openedEvent(monitorRecord({ name: 'A & B <!channel>' }))
  sly.event.data.incident!.cause = '<https://evil.example|click me>'
  await post(slackAdapter.render(hook, { kind: 'event', told: sly }, sendContext()))
  await post(slackAdapter.render(hook, { kind: 'digest', told: stormEvents(500) }, sendContext()))
  const [escaped, storm] = slack.received.map((request) => JSON.parse(request.body))
  t.equal(escaped.text, 'A &amp; B &lt;!channel&gt; is down: &lt;https://evil.example|click me&gt;')
  t.equal(escaped.blocks[1].fields[0].text, '*What failed*\n&lt;https://evil.example|click me&gt;')
  t.equal(escaped.blocks[0].text.text, ':red_circle: A & B <!channel> is down', 'plain_text is shown as written')
  const text = storm.blocks[1].text.text
  t.ok(text.length <= 3000, `a section's text is at most 3,000 characters (${text.length})`)
  t.match(text, /\n…and \d+ more$/)
  t.ok(storm.blocks.length <= 50)
})

t.test('a certificate near its expiry: when, who issued it, what is checked, the link', async (t) => {
  const slack = await standIn(t)
  t.equal(await post(slackAdapter.render(channel('slack', { webhook_url: `${slack.url}/hook` }), expiring, sendContext())), 200)
  t.strictSame(JSON.parse(slack.received[0].body), {
    text: 'The certificate of Homepage expires in 7 days: 2026-05-08 11:59 UTC',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: ':hourglass_flowing_sand: The certificate of Homepage expires in 7 days', emoji: true } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*Expires on*\n2026-05-08 11:59 UTC' },
          { type: 'mrkdwn', text: '*Issued by*\nLet\'s Encrypt, R11' },
          { type: 'mrkdwn', text: '*Checking*\nhttps://example.com/health' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `<${monitorPage}|Open in Pingward>` } },
    ],
  })
})

t.test('a degraded incident that opened: text and header say why, the cause once; resolved, the text adds what was slow', async (t) => {
  const slack = await standIn(t)
  const hook = channel('slack', { webhook_url: `${slack.url}/hook` })
  const long = degradedEvent('opened')
  long.event.data.monitor = { ...long.event.data.monitor!, name: 'N'.repeat(255) }
  for (const message of [degradedOpened, degradedResolved, { kind: 'event' as const, told: long }]) {
    t.equal(await post(slackAdapter.render(hook, message, sendContext())), 200)
  }
  const [degraded, resolved, named] = slack.received.map((request) => JSON.parse(request.body))
  t.strictSame(degraded, {
    text: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: ':warning: Homepage is degraded: response took 9120 ms, degraded after 2000 ms', emoji: true } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: '*What is slow*\nresponse took 9120 ms, degraded after 2000 ms' },
          { type: 'mrkdwn', text: '*Degraded since*\n2026-05-01 12:00 UTC' },
          { type: 'mrkdwn', text: '*Slow for*\n2 min so far' },
          { type: 'mrkdwn', text: '*Checking*\nhttps://example.com/health' },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `<${monitorPage}|Open in Pingward>` } },
    ],
  })
  t.equal(resolved.text, 'Homepage is no longer degraded: response took 9120 ms, degraded after 2000 ms')
  t.equal(named.text, `${'N'.repeat(255)} is degraded: response took 9120 ms, degraded after 2000 ms`, 'the cause once, even after a long name')
  t.equal(named.blocks[0].text.text.length, 150, 'the header cut to Slack\'s 150')
})
