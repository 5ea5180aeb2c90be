// SMTP credentials never cross the network in clear: with a user and password for a server that is not on
// this machine, the sender requires STARTTLS unless SMTP_URL says `requireTLS=false`. Against a real SMTP
// server that offers no STARTTLS, named by a loopback address and by 0.0.0.0, which is not one but reaches it.
import t from 'tap'
import type { Outgoing } from '../../src/notifications/channels/types.ts'
import { createEmailSender, smtpRequiresTls } from '../../src/notifications/email-sender.ts'
import { smtpServer } from '../support/smtp-server.ts'

const FROM = 'alerts@pingward.example.com'
const mail: Extract<Outgoing, { kind: 'email' }> = {
  kind: 'email',
  to: ['ops@example.com'],
  subject: '[Pingward] Homepage is down',
  text: 'Homepage is down\n',
  messageId: '<incident-1@pingward.example.com>',
}

/** Not a loopback address by the rule, yet a connection to it reaches the server on 127.0.0.1 (Linux). */
const OTHER_HOST = '0.0.0.0'

t.test('the rule: credentials to a host that is not loopback need TLS, unless smtps:// or requireTLS=false', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['smtp://user:pass@mail.example.com:587', true],
    ['smtp://user@mail.example.com', true], // a user alone is sent too (and an empty password)
    ['smtp://user:pass@192.0.2.10:25', true],
    ['smtp://user:pass@[2001:db8::1]:25', true],
    ['smtp://user:pass@127.0.0.1.example.com', true], // a name, not an address
    ['smtp://user:pass@localhost.example.com', true],
    ['smtp://mail.example.com:25', false], // no credentials: nothing secret to send
    ['smtps://user:pass@mail.example.com', false], // TLS from the start
    ['smtp://user:pass@mail.example.com?requireTLS=false', false], // the operator's opt-out
    ['smtp://user:pass@mail.example.com?requireTLS=true', true],
    ['smtp://user:pass@localhost:25', false],
    ['smtp://user:pass@LOCALHOST.:25', false],
    ['smtp://user:pass@mail.localhost', false],
    ['smtp://user:pass@127.0.0.1:25', false],
    ['smtp://user:pass@127.8.9.10', false],
    ['smtp://user:pass@[::1]:25', false],
    ['smtp://user:pass@[::ffff:127.0.0.1]:25', false],
  ]
  for (const [url, required] of cases) t.equal(smtpRequiresTls(url), required, url)
})

t.test('a password to the loopback address goes without TLS: the server offers none, the mail is delivered', async (t) => {
  const smtp = await smtpServer(t, { user: 'pingward', password: 's3cret' })
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  await sender.verify()
  t.match(await sender.send(mail), { ok: true, statusCode: 250 })
  t.equal(smtp.received.length, 1)
})

t.test('a password to another host is not sent without TLS: refused at start and on each attempt; requireTLS=false allows it', async (t) => {
  const smtp = await smtpServer(t, { user: 'pingward', password: 's3cret', urlHost: OTHER_HOST })
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  const refusal = await sender.verify().then(() => null, (err: Error) => err.message)
  t.match(refusal, /^SMTP server smtp:\/\/pingward:\*\*\*@.* cannot be used: .*STARTTLS.*requireTLS=false/)
  t.notMatch(refusal, 's3cret')
  t.match(await sender.send(mail), { ok: false, error: /^SMTP ETLS: / })
  t.equal(smtp.received.length, 0, 'nothing was sent in clear')

  const optedOut = createEmailSender({ SMTP_URL: `${smtp.url}?requireTLS=false`, SMTP_FROM: FROM })!
  t.teardown(() => optedOut.close())
  await optedOut.verify()
  t.match(await optedOut.send(mail), { ok: true, statusCode: 250 })

  const anonymous = await smtpServer(t, { urlHost: OTHER_HOST })
  const plain = createEmailSender({ SMTP_URL: anonymous.url, SMTP_FROM: FROM })!
  t.teardown(() => plain.close())
  t.match(await plain.send(mail), { ok: true, statusCode: 250 }, 'no credentials: no TLS needed')
  t.equal(smtp.received.length + anonymous.received.length, 2)
})
