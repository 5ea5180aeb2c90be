// Subscriber rows: a page's subscribers, their mail queue (claimed by the mailer, SKIP LOCKED), and the windows
// already announced. It reads and writes; the rules are subscribers.ts's.
import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm'
import { rowsOf, uuidArray, type Database } from '../db/client.ts'
import { maintenanceWindows, statusPageAnnouncements, statusPageMails, statusPages, statusPageSubscribers } from '../db/schema.ts'

export type SubscriberRow = typeof statusPageSubscribers.$inferSelect
type MailRow = typeof statusPageMails.$inferSelect

export async function findSubscriberByEmail (db: Database, pageId: string, email: string, lock?: 'lock'): Promise<SubscriberRow | undefined> {
  const query = db.select().from(statusPageSubscribers).where(and(eq(statusPageSubscribers.pageId, pageId), sql`lower(${statusPageSubscribers.email}) = lower(${email})`))
  const [row] = lock ? await query.for('update') : await query
  return row
}

export async function findSubscriberByToken (db: Database, pageId: string, token: string): Promise<SubscriberRow | undefined> {
  const [row] = await db.select().from(statusPageSubscribers).where(and(eq(statusPageSubscribers.pageId, pageId), eq(statusPageSubscribers.token, token)))
  return row
}

export async function insertSubscriber (tx: Database, values: typeof statusPageSubscribers.$inferInsert): Promise<SubscriberRow> {
  const [row] = await tx.insert(statusPageSubscribers).values(values).returning()
  return row
}

export async function updateSubscriber (tx: Database, id: string, changes: Partial<typeof statusPageSubscribers.$inferInsert>): Promise<SubscriberRow> {
  const [row] = await tx.update(statusPageSubscribers).set(changes).where(eq(statusPageSubscribers.id, id)).returning()
  return row
}

export async function deleteSubscriber (tx: Database, id: string): Promise<void> {
  await tx.delete(statusPageSubscribers).where(eq(statusPageSubscribers.id, id))
}

export async function queueMail (tx: Database, subscriberId: string, mail: { subject: string, text: string }, at: Date): Promise<void> {
  await tx.insert(statusPageMails).values({ subscriberId, subject: mail.subject, text: mail.text, createdAt: at, dueAt: at })
}

/** One mail to every confirmed subscriber of these pages (a subscriber of two of them gets one); returns how many. */
export async function queueMailToPages (tx: Database, pageIds: string[], mail: { subject: string, text: string }, at: Date): Promise<number> {
  if (pageIds.length === 0) return 0
  const rows = rowsOf<{ id: string }>(await tx.execute(sql`
    insert into ${statusPageMails} (subscriber_id, subject, text, created_at, due_at)
    select distinct on (lower(s.email)) s.id, ${mail.subject}, ${mail.text}, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
    from ${statusPageSubscribers} s
    where s.page_id = any(${uuidArray(pageIds)}) and s.confirmed_at is not null
    order by lower(s.email), s.created_at
    returning id`))
  return rows.length
}

/** A mail to send with its subscriber and page, its due time pushed `leaseMs` ahead so that no other mailer takes it meanwhile. */
export interface ClaimedMail { mail: MailRow, email: string, token: string, slug: string, title: string }

export async function claimDueMails (db: Database, now: Date, limit: number, leaseMs: number): Promise<ClaimedMail[]> {
  return db.transaction(async (tx) => {
    const due = await tx.select({ id: statusPageMails.id }).from(statusPageMails)
      .where(and(isNull(statusPageMails.sentAt), isNull(statusPageMails.failedAt), lte(statusPageMails.dueAt, now)))
      .orderBy(asc(statusPageMails.dueAt)).limit(limit).for('update', { skipLocked: true })
    if (due.length === 0) return []
    const ids = due.map((row) => row.id)
    await tx.update(statusPageMails).set({ dueAt: new Date(now.getTime() + leaseMs) }).where(inArray(statusPageMails.id, ids))
    const rows = await tx.select({ mail: statusPageMails, email: statusPageSubscribers.email, token: statusPageSubscribers.token, slug: statusPages.slug, title: statusPages.title })
      .from(statusPageMails)
      .innerJoin(statusPageSubscribers, eq(statusPageSubscribers.id, statusPageMails.subscriberId))
      .innerJoin(statusPages, eq(statusPages.id, statusPageSubscribers.pageId))
      .where(inArray(statusPageMails.id, ids))
      .orderBy(asc(statusPageMails.createdAt))
    return rows
  }) as Promise<ClaimedMail[]>
}

