// Email: the mails of an incident, sent through nodemailer to a real SMTP server in this process and read back:
// subject, recipients, sender, text, and the threading of the "resolved" mail under the "opened" one.
import t from 'tap'
import { emailAdapter } from '../../../src/notifications/channels/email.ts'
import type { Message, Outgoing } from '../../../src/notifications/channels/types.ts'
import { createEmailSender } from '../../../src/notifications/email-sender.ts'
import type { Teardown } from '../../helper.ts'
import { smtpServer } from '../../support/smtp-server.ts'
import {
  DEGRADED_INCIDENT_ID, INCIDENT_ID, MESSAGES_FOR_PEOPLE, degradedOpened, degradedResolved, MONITOR_ID, channel, expiring, flap, opened, resolved, resolvedEvent, sendContext, stormEvents, test,
} from '../support.ts'

const inbox = channel('email', { to: ['ops@example.com', 'oncall@example.org'] })
const OPENED_ID = `<incident-${INCIDENT_ID}@pingward.example.com>`

/** Renders `messages` for the inbox channel, sends each, and returns what the SMTP server received. */
async function sendAll (t: Teardown, messages: Message[]) {
  const smtp = await smtpServer(t)
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: 'Pingward <alerts@pingward.example.com>' })!
  t.teardown(() => sender.close())
  for (const message of messages) {
    const outgoing = emailAdapter.render(inbox, message, sendContext())
    if (outgoing.kind !== 'email') throw new Error('not a mail')
    const result = await sender.send(outgoing)
    if (!result.ok) throw new Error(`not sent: ${result.error}`)
  }
  return smtp.received
}

t.test('the "opened" mail: subject, sender, recipients, the text, a Message-ID made from the incident id', async (t) => {
  const [{ mail, envelope }] = await sendAll(t, [opened])
  t.equal(mail.subject, '[Pingward] Homepage is down')
  t.strictSame(mail.from?.value, [{ name: 'Pingward', address: 'alerts@pingward.example.com' }], 'SMTP_FROM')
  t.strictSame(envelope, { from: 'alerts@pingward.example.com', to: ['ops@example.com', 'oncall@example.org'] })
  t.equal(Array.isArray(mail.to) ? '' : mail.to?.text, 'ops@example.com, oncall@example.org')
  t.equal(mail.messageId, OPENED_ID)
  t.equal(mail.inReplyTo, undefined)
  t.equal(mail.headers.get('auto-submitted'), 'auto-generated', 'no vacation replies')
  t.equal(mail.html, false, 'plain text only')
  t.equal(mail.text, [
    'Homepage is down',
    '',
    'What failed: expected status 200, got 503',
    'Down since: 2026-05-01 12:00 UTC',
    'Down for: 2 min so far',
    'Checking: https://example.com/health',
    '',
    `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    '',
  ].join('\n'))
})

t.test('the "resolved" mail answers the "opened" one: In-Reply-To, References and a "Re:" subject', async (t) => {
  const [first, second] = await sendAll(t, [opened, resolved])
  t.equal(second.mail.subject, 'Re: [Pingward] Homepage is down')
  t.equal(second.mail.messageId, `<incident-${INCIDENT_ID}-resolved@pingward.example.com>`)
  t.equal(second.mail.inReplyTo, first.mail.messageId)
  t.equal(second.mail.references, first.mail.messageId)
  t.match(second.mail.text, /^Homepage is up again\n\nWhat failed: expected status 200, got 503\nDown from: 2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC\nDown for: 3 min\n/)
})

t.test('a degraded incident\'s mails thread the same way: "is degraded" and why, then "Re:" it with "no longer degraded"', async (t) => {
  const [first, second] = await sendAll(t, [degradedOpened, degradedResolved])
  const openedId = `<incident-${DEGRADED_INCIDENT_ID}@pingward.example.com>`
  t.equal(first.mail.subject, '[Pingward] Homepage is degraded: response took 9120 ms, degraded after 2000 ms', 'the subject says why')
  t.equal(first.mail.messageId, openedId)
  t.equal(first.mail.text, [
    'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
    '',
    'What is slow: response took 9120 ms, degraded after 2000 ms',
    'Degraded since: 2026-05-01 12:00 UTC',
    'Slow for: 2 min so far',
    'Checking: https://example.com/health',
    '',
    `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    '',
  ].join('\n'))
  t.equal(second.mail.subject, 'Re: [Pingward] Homepage is degraded: response took 9120 ms, degraded after 2000 ms', 'the opened mail\'s subject')
  t.equal(second.mail.messageId, `<incident-${DEGRADED_INCIDENT_ID}-resolved@pingward.example.com>`)
  t.equal(second.mail.inReplyTo, openedId)
  t.match(second.mail.text, /^Homepage is no longer degraded\n\nWhat was slow: response took 9120 ms, degraded after 2000 ms\nDegraded from: 2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC\nSlow for: 3 min\n/)
})

