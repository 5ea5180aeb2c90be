// Notification channel rules: the target policy on config URLs, webhook signing secrets, merged updates, the
// owner's limit, test events. Rows come and go through the repository; the presenter makes them the API's.
import { randomBytes } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { InvalidInputError } from '../domain/errors.ts'
import type { AuditAction, ChannelType } from '../domain/vocabulary.ts'
import { assertTargetAllowed } from '../net/target-url.ts'
import { enqueueEvent } from '../repositories/notification-outbox.ts'
import { maskSecret } from '../schemas/common.ts'
import { withinOwnerLimit } from '../services/owner-limits.ts'
import { attemptDelivery, type DeliveryOptions } from './deliver.ts'
import { presentChannel } from './presenter.ts'
import {
  deleteChannelRow, deliveryIdOf, findChannelRow, findDelivery, insertChannel, replaceSecret, retryDelivery as retryDeliveryRow, updateChannelRow,
  type ChannelChanges, type ChannelRow, type DeliveryDetailRow,
} from './repository.ts'
import { secretFields, urlFields, type NewChannel, type UpdateChannel } from './schema.ts'

// The reads: no rule adds to the repository's statements.
export {
  attemptLogs, findChannelRow as findChannel, findDelivery, listChannelDeliveries, listChannels,
} from './repository.ts'

/** What the audit log compares of a channel, as the API shows it (secrets masked). */
const AUDITED_FIELDS = ['name', 'type', 'config', 'events', 'all_monitors', 'is_active', 'reminder_minutes']

/** The audit event of a change to the organization's channel, in the change's transaction. */
function recordChannelChange (
  tx: Database, audit: AuditContext, change: { orgId: string, action: AuditAction, id: string, before: ChannelRow | null, after: ChannelRow | null, at: Date }
): Promise<void> {
  const shown = (row: ChannelRow | null) => row && presentChannel(row)
  return recordChange(tx, audit, {
    orgId: change.orgId, action: change.action, entityId: change.id, before: shown(change.before), after: shown(change.after), fields: AUDITED_FIELDS, at: change.at,
  })
}

/** How long the replaced secret still signs, so receivers can switch without losing a message. */
const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`

/** An update's config merged over the stored one (a null removes a field); a secret sent back masked keeps the stored one. */
function mergeConfig (type: ChannelType, stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored }
  const secrets = new Set(secretFields(type))
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete merged[field]
    else if (secrets.has(field) && typeof stored[field] === 'string' && value === maskSecret(stored[field])) merged[field] = stored[field]
    else merged[field] = value
  }
  return merged
}

/** Refuses a config URL the sender cannot or may not reach, naming the field. */
function assertConfigTargets (type: ChannelType, config: Record<string, unknown>, allowPrivateTargets: boolean): void {
  for (const field of urlFields(type)) {
    const value = config[field]
    if (typeof value === 'string') assertTargetAllowed(value, allowPrivateTargets, `config/${field}`)
  }
}

const originOf = (url: unknown): string | null => typeof url === 'string' && URL.canParse(url) ? new URL(url).origin : null

// A config secret is for the server its URL names (an ntfy token for its server_url): when the URL moves to
// another origin, each stored secret must be given again, so it is never sent to a server it was not meant for.
function assertSecretsGivenForNewOrigin (
  type: ChannelType, stored: Record<string, unknown>, patch: Record<string, unknown>, merged: Record<string, unknown>
): void {
  const urls = urlFields(type)
  if (urls.every((field) => originOf(stored[field]) === originOf(merged[field]))) return
  for (const field of secretFields(type)) {
    if (urls.includes(field) || stored[field] === undefined || merged[field] !== stored[field] || patch[field] === stored[field]) continue
    throw new InvalidInputError(`config/${field}`, `config/${field} must be given again for the ${urls.join(', ')}'s new origin`)
  }
}

/** Creates the organization's channel, a webhook's with a new signing secret. `maxChannels` 0 means no limit. */
export async function createChannel (
  db: Database, orgId: string, input: NewChannel,
  options: { allowPrivateTargets: boolean, emailConfigured: boolean, maxChannels: number, now: Date, audit: AuditContext }
): Promise<ChannelRow> {
  if (input.type === 'email' && !options.emailConfigured) {
    throw new InvalidInputError('type', 'type: email channels need a mail server, and this server has none (its operator sets SMTP_URL)')
  }
  assertConfigTargets(input.type, input.config, options.allowPrivateTargets)
  const secret = input.type === 'webhook' ? newWebhookSecret() : null
  return withinOwnerLimit(db, { orgId }, 'channels', options.maxChannels, (limited) => atomically(limited, async (tx) => {
    const row = await insertChannel(tx, orgId, {
      name: input.name.trim(),
      type: input.type,
      config: input.config,
      events: input.events,
      allMonitors: input.all_monitors,
      isActive: input.is_active,
      reminderMinutes: input.reminder_minutes,
      secret,
    }, options.now)
    await recordChannelChange(tx, options.audit, { orgId, action: 'notification_channel.created', id: row.id, before: null, after: row, at: options.now })
    return row
  }))
}

export interface UpdateOptions {
  allowPrivateTargets: boolean
  now: Date
  audit: AuditContext
  /** The edge's schema validator for the merged config, passed in so that this layer knows no HTTP. */
  checkConfig: (type: ChannelType, config: Record<string, unknown>) => void
}

