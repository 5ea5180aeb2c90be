// Subscribers' mail, started beside the checker (src/jobs.ts) when SMTP_URL is set: its own claim loop, queue and
// SMTP transport, so that a page's 10,000 subscribers never hold up an alert. Each mail carries its manage link and
// RFC 8058's one-click unsubscribe; a failed one is retried with growing delays, then given up. It also announces
// windows to come (subscribers.ts) and forgets old mails.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { createEmailSender } from '../notifications/email-sender.ts'
import type { Clock } from '../runtime/clock.ts'
import { ClaimLoop, type InFlight } from '../runtime/claim-loop.ts'
import type { Config } from '../runtime/config.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import { claimDueMails, markMailFailed, markMailSent, pruneMails, type ClaimedMail } from './subscriber-repository.ts'
import { announceWindows } from './subscribers.ts'

/** Mails in flight at once; a mail is leased this long; given up after this many attempts. */
const MAILER = { concurrency: 4, leaseMs: 120_000, attempts: 8, keepDays: 30 } as const

/** The links a subscriber's mail carries: the page, and the manage page that confirms and unsubscribes. */
function subscriberLinks (publicUrl: string, slug: string, token: string) {
  const page = `${publicUrl}/status/${slug}`
  return { page, manage: `${page}/subscription?token=${token}`, unsubscribe: `${page}/unsubscribe?token=${token}` }
}

const retryDelayMs = (attempts: number) => Math.min(6 * 3_600_000, 60_000 * 2 ** attempts)

export function startSubscriberMailer (options: { config: Config, db: Database, log: FastifyBaseLogger, clock: Clock }): { stop: () => Promise<void>, drain: () => Promise<number> } {
  const { config, db, log, clock } = options
  const sender = createEmailSender(config)
  if (!sender) return { stop: async () => {}, drain: async () => 0 }

  async function send (claimed: ClaimedMail): Promise<void> {
    const links = subscriberLinks(config.PUBLIC_URL, claimed.slug, claimed.token)
    const result = await sender!.send({
      kind: 'email',
      to: [claimed.email],
      subject: claimed.mail.subject,
      text: `${claimed.mail.text}\n\n${claimed.title}: ${links.page}\nYour subscription (confirm, or unsubscribe): ${links.manage}\n`,
      messageId: `<${claimed.mail.id}@pingward>`,
      headers: { 'List-Unsubscribe': `<${links.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    })
    const now = clock()
    if (result.ok) return markMailSent(db, claimed.mail.id, now)
    const attempts = claimed.mail.attempts + 1
    log.warn({ mail: claimed.mail.id, attempts, error: result.error }, 'subscriber mail not sent')
    await markMailFailed(db, claimed.mail.id, result.error ?? 'not sent', now, attempts >= MAILER.attempts ? null : new Date(now.getTime() + retryDelayMs(attempts)))
  }

  const loop = new ClaimLoop<InFlight>({
    name: 'subscriber mailer',
    log,
    concurrency: MAILER.concurrency,
    pollMs: 1000,
    failureSleepMs: 2000,
    claim: async (free) => {
      const claimed = await claimDueMails(db, clock(), free, MAILER.leaseMs)
      for (const mail of claimed) loop.track(mail.mail.id, send(mail), {})
      return claimed.length
    },
  })
  loop.start()
  const stopAnnouncing = startPeriodic({
    everyMs: 15_000,
    firstAfterMs: 1000,
    what: 'maintenance announcements',
    log,
    task: async () => {
      await announceWindows(db, clock())
      await pruneMails(db, new Date(clock().getTime() - MAILER.keepDays * 86_400_000))
    },
  })
  return {
    stop: async () => {
      await Promise.all([loop.stop(10_000), stopAnnouncing()])
      await sender.close()
    },
    drain: () => loop.drain(),
  }
}
