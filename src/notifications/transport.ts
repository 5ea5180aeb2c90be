// What carries an adapter's output to its receiver (HTTP, or mail), and what one attempt came to.
import type { Outgoing } from './channels/types.ts'

/** One attempt's outcome; never an exception. */
export interface SendResult {
  /** Delivered: a 2xx (or the mail server accepted the message). */
  ok: boolean
  /** The receiver's HTTP status (or SMTP reply code); null when no answer came. */
  statusCode: number | null
  durationMs: number
  /** One line saying what went wrong; null when ok. */
  error: string | null
  timedOut?: boolean
  /** The receiver's Retry-After: ms from its answer, or the HTTP date it named, read against the delivery's clock. */
  retryAfter?: number | Date
}

export interface HttpRequest { url: string, headers: Record<string, string>, body: string }

export interface HttpSender {
  send (request: HttpRequest, signal?: AbortSignal, short?: boolean): Promise<SendResult>
  close (): Promise<void>
}

type EmailOutgoing = Extract<Outgoing, { kind: 'email' }>

export interface EmailSender {
  send (mail: EmailOutgoing, signal?: AbortSignal): Promise<SendResult>
  /** Connects and authenticates once: a wrong host, port or password shows at start, not at the first outage. */
  verify (): Promise<void>
  close (): Promise<void>
}

/** `short`: the shorter timeout of a receiver that keeps timing out (HTTP; a mail server has its own timeouts). */
interface SendOptions { short?: boolean }

export interface Transport {
  send (outgoing: Outgoing, signal?: AbortSignal, options?: SendOptions): Promise<SendResult>
  /** Checks the mail server (EmailSender.verify); 'none' without one. Throws saying why it cannot be used. */
  verifyEmail (): Promise<'ok' | 'none'>
  close (): Promise<void>
}

export function createTransport (parts: { http: HttpSender, email?: EmailSender }): Transport {
  return {
    send (outgoing, signal, options) {
      if (outgoing.kind === 'http') return parts.http.send(outgoing, signal, options?.short)
      if (!parts.email) return Promise.resolve({ ok: false, statusCode: null, durationMs: 0, error: 'email is not configured (SMTP_URL)' })
      return parts.email.send(outgoing, signal)
    },
    async verifyEmail () {
      if (!parts.email) return 'none'
      await parts.email.verify()
      return 'ok'
    },
    async close () {
      await Promise.all([parts.http.close(), parts.email?.close()])
    },
  }
}
