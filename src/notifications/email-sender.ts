// Email channels' sender: one nodemailer SMTP transport over SMTP_URL; a send never throws.
import { performance } from 'node:perf_hooks'
import type { Transporter } from 'nodemailer'
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js'
import { oneLine } from '../net/network-errors.ts'
import { isLoopbackHost } from '../net/address-policy.ts'
import type { Config } from '../runtime/config.ts'
import type { Outgoing } from './channels/types.ts'
import type { EmailSender, SendResult } from './transport.ts'

type OutgoingEmail = Extract<Outgoing, { kind: 'email' }>

/** Milliseconds for connecting, the greeting and each later step: the delivery timeout. */
const TIMEOUT_MS = 15_000

/** Whether STARTTLS is required before login: credentials for a server off this machine over smtp://, unless `requireTLS=false`. */
export function smtpRequiresTls (smtpUrl: string): boolean {
  const url = new URL(smtpUrl)
  if (url.protocol !== 'smtp:' || url.username === '' || isLoopbackHost(url.hostname)) return false
  return url.searchParams.get('requireTLS') !== 'false'
}

/** The sender of SMTP_URL and SMTP_FROM; null when no SMTP server is configured (email channels are refused then). */
export function createEmailSender (config: Pick<Config, 'SMTP_URL' | 'SMTP_FROM'>, timeoutMs = TIMEOUT_MS): EmailSender | null {
  if (config.SMTP_URL === undefined) return null
  const from = config.SMTP_FROM
  if (from === undefined) throw new Error('SMTP_FROM is required with SMTP_URL') // loadConfig refuses this already
  const url = config.SMTP_URL
  const requireTLS = smtpRequiresTls(url)
  // Made on first use, so that only a process that sends or checks a mail loads nodemailer.
  let made: Promise<Transporter<SMTPTransport.SentMessageInfo>> | undefined
  const transport = () => (made ??= (async () => {
    const [{ default: nodemailer }, { default: SMTPTransport }] =
      await Promise.all([import('nodemailer'), import('nodemailer/lib/smtp-transport/index.js')])
    // The transport itself, not createTransport's options: given a `url`, createTransport drops every other option.
    return nodemailer.createTransport(new SMTPTransport({
      url,
      requireTLS,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    }))
  })())
  const where = withoutPassword(config.SMTP_URL)
  let closed = false

  async function send (mail: OutgoingEmail, signal?: AbortSignal): Promise<SendResult> {
    const start = performance.now()
    const result = (statusCode: number | null, error: string | null): SendResult =>
      ({ ok: error === null, statusCode, durationMs: Math.max(0, Math.round(performance.now() - start)), error })
    if (closed) return result(null, 'sender closed')
    if (signal?.aborted) return result(null, 'aborted')
    const sending = transport().then((smtp) => smtp.sendMail({
      from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html === undefined ? {} : { html: mail.html }),
      messageId: mail.messageId,
      ...(mail.inReplyTo === undefined ? {} : { inReplyTo: mail.inReplyTo, references: [mail.inReplyTo] }),
      // RFC 3834: an automatic message, so that vacation responders do not answer it.
      headers: { ...mail.headers, 'Auto-Submitted': 'auto-generated' },
    }))
    // nodemailer cannot cancel a send: an abort answers at once and lets the send finish (at least once).
    let onAbort = () => {}
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted')
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      const info = await Promise.race([sending, aborted])
      if (info === 'aborted') {
        sending.catch(() => {})
        return result(null, 'aborted')
      }
      // Accepted for at least one address is delivered: a retry would not change the server's mind about the others.
      return result(replyCode(info.response), null)
    } catch (err) {
      const failure = err as Error & { responseCode?: number, response?: string, code?: string }
      const said = oneLine(failure.response ?? failure.message ?? String(err), 200)
      return result(failure.responseCode ?? null, `SMTP ${failure.code ? `${failure.code}: ` : ''}${said}`)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  return {
    send,
    verify: async () => {
      try {
        await (await transport()).verify()
      } catch (err) {
        const hint = requireTLS && (err as { code?: string }).code === 'ETLS'
          ? ' (a password is sent to a server off this machine only after STARTTLS; SMTP_URL with ?requireTLS=false allows it in clear)'
          : ''
        throw new Error(`SMTP server ${where} cannot be used: ${oneLine((err as Error).message, 200)}${hint}`, { cause: err })
      }
    },
    close: async () => {
      closed = true
      if (made) (await made).close()
    },
  }
}

/** `250 2.0.0 Ok: queued as ...` → 250. */
function replyCode (response: string | undefined): number | null {
  const match = /^(\d{3})/.exec(response ?? '')
  return match ? Number(match[1]) : null
}

function withoutPassword (url: string): string {
  const parsed = new URL(url)
  if (parsed.password) parsed.password = '***'
  return parsed.href.replace(/\/$/, '')
}