export async function markMailSent (db: Database, id: string, at: Date): Promise<void> {
  await db.update(statusPageMails).set({ sentAt: at, lastError: null }).where(eq(statusPageMails.id, id))
}

/** A failed attempt: due again at `retryAt`, or given up (`failed_at`) when null. */
export async function markMailFailed (db: Database, id: string, error: string, at: Date, retryAt: Date | null): Promise<void> {
  await db.update(statusPageMails).set({
    attempts: sql`${statusPageMails.attempts} + 1`, lastError: error, ...(retryAt === null ? { failedAt: at } : { dueAt: retryAt }),
  }).where(eq(statusPageMails.id, id))
}

/** Sent and given-up mails older than `before`: they only told what happened. */
export async function pruneMails (db: Database, before: Date): Promise<void> {
  await db.delete(statusPageMails).where(sql`coalesce(${statusPageMails.sentAt}, ${statusPageMails.failedAt}) < ${before.toISOString()}::timestamptz`)
}

export type UnannouncedWindow = Pick<typeof maintenanceWindows.$inferSelect, 'id' | 'orgId' | 'title' | 'description' | 'nextStartsAt' | 'nextEndsAt' | 'monitorIds' | 'allMonitors' | 'labelSelector'>

/** Windows with an occurrence to come that no subscriber was told of yet, locked (SKIP LOCKED) with their announcement's row to be. */
export async function lockUnannouncedWindow (tx: Database, now: Date): Promise<UnannouncedWindow | undefined> {
  const [row] = await tx.select({
    id: maintenanceWindows.id,
    orgId: maintenanceWindows.orgId,
    title: maintenanceWindows.title,
    description: maintenanceWindows.description,
    nextStartsAt: maintenanceWindows.nextStartsAt,
    nextEndsAt: maintenanceWindows.nextEndsAt,
    monitorIds: maintenanceWindows.monitorIds,
    allMonitors: maintenanceWindows.allMonitors,
    labelSelector: maintenanceWindows.labelSelector,
  }).from(maintenanceWindows)
    .leftJoin(statusPageAnnouncements, eq(statusPageAnnouncements.windowId, maintenanceWindows.id))
    .where(and(isNull(statusPageAnnouncements.windowId), isNull(maintenanceWindows.cancelledAt), sql`${maintenanceWindows.nextEndsAt} > ${now.toISOString()}::timestamptz`))
    .limit(1).for('update', { of: maintenanceWindows, skipLocked: true })
  return row
}

export async function markAnnounced (tx: Database, windowId: string, at: Date): Promise<void> {
  await tx.insert(statusPageAnnouncements).values({ windowId, announcedAt: at }).onConflictDoNothing()
}

/** The published pages of the organization. */
export async function publishedPagesOf (db: Database, orgId: string) {
  return db.select().from(statusPages).where(and(eq(statusPages.orgId, orgId), eq(statusPages.published, true)))
}

/** How many of the page's subscribers confirmed their address, and how many have not yet. */
export async function countSubscribers (db: Database, pageId: string): Promise<{ confirmed: number, pending: number }> {
  const [row] = await db.select({
    confirmed: sql<number>`count(${statusPageSubscribers.confirmedAt})::int`,
    pending: sql<number>`(count(*) - count(${statusPageSubscribers.confirmedAt}))::int`,
  }).from(statusPageSubscribers).where(eq(statusPageSubscribers.pageId, pageId))
  return row
}
