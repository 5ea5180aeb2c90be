// Every channel type has a working adapter: each renders every message it is given (people's adapters get
// flaps and digests too) into a request its stand-in takes, or a mail an SMTP server takes. No placeholder survives.
import t from 'tap'
import { CHANNEL_TYPES, NOTIFICATION_EVENT_TYPES, type ChannelType } from '../../../src/domain/vocabulary.ts'
import { USER_AGENT } from '../../../src/net/user-agent.ts'
import { CHANNEL_ADAPTERS } from '../../../src/notifications/channels/index.ts'
import type { Message } from '../../../src/notifications/channels/types.ts'
import { createEmailSender } from '../../../src/notifications/email-sender.ts'
import { smtpServer } from '../../support/smtp-server.ts'
import {
  MESSAGES_FOR_PEOPLE, acknowledged, channel, reminder, degradedEvent, degradedOpened, degradedResolved, expiring, expiringEvent, heartbeatMissed, heartbeatMissedEvent,
  coverageEvent, maintenanceEvent, opened, post, resolved, sendContext, standIn, stormEvents, test,
} from '../support.ts'

/** A valid config of each type, pointing at `base` (a stand-in) where the config holds a URL. */
const CONFIGS: Record<ChannelType, (base: string) => Record<string, unknown>> = {
  webhook: (base) => ({ url: `${base}/webhook` }),
  slack: (base) => ({ webhook_url: `${base}/slack` }),
  discord: (base) => ({ webhook_url: `${base}/discord` }),
  teams: (base) => ({ webhook_url: `${base}/teams` }),
  telegram: () => ({ bot_token: '123:abc', chat_id: '42' }),
  ntfy: (base) => ({ topic: 'ops', server_url: `${base}/ntfy` }),
  pagerduty: () => ({ routing_key: 'R0UT1NGKEY' }),
  email: () => ({ to: ['ops@example.com'] }),
}

// Every event type, one message each (the list must grow with NOTIFICATION_EVENT_TYPES: see the test below).
const EVENTS: Array<[string, Message]> = [
  ['opened', opened], ['resolved', resolved], ['monitor.degraded opened', degradedOpened], ['monitor.degraded resolved', degradedResolved],
  ['monitor.degraded resolved by a pause', { kind: 'event', told: degradedEvent('resolved', 'pause') }],
  ['tls.expiring', expiring], ['test', test], ['heartbeat.missed', heartbeatMissed], ['incident.acknowledged', acknowledged], ['incident.reminder', reminder],
  ['maintenance.started', { kind: 'event', told: maintenanceEvent('started') }], ['maintenance.ended', { kind: 'event', told: maintenanceEvent('ended') }],
  ['location.coverage_lost', { kind: 'event', told: coverageEvent('lost') }], ['location.coverage_restored', { kind: 'event', told: coverageEvent('restored') }],
]
const FOR_PEOPLE: Array<[string, Message]> = [
  ...MESSAGES_FOR_PEOPLE,
  ['tls.expiring', expiring],
  ['digest with a certificate', { kind: 'digest', told: [...stormEvents(11), expiringEvent()] }],
  ['heartbeat.missed', heartbeatMissed],
  ['digest with a missed heartbeat', { kind: 'digest', told: [...stormEvents(11), heartbeatMissedEvent()] }],
]

t.test('the registry covers exactly the channel types', async (t) => {
  t.strictSame(Object.keys(CHANNEL_ADAPTERS).sort(), [...CHANNEL_TYPES].sort())
})

t.test('the messages below hold every event type', async (t) => {
  const types = new Set(EVENTS.map(([, message]) => message.kind === 'event' && message.told.event.type))
  t.strictSame([...types].sort(), [...NOTIFICATION_EVENT_TYPES].sort())
})

for (const type of CHANNEL_TYPES) {
  t.test(`${type}: every message it is given renders and is taken by the service`, async (t) => {
    const adapter = CHANNEL_ADAPTERS[type]
    const messages = adapter.forPeople ? FOR_PEOPLE : EVENTS
    const service = await standIn(t, { answer: '{"ok":true}' })
    const context = sendContext(service.url)
    const target = { ...channel(type, CONFIGS[type](service.url)), secrets: type === 'webhook' ? [`whsec_${Buffer.alloc(32, 7).toString('base64')}`] : [] }
    const smtp = type === 'email' ? await smtpServer(t) : null
    const mailer = smtp ? createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: 'alerts@example.com' }) : null
    t.teardown(() => mailer?.close())
    for (const [name, message] of messages) {
      const outgoing = adapter.render(target, message, context)
      if (outgoing.kind === 'email') {
        t.match(await mailer!.send(outgoing), { ok: true }, `${name}: the SMTP server took it`)
        continue
      }
      t.equal(await post(outgoing), 200, `${name}: the stand-in took it`)
      const request = service.received.at(-1)!
      t.equal(request.headers['content-type'], 'application/json', `${name}: JSON`)
      t.equal(request.headers['user-agent'], USER_AGENT, `${name}: says it is Pingward`)
      t.type(JSON.parse(request.body), 'object', `${name}: a JSON object`)
    }
    t.equal(service.received.length + (smtp?.received.length ?? 0), messages.length, 'one request or mail per message')
  })
}
