// The rules of subscribers (api-contract section 16): a subscription is confirmed by its mail's link (double
// opt-in), asking again never tells whether the address was subscribed, and each report update and maintenance
// announcement is queued, in the transaction of what it tells, to every confirmed subscriber of its pages.
import { randomBytes } from 'node:crypto'
import { atomically, type Database } from '../db/client.ts'
import type { ReportStatus } from '../domain/vocabulary.ts'
import { STAGE_LABELS } from './feeds.ts'
import type { PageRow } from './repository.ts'
import {
  deleteSubscriber, findSubscriberByEmail, findSubscriberByToken, insertSubscriber, lockUnannouncedWindow, markAnnounced,
  publishedPagesOf, queueMail, queueMailToPages, updateSubscriber, type SubscriberRow,
} from './subscriber-repository.ts'
import { windowCoversPage } from './view.ts'

/** A confirmation mail is sent again for the same address at most this often. */
const CONFIRMATION_EVERY_MS = 10 * 60_000

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** Subscribes `email` to the page, unconfirmed, and queues the confirmation mail; an address already there changes nothing. */
export async function subscribe (db: Database, page: PageRow, email: string, now: Date): Promise<void> {
  await atomically(db, async (tx) => {
    const known = await findSubscriberByEmail(tx, page.id, email, 'lock')
    if (known?.confirmedAt) return
    if (known?.confirmationSentAt && now.getTime() - known.confirmationSentAt.getTime() < CONFIRMATION_EVERY_MS) return
    const subscriber = known
      ? await updateSubscriber(tx, known.id, { confirmationSentAt: now })
      : await insertSubscriber(tx, { pageId: page.id, email, token: randomBytes(24).toString('base64url'), confirmationSentAt: now, createdAt: now })
    await queueMail(tx, subscriber.id, {
      subject: `Confirm your subscription to ${page.title}`,
      text: `Someone, we hope you, asked for the news of ${page.title} by mail at this address.\n\n` +
        'To receive them, open the link below and press Confirm. If it was not you, do nothing: nothing more will be sent.',
    }, now)
  })
}

/** Confirms the subscriber of this token; undefined when there is none. */
export async function confirm (db: Database, page: PageRow, token: string, now: Date): Promise<SubscriberRow | undefined> {
  const subscriber = await findSubscriberByToken(db, page.id, token)
  if (!subscriber || subscriber.confirmedAt) return subscriber
  return updateSubscriber(db, subscriber.id, { confirmedAt: now })
}

/** Removes the subscriber of this token; false when there is none. */
export async function unsubscribe (db: Database, page: PageRow, token: string): Promise<boolean> {
  const subscriber = await findSubscriberByToken(db, page.id, token)
  if (!subscriber) return false
  await deleteSubscriber(db, subscriber.id)
  return true
}

/** Queues a report's new update to the subscribers of its pages, in the caller's transaction. */
export async function tellSubscribers (tx: Database, report: { title: string, statusPageIds: string[] }, update: { status: ReportStatus, message: string, createdAt: Date }): Promise<void> {
  await queueMailToPages(tx, report.statusPageIds, {
    subject: `[${STAGE_LABELS[update.status]}] ${report.title}`,
    text: `${report.title}\n${STAGE_LABELS[update.status]}, ${when(update.createdAt)}\n\n${update.message}`,
  }, update.createdAt)
}

/** Announces every window with an occurrence to come that was not yet, one per transaction, to the pages it covers. */
export async function announceWindows (db: Database, now: Date): Promise<number> {
  let announced = 0
  while (await atomically(db, async (tx) => {
    const window = await lockUnannouncedWindow(tx, now)
    if (!window) return false
    const pages = []
    for (const page of await publishedPagesOf(tx, window.orgId)) if (await windowCoversPage(tx, page, window)) pages.push(page.id)
    await queueMailToPages(tx, pages, {
      subject: `[Maintenance] ${window.title}`,
      text: `${window.title}\nScheduled: ${when(window.nextStartsAt!)} to ${when(window.nextEndsAt!)}` +
        `${window.description ? `\n\n${window.description}` : ''}`,
    }, now)
    await markAnnounced(tx, window.id, now)
    return true
  })) announced++
  return announced
}