t.test('a close by pause answers the "opened" mail as well', async (t) => {
  const [, closed] = await sendAll(t, [opened, { kind: 'event', told: resolvedEvent(undefined, 'pause') }])
  t.equal(closed.mail.subject, 'Re: [Pingward] Homepage is down')
  t.equal(closed.mail.inReplyTo, OPENED_ID)
  t.match(closed.mail.text, /^Homepage: incident closed, the monitor was paused\n/)
})

t.test('a flap is the incident\'s one mail; a test and a digest stand alone', async (t) => {
  const [flapMail, testMail, digestMail] = await sendAll(t, [flap, test, MESSAGES_FOR_PEOPLE[4][1]])
  t.equal(flapMail.mail.subject, '[Pingward] Homepage was down 3 min, now up')
  t.equal(flapMail.mail.messageId, OPENED_ID)
  t.equal(testMail.mail.subject, '[Pingward] Test notification from Pingward')
  t.equal(testMail.mail.messageId, '<event-a1a1a1a1-0000-4000-8000-000000000003@pingward.example.com>')
  t.equal(testMail.mail.text, 'Test notification from Pingward\n\nChannel: Ops email\nSent: 2026-05-01 12:01 UTC\n\nOpen Pingward: https://pingward.example.com/\n')
  t.equal(digestMail.mail.subject, '[Pingward] 12 notifications: 8 down, 4 up again')
  t.equal(digestMail.mail.messageId, `<digest-${stormEvents(1)[0].id}@pingward.example.com>`)
  t.match(digestMail.mail.text, /\n- Monitor 11 is down since 2026-05-01 12:00 UTC: expected status 200, got 503 \(https:\/\/pingward\.example\.com\/monitors\/6f1c2a8e-3b4d-4e5f-8a9b-000000000010\)\n/)
  for (const { mail } of [flapMail, testMail, digestMail]) t.equal(mail.inReplyTo, undefined)
})

t.test('the same message renders the same mail on every retry, so a receiver sees one thread', async (t) => {
  const render = (): Outgoing => emailAdapter.render(inbox, resolved, sendContext())
  t.strictSame(render(), render())
  t.throws(() => emailAdapter.render(channel('email', { to: [] }), opened, sendContext()), /has no addresses/)
})

t.test('a certificate near its expiry: a subject that says it, when, who issued it, a mail of its own', async (t) => {
  const [{ mail, envelope }] = await sendAll(t, [expiring])
  t.equal(mail.subject, '[Pingward] The certificate of Homepage expires in 7 days')
  t.strictSame(envelope, { from: 'alerts@pingward.example.com', to: ['ops@example.com', 'oncall@example.org'] })
  t.equal(mail.messageId, '<event-a1a1a1a1-0000-4000-8000-000000000004@pingward.example.com>')
  t.equal(mail.inReplyTo, undefined)
  t.equal(mail.text, [
    'The certificate of Homepage expires in 7 days',
    '',
    'Expires on: 2026-05-08 11:59 UTC',
    'Issued by: Let\'s Encrypt, R11',
    'Checking: https://example.com/health',
    '',
    `Open in Pingward: https://pingward.example.com/monitors/${MONITOR_ID}`,
    '',
  ].join('\n'))
})
