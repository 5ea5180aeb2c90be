// Rows as the API shows them: a channel with its secrets masked, a delivery with its attempts.
import { maskSecret } from '../schemas/common.ts'
import type { ChannelType } from '../domain/vocabulary.ts'
import type { ChannelRow, DeliveryDetailRow, DeliveryRow } from './repository.ts'
import {
  secretFields, type Delivery, type DeliveryDetail, type NotificationChannel, type NotificationChannelWithSecret,
} from './schema.ts'

/** The config as responses show it: every secret field masked. */
function maskConfig (type: ChannelType, config: Record<string, unknown>): Record<string, unknown> {
  const masked = { ...config }
  for (const field of secretFields(type)) {
    if (typeof masked[field] === 'string') masked[field] = maskSecret(masked[field])
  }
  return masked
}

/** The API's record of a channel: secrets masked, no signing secret. */
export function presentChannel (row: ChannelRow): NotificationChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: maskConfig(row.type, row.config) as NotificationChannel['config'],
    events: row.events,
    all_monitors: row.allMonitors,
    is_active: row.isActive,
    reminder_minutes: row.reminderMinutes,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

/** A just created or rotated channel: a webhook's answer carries its signing secret, this once. */
export function presentChannelWithSecret (row: ChannelRow): NotificationChannelWithSecret {
  return row.secret === null ? presentChannel(row) : { ...presentChannel(row), secret: row.secret }
}

export function presentDelivery (row: DeliveryRow): Delivery {
  return {
    id: row.id,
    channel_id: row.channelId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
  }
}

export const presentDeliveryDetail = (row: DeliveryDetailRow): DeliveryDetail => ({ ...presentDelivery(row), attempt_log: row.attemptLog })
