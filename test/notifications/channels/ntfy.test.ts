// ntfy: a JSON publish to the server's root (topic, title, message, priority, tags, click), to the channel's
// server_url or else NTFY_URL, with its token as a Bearer token, received by a local server standing in for ntfy.
import t from 'tap'
import { ntfyAdapter } from '../../../src/notifications/channels/ntfy.ts'
import { MESSAGES_FOR_PEOPLE, MONITOR_ID, channel, degradedOpened, expiring, post, sendContext, standIn, stormEvents } from '../support.ts'

const answer = JSON.stringify({ id: 'sPs71M8A2T', event: 'message', topic: 'pingward-ops' })

t.test('an incident that opened: to NTFY_URL\'s root, high priority, a siren, the monitor on click', async (t) => {
  const ntfy = await standIn(t, { answer })
  t.equal(await post(ntfyAdapter.render(channel('ntfy', { topic: 'pingward-ops' }), MESSAGES_FOR_PEOPLE[0][1], sendContext(ntfy.url))), 200)
  const [request] = ntfy.received
  t.equal(request.method, 'POST')
  t.equal(request.url, '/ntfy/', 'JSON is published to the server root, not to /<topic>')
  t.equal(request.headers['content-type'], 'application/json')
  t.notOk('authorization' in request.headers, 'no token, no Authorization')
  t.strictSame(JSON.parse(request.body), {
    topic: 'pingward-ops',
    title: 'Homepage is down',
    message: [
      'What failed: expected status 200, got 503',
      'Down since: 2026-05-01 12:00 UTC',
      'Down for: 2 min so far',
      'Checking: https://example.com/health',
      '',
      `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    ].join('\n'),
    priority: 4,
    tags: ['rotating_light'],
    click: `https://pingward.example.com/monitors/${MONITOR_ID}`,
  })
})

t.test('the channel\'s own server (a trailing slash or not) and its access token', async (t) => {
  const own = await standIn(t, { answer })
  for (const server of [own.url, `${own.url}/`]) {
    const outgoing = ntfyAdapter.render(channel('ntfy', { topic: 'alerts', server_url: server, token: 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2' }), MESSAGES_FOR_PEOPLE[1][1], sendContext())
    t.equal(await post(outgoing), 200)
  }
  for (const request of own.received) {
    t.equal(request.url, '/')
    t.equal(request.headers.authorization, 'Bearer tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2')
    t.match(JSON.parse(request.body), { topic: 'alerts', title: 'Homepage is up again', priority: 3, tags: ['white_check_mark'] })
  }
})

t.test('flap, test and digest', async (t) => {
  const ntfy = await standIn(t, { answer })
  const topic = channel('ntfy', { topic: 'pingward-ops' })
  for (const [, message] of MESSAGES_FOR_PEOPLE.slice(2)) t.equal(await post(ntfyAdapter.render(topic, message, sendContext(ntfy.url))), 200)
  const [flap, test, digest] = ntfy.received.map((request) => JSON.parse(request.body))
  t.match(flap, { title: 'Homepage was down 3 min, now up', priority: 3, tags: ['warning'] })
  t.strictSame(test, {
    topic: 'pingward-ops',
    title: 'Test notification from Pingward',
    message: 'Channel: Ops ntfy\nSent: 2026-05-01 12:01 UTC\n\nOpen Pingward: https://pingward.example.com/',
    priority: 3,
    tags: ['information_source'],
    click: 'https://pingward.example.com/',
  })
  t.match(digest, { title: '12 notifications: 8 down, 4 up again', priority: 4, tags: ['rotating_light'] })
  t.equal(digest.message.split('\n').length, 12 + 2)
})

t.test('a storm\'s message stays under the 4,096 bytes past which ntfy makes it an attachment', async (t) => {
  const ntfy = await standIn(t, { answer })
  await post(ntfyAdapter.render(channel('ntfy', { topic: 'x' }), { kind: 'digest', told: stormEvents(200) }, sendContext(ntfy.url)))
  const { message } = JSON.parse(ntfy.received[0].body)
  t.ok(Buffer.byteLength(message) <= 4096, `${Buffer.byteLength(message)} bytes`)
  t.match(message, /…$/)
})

t.test('a certificate near its expiry: the default priority, an hourglass, the monitor on click', async (t) => {
  const ntfy = await standIn(t, { answer })
  t.equal(await post(ntfyAdapter.render(channel('ntfy', { topic: 'pingward-ops' }), expiring, sendContext(ntfy.url))), 200)
  t.strictSame(JSON.parse(ntfy.received[0].body), {
    topic: 'pingward-ops',
    title: 'The certificate of Homepage expires in 7 days',
    message: [
      'Expires on: 2026-05-08 11:59 UTC',
      'Issued by: Let\'s Encrypt, R11',
      'Checking: https://example.com/health',
      '',
      `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    ].join('\n'),
    priority: 3,
    tags: ['hourglass_flowing_sand'],
    click: `https://pingward.example.com/monitors/${MONITOR_ID}`,
  })
})

t.test('a degraded incident that opened: the title says why; the default priority, a warning sign', async (t) => {
  const ntfy = await standIn(t, { answer })
  t.equal(await post(ntfyAdapter.render(channel('ntfy', { topic: 'pingward-ops' }), degradedOpened, sendContext(ntfy.url))), 200)
  t.strictSame(JSON.parse(ntfy.received[0].body), {
    topic: 'pingward-ops',
    title: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
    message: [
      'What is slow: response took 9120 ms, degraded after 2000 ms',
      'Degraded since: 2026-05-01 12:00 UTC',
      'Slow for: 2 min so far',
      'Checking: https://example.com/health',
      '',
      `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    ].join('\n'),
    priority: 3,
    tags: ['warning'],
    click: `https://pingward.example.com/monitors/${MONITOR_ID}`,
  })
})
