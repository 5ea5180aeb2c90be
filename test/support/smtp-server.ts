// A real SMTP server in the test process (the smtp-server package) that parses each mail it takes (mailparser),
// optionally with a password and refused recipients; it closes with its test.
import type { AddressInfo } from 'node:net'
import { simpleParser, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Teardown } from '../helper.ts'

export interface ReceivedMail {
  mail: ParsedMail
  /** The SMTP envelope: who it was for, as the client said it (RCPT TO). */
  envelope: { from: string, to: string[] }
}

export interface SmtpOptions {
  /** When given, AUTH with exactly these is required. */
  user?: string
  password?: string
  /** Recipients answered `550` at RCPT TO. */
  refuse?: (address: string) => boolean
  /** Answers a mail to these recipients only once this resolves (a slow server, for some mail). */
  slow?: (recipients: string[]) => Promise<void> | undefined
  /** The host its `url` names (127.0.0.1 unless given); it listens on 127.0.0.1 whatever the name. */
  urlHost?: string
}

/** Listens on 127.0.0.1; `url` is an smtp:// URL for it (with the credentials when it requires them). */
export async function smtpServer (t: Teardown, options: SmtpOptions = {}): Promise<{ url: string, port: number, received: ReceivedMail[] }> {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: options.user === undefined,
    allowInsecureAuth: true,
    // nodemailer would upgrade to TLS when offered, and refuse the server's self-signed certificate.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth (auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) return callback(null, { user: auth.username })
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }))
    },
    onRcptTo (address, _session, callback) {
      if (options.refuse?.(address.address)) return callback(Object.assign(new Error(`no mailbox ${address.address}`), { responseCode: 550 }))
      callback()
    },
    onData (stream, session, callback) {
      simpleParser(stream).then(async (mail) => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address)
        await options.slow?.(to)
        received.push({ mail, envelope: { from, to } })
        callback()
      }, callback)
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.server.address() as AddressInfo
  const credentials = options.user === undefined ? '' : `${encodeURIComponent(options.user)}:${encodeURIComponent(options.password ?? '')}@`
  return { url: `smtp://${credentials}${options.urlHost ?? '127.0.0.1'}:${port}`, port, received }
}