/** Applies an update to the organization's channel under a row lock; undefined when there is none. */
export async function updateChannel (
  db: Database, orgId: string, id: string, input: UpdateChannel, options: UpdateOptions
): Promise<ChannelRow | undefined> {
  return atomically(db, async (tx) => {
    const current = await findChannelRow(tx, orgId, id, true)
    if (!current) return undefined
    const changes: ChannelChanges = {
      name: input.name?.trim(),
      events: input.events,
      allMonitors: input.all_monitors,
      isActive: input.is_active,
      reminderMinutes: input.reminder_minutes,
    }
    if (input.config) {
      const config = mergeConfig(current.type, current.config, input.config)
      options.checkConfig(current.type, config)
      assertSecretsGivenForNewOrigin(current.type, current.config, input.config, config)
      assertConfigTargets(current.type, config, options.allowPrivateTargets)
      changes.config = config
    }
    // Turned on again by a member: the reason it was turned off no longer holds.
    if (input.is_active === true) changes.disabledReason = null
    // Nothing differs from the row: nothing is written, so `updated_at` stays.
    if (!changesAnything(current, changes)) return current
    const updated = await updateChannelRow(tx, id, changes, options.now)
    await recordChannelChange(tx, options.audit, { orgId, action: 'notification_channel.updated', id, before: current, after: updated, at: options.now })
    return updated
  })
}

/** Events compare as a set, config as JSON. */
function changesAnything (current: ChannelRow, changes: ChannelChanges): boolean {
  return (Object.entries(changes) as Array<[keyof ChannelChanges, unknown]>).some(([field, value]) => {
    if (value === undefined) return false
    if (field === 'events') {
      const [wanted, stored] = [new Set(value as string[]), new Set(current.events)]
      return wanted.size !== stored.size || [...wanted].some((event) => !stored.has(event as never))
    }
    return !isDeepStrictEqual(value, current[field])
  })
}

/** A new signing secret for the organization's webhook channel; the old one still signs for PREVIOUS_SECRET_MS. */
export async function rotateSecret (db: Database, orgId: string, id: string, now: Date, audit: AuditContext): Promise<ChannelRow | undefined> {
  return atomically(db, async (tx) => {
    const channel = await findChannelRow(tx, orgId, id)
    if (!channel) return undefined
    if (channel.type !== 'webhook') {
      throw new InvalidInputError('id', `id must be a webhook channel: a ${channel.type} channel has no signing secret`)
    }
    const rotated = await replaceSecret(tx, orgId, id, newWebhookSecret(), new Date(now.getTime() + PREVIOUS_SECRET_MS), now)
    if (!rotated) return undefined
    const secretOf = (row: ChannelRow) => ({ secret: row.secret && maskSecret(row.secret) })
    await recordChange(tx, audit, {
      orgId, action: 'notification_channel.secret_rotated', entityId: id, before: secretOf(channel), after: secretOf(rotated), fields: ['secret'], at: now,
    })
    return rotated
  })
}

/** Deletes the organization's channel; false when there is none. */
export async function deleteChannel (db: Database, orgId: string, id: string, now: Date, audit: AuditContext): Promise<boolean> {
  return atomically(db, async (tx) => {
    const deleted = await deleteChannelRow(tx, orgId, id)
    if (deleted) await recordChannelChange(tx, audit, { orgId, action: 'notification_channel.deleted', id, before: deleted, after: null, at: now })
    return deleted !== undefined
  })
}

/** Sends the organization's delivery again at once; undefined when there is none. */
export async function retryDelivery (db: Database, orgId: string, id: string, now: Date, audit: AuditContext): Promise<DeliveryDetailRow | undefined> {
  return atomically(db, async (tx) => {
    const before = await findDelivery(tx, orgId, id)
    if (!before) return undefined
    const retried = await retryDeliveryRow(tx, orgId, id, now)
    if (retried) {
      await recordChange(tx, audit, {
        orgId, action: 'delivery.retried', entityId: id, before: { status: before.status }, after: { status: retried.status }, fields: ['status'], at: now,
      })
    }
    return retried
  })
}

/** Sends a `test` event through the outbox to this channel alone, attempts it at once and returns the delivery. */
export async function sendTestEvent (
  db: Database, orgId: string, channelId: string, now: Date, deliveryOptions: DeliveryOptions, audit: AuditContext
): Promise<DeliveryDetailRow | undefined> {
  const queued = await atomically(db, async (tx) => {
    if (!await findChannelRow(tx, orgId, channelId)) return undefined
    await recordChange(tx, audit, { orgId, action: 'notification_channel.tested', entityId: channelId, before: null, after: null, fields: [], at: now })
    return enqueueEvent(tx, {
      orgId,
      monitorId: null,
      incidentId: null,
      channelId,
      at: now,
      payload: { type: 'test', timestamp: now.toISOString(), data: { monitor: null, incident: null, check: null } },
    })
  })
  if (!queued) return undefined
  const { eventId, deliveries } = queued
  // No delivery: the channel was deleted meanwhile.
  const deliveryId = deliveries === 0 ? undefined : await deliveryIdOf(db, channelId, eventId)
  if (deliveryId === undefined) return undefined
  // Through the worker's path (the channel's lease), so a worker that took the delivery first makes the only attempt.
  await attemptDelivery(db, deliveryId, deliveryOptions)
  return findDelivery(db, orgId, deliveryId)
}
