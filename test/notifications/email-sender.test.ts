// The SMTP sender against a real SMTP server in this process: none without SMTP_URL, the check at start, a
// password, refused recipients, a server that is down or never greets, an abort; an attempt never throws.
import { createServer, type Socket } from 'node:net'
import t from 'tap'
import type { Outgoing } from '../../src/notifications/channels/types.ts'
import { createEmailSender } from '../../src/notifications/email-sender.ts'
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
  const result = await sender.send(mail)
  t.match(result, { ok: false, statusCode: null, error: /^SMTP ETIMEDOUT: / })
  // nodemailer's own default is 30 s, and `createTransport({ url, ...timeouts })` silently kept it.
  t.ok(result.durationMs < 10_000, `the sender's timeout applies, not nodemailer's 30 s (${result.durationMs} ms)`)
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
