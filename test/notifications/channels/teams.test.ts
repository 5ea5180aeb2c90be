// Microsoft Teams: a JSON POST of a `message` with one Adaptive Card attachment, the format of Teams workflows
// and incoming webhooks, received by a local server standing in for Teams.
import t, { type Test } from 'tap'
import { teamsAdapter } from '../../../src/notifications/channels/teams.ts'
import { MESSAGES_FOR_PEOPLE, MONITOR_ID, channel, degradedOpened, expiring, post, sendContext, standIn, stormEvents } from '../support.ts'

/** The card inside the documented envelope, once the envelope is proven exact. */
function card (t: Test, body: string) {
  const message = JSON.parse(body)
  t.equal(message.type, 'message')
  t.equal(message.attachments.length, 1)
  const [attachment] = message.attachments
  t.strictSame(Object.keys(attachment), ['contentType', 'contentUrl', 'content'])
  t.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive')
  t.equal(attachment.contentUrl, null)
  t.equal(attachment.content.$schema, 'http://adaptivecards.io/schemas/adaptive-card.json')
  t.equal(attachment.content.type, 'AdaptiveCard')
  t.equal(attachment.content.version, '1.4')
  return attachment.content
}

t.test('an incident that opened: the title, the facts as a FactSet, a button to the monitor', async (t) => {
  const teams = await standIn(t, { status: 202, answer: '' })
  const hook = channel('teams', { webhook_url: `${teams.url}/workflows/abc/triggers/manual/paths/invoke?sig=xyz` })
  t.equal(await post(teamsAdapter.render(hook, MESSAGES_FOR_PEOPLE[0][1], sendContext())), 202)
  const [request] = teams.received
  t.equal(request.url, '/workflows/abc/triggers/manual/paths/invoke?sig=xyz', 'the query (the signature) is kept')
  t.equal(request.headers['content-type'], 'application/json')
  t.strictSame(JSON.parse(request.body), {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body: [
          { type: 'TextBlock', text: 'Homepage is down', size: 'Large', weight: 'Bolder', color: 'Attention', wrap: true },
          {
            type: 'FactSet',
            facts: [
              { title: 'What failed', value: 'expected status 200, got 503' },
              { title: 'Down since', value: '2026-05-01 12:00 UTC' },
              { title: 'Down for', value: '2 min so far' },
              { title: 'Checking', value: 'https://example.com/health' },
            ],
          },
        ],
        actions: [{ type: 'Action.OpenUrl', title: 'Open in Pingward', url: `https://pingward.example.com/monitors/${MONITOR_ID}` }],
      },
    }],
  })
})

t.test('resolved, flap, test and digest', async (t) => {
  const teams = await standIn(t, { status: 202, answer: '' })
  const hook = channel('teams', { webhook_url: `${teams.url}/hook` })
  for (const [, message] of MESSAGES_FOR_PEOPLE.slice(1)) t.equal(await post(teamsAdapter.render(hook, message, sendContext())), 202)
  const [resolved, flap, test, digest] = teams.received.map((request) => card(t, request.body))
  t.strictSame(resolved.body[0], { type: 'TextBlock', text: 'Homepage is up again', size: 'Large', weight: 'Bolder', color: 'Good', wrap: true })
  t.strictSame(resolved.body[1].facts[2], { title: 'Down for', value: '3 min' })
  t.equal(flap.body[0].text, 'Homepage was down 3 min, now up')
  t.equal(flap.body[0].color, 'Warning')
  t.strictSame(test.body[1], { type: 'FactSet', facts: [{ title: 'Channel', value: 'Ops teams' }, { title: 'Sent', value: '2026-05-01 12:01 UTC' }] })
  t.strictSame(test.actions, [{ type: 'Action.OpenUrl', title: 'Open Pingward', url: 'https://pingward.example.com/' }])
  t.equal(digest.body[0].text, '12 notifications: 8 down, 4 up again')
  t.equal(digest.body.length, 13, 'the title, then one TextBlock per event')
  t.strictSame(digest.body[3], { type: 'TextBlock', text: 'Monitor 3 is up again after 3 min down', color: 'Good', wrap: true, spacing: 'Small' })
})

t.test('a storm shows its first 40 events and counts the rest, well under the 28 KB a Teams message may be', async (t) => {
  const teams = await standIn(t, { status: 202, answer: '' })
  await post(teamsAdapter.render(channel('teams', { webhook_url: `${teams.url}/hook` }), { kind: 'digest', told: stormEvents(500) }, sendContext()))
  const [request] = teams.received
  t.ok(Buffer.byteLength(request.body) < 28_000, `${Buffer.byteLength(request.body)} bytes`)
  const content = card(t, request.body)
  t.equal(content.body.length, 42)
  t.strictSame(content.body[41], { type: 'TextBlock', text: '…and 460 more', isSubtle: true, wrap: true })
})

t.test('a certificate near its expiry: a warning title, when, who issued it, a button to the monitor', async (t) => {
  const teams = await standIn(t, { status: 202, answer: '' })
  t.equal(await post(teamsAdapter.render(channel('teams', { webhook_url: `${teams.url}/hook` }), expiring, sendContext())), 202)
  const content = card(t, teams.received[0].body)
  t.strictSame(content.body, [
    { type: 'TextBlock', text: 'The certificate of Homepage expires in 7 days', size: 'Large', weight: 'Bolder', color: 'Warning', wrap: true },
    {
      type: 'FactSet',
      facts: [
        { title: 'Expires on', value: '2026-05-08 11:59 UTC' },
        { title: 'Issued by', value: 'Let\'s Encrypt, R11' },
        { title: 'Checking', value: 'https://example.com/health' },
      ],
    },
  ])
  t.strictSame(content.actions, [{ type: 'Action.OpenUrl', title: 'Open in Pingward', url: `https://pingward.example.com/monitors/${MONITOR_ID}` }])
})

t.test('a degraded incident that opened: the title says why, in the warning colour; the facts; a button to the monitor', async (t) => {
  const teams = await standIn(t, { status: 202, answer: '' })
  t.equal(await post(teamsAdapter.render(channel('teams', { webhook_url: `${teams.url}/hook` }), degradedOpened, sendContext())), 202)
  const content = card(t, teams.received[0].body)
  t.strictSame(content.body, [
    { type: 'TextBlock', text: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms', size: 'Large', weight: 'Bolder', color: 'Warning', wrap: true },
    {
      type: 'FactSet',
      facts: [
        { title: 'What is slow', value: 'response took 9120 ms, degraded after 2000 ms' },
        { title: 'Degraded since', value: '2026-05-01 12:00 UTC' },
        { title: 'Slow for', value: '2 min so far' },
        { title: 'Checking', value: 'https://example.com/health' },
      ],
    },
  ])
  t.strictSame(content.actions, [{ type: 'Action.OpenUrl', title: 'Open in Pingward', url: `https://pingward.example.com/monitors/${MONITOR_ID}` }])
})
