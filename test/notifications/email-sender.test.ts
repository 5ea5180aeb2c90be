// The SMTP sender against a real SMTP server in this process: none without SMTP_URL, the check at start, a
// password, refused recipients, a server that is down or never greets, an abort; an attempt never throws.
// Credentials never go in clear to a host that is not loopback, unless SMTP_URL says requireTLS=false.
import { createServer, type Socket } from 'node:net'
import t from 'tap'
import type { Outgoing } from '../../src/notifications/channels/types.ts'
import { createEmailSender, smtpRequiresTls } from '../../src/notifications/email-sender.ts'
import { smtpServer } from '../support/smtp-server.ts'
import { freePort, listen } from '../support/target-server.ts'

const FROM = 'alerts@pingward.example.com'
const mail: Extract<Outgoing, { kind: 'email' }> = {
  kind: 'email',
  to: ['ops@example.com'],
  subject: '[Pingward] Homepage is down',
  text: 'Homepage is down\n',
  messageId: '<incident-1@pingward.example.com>',
}

t.test('no SMTP_URL, no sender: email channels are refused before anything is sent', async (t) => {
  t.equal(createEmailSender({}), null)
})

t.test('the server takes the mail: delivered, with its reply code', async (t) => {
  const smtp = await smtpServer(t)
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  await sender.verify()
  const result = await sender.send(mail)
  t.match(result, { ok: true, statusCode: 250, error: null })
  t.type(result.durationMs, 'number')
  t.equal(smtp.received.length, 1)
  t.equal(smtp.received[0].mail.messageId, mail.messageId)
})

t.test('a password: the right one is used from SMTP_URL, a wrong one shows at start without being printed', async (t) => {
  const smtp = await smtpServer(t, { user: 'pingward', password: 's3cret/with:odd@chars' })
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  await sender.verify()
  t.match(await sender.send(mail), { ok: true, statusCode: 250 })
  const wrong = createEmailSender({ SMTP_URL: `smtp://pingward:guess@127.0.0.1:${smtp.port}`, SMTP_FROM: FROM })!
  t.teardown(() => wrong.close())
  const refusal = await wrong.verify().then(() => null, (err: Error) => err.message)
  t.match(refusal, new RegExp(`^SMTP server smtp://pingward:\\*\\*\\*@127\\.0\\.0\\.1:${smtp.port} cannot be used: .*Invalid username or password`))
  t.notMatch(refusal, 'guess')
  const failed = await wrong.send(mail)
  t.match(failed, { ok: false, statusCode: 535, error: /^SMTP EAUTH: .*Invalid username or password/ })
  t.equal(smtp.received.length, 1, 'only the right password sent a mail')
})

t.test('refused recipients: all refused is a failure with the server\'s code, some refused is delivered to the rest', async (t) => {
  const smtp = await smtpServer(t, { refuse: (address) => address.endsWith('@gone.example') })
  const sender = createEmailSender({ SMTP_URL: smtp.url, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  t.match(await sender.send({ ...mail, to: ['a@gone.example', 'b@gone.example'] }), { ok: false, statusCode: 550, error: /^SMTP EENVELOPE: / })
  t.match(await sender.send({ ...mail, to: ['a@gone.example', 'ops@example.com'] }), { ok: true, statusCode: 250 })
  t.strictSame(smtp.received.map((one) => one.envelope.to), [['ops@example.com']])
})

t.test('a server that is down: the check at start says so, an attempt fails without a code', async (t) => {
  const port = await freePort()
  const sender = createEmailSender({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: FROM })!
  t.teardown(() => sender.close())
  await t.rejects(sender.verify(), { message: new RegExp(`^SMTP server smtp://127\\.0\\.0\\.1:${port} cannot be used: .*ECONNREFUSED`) })
  t.match(await sender.send(mail), { ok: false, statusCode: null, error: /^SMTP ESOCKET: .*ECONNREFUSED/ })
})

t.test('a server that never greets: the attempt ends at the timeout', async (t) => {
  const silent = createServer((socket: Socket) => socket.on('error', () => {}))
  const { port } = await listen(t, silent)
  const sender = createEmailSender({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: FROM }, 200)!
  t.teardown(() => sender.close())
  // nodemailer's own default is 30 s, and `createTransport({ url, ...timeouts })` silently kept it. A 30 s timer set
  // before the attempt would fire before that one (equal timers fire in the order they were set), however busy the machine.
  let defaultPassed = false
  const mark = setTimeout(() => { defaultPassed = true }, 30_000)
  t.teardown(() => clearTimeout(mark))
  const result = await sender.send(mail)
  t.match(result, { ok: false, statusCode: null, error: /^SMTP ETIMEDOUT: / })
  t.notOk(defaultPassed, `the sender's timeout applies, not nodemailer's 30 s (${result.durationMs} ms)`)
})

t.test('an aborted attempt answers at once; a closed sender sends nothing', async (t) => {
  const silent = createServer((socket: Socket) => socket.on('error', () => {}))
  const { port } = await listen(t, silent)
  const sender = createEmailSender({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: FROM })!
  const stop = new AbortController()
  const attempt = sender.send(mail, stop.signal)
  stop.abort()
  t.match(await attempt, { ok: false, error: 'aborted' })
  t.match(await sender.send(mail, AbortSignal.abort()), { ok: false, error: 'aborted' })
  await sender.close()
  t.match(await sender.send(mail), { ok: false, error: 'sender closed' })
})

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
