// Shared setup of the delivery tests: a database with a user, a monitor, webhook channels and receivers,
// events written through the real outbox (recordCheck or enqueueEvent), and the delivery rows to assert on.
import { testAudit } from '../helper.ts'
import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf, type Database } from '../../src/db/client.ts'
import { notificationChannels, notificationDeliveries } from '../../src/db/schema.ts'
import type { ChannelType, ChannelEventType } from '../../src/domain/vocabulary.ts'
import { createMonitor } from '../../src/monitors/service.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { createUser } from '../../src/repositories/users.ts'
import { withMonitorDefaults } from '../../src/monitors/schema.ts'
import { createHttpSender } from '../../src/notifications/http-sender.ts'
import { createTransport } from '../../src/notifications/transport.ts'
import type { DeliveryOptions } from '../../src/notifications/deliver.ts'
import type { Clock } from '../../src/runtime/clock.ts'
import type { Teardown } from '../helper.ts'

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/** Options of attemptDelivery and the worker for tests: local receivers allowed, a short timeout. */
export function testDeliveryOptions (t: Teardown, extra: { timeoutMs?: number, clock?: Clock, random?: () => number } = {}): DeliveryOptions {
  const transport = createTransport({ http: createHttpSender({ allowPrivateTargets: true, timeoutMs: extra.timeoutMs }) })
  t.teardown(() => transport.close())
  return {
    transport,
    context: { publicUrl: 'https://pingward.example', serviceUrls: { telegram: 'http://127.0.0.1:9', pagerduty: 'http://127.0.0.1:9', ntfy: 'http://127.0.0.1:9' } },
    clock: extra.clock,
    random: extra.random,
  }
}

let users = 0

export async function deliverySetup (db: Database) {
  const user = await createUser(db, `deliveries${++users}-${randomBytes(3).toString('hex')}@example.com`)
  const monitor = await createMonitor(db, { orgId: user.id },
    withMonitorDefaults({ name: 'Shop', url: 'https://shop.example.com/health', failure_threshold: 1 }), { now: new Date(), audit: testAudit, allowPrivateTargets: true })

  async function channel (url: string, values: {
    type?: ChannelType,
    secret?: string,
    previousSecret?: string,
    previousSecretUntil?: Date,
    events?: ChannelEventType[]
    config?: Record<string, unknown>
  } = {}) {
    const [row] = await db.insert(notificationChannels).values({
      orgId: user.id,
      name: `hook ${url}`,
      type: values.type ?? 'webhook',
      config: values.config ?? { url },
      events: values.events ?? ['incident.opened', 'incident.resolved', 'test'],
      allMonitors: true,
      secret: values.secret ?? newSecret(),
      previousSecret: values.previousSecret,
      previousSecretUntil: values.previousSecretUntil,
    }).returning()
    return row
  }

  /** A `test` event for one channel, as the API's test route writes it; returns the delivery's id. */
  async function testEvent (channelId: string, at = new Date()): Promise<{ deliveryId: string, eventId: string }> {
    const { eventId } = await enqueueEvent(db, {
      orgId: user.id,
      monitorId: null,
      incidentId: null,
      at,
      channelId,
      payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
    })
    const [row] = await db.select({ id: notificationDeliveries.id }).from(notificationDeliveries).where(eq(notificationDeliveries.eventId, eventId))
    return { deliveryId: row.id, eventId }
  }

  /** A check of the monitor through recordCheck (threshold 1: a failure opens an incident, a success resolves it). */
  async function check (isUp: boolean, at: Date) {
    const recorded = await recordCheck(db, monitor.id, {
      isUp, statusCode: isUp ? 200 : 503, responseTimeMs: 5, errorMessage: isUp ? null : 'expected status 200, got 503', checkedAt: at,
    }, 30_000)
    if (!recorded) throw new Error('check not recorded')
  }

  return { user, monitor, channel, testEvent, check }
}

export interface DeliveryRow {
  id: string
  channel_id: string
  event_id: string
  event_type: string
  status: string
  attempts: number
  next_attempt_at: Date | null
  lease_until: Date | null
  last_status_code: number | null
  last_error: string | null
  attempt_log: Array<{ at: string, status_code: number | null, duration_ms: number, error: string | null, with?: string[] }>
  delivered_at: Date | null
}

/** The deliveries (of one channel, or all), oldest event first. */
export async function deliveryRows (db: Database, channelId?: string): Promise<DeliveryRow[]> {
  const rows = rowsOf<Record<string, any>>(await db.execute(sql`
    select d.*, e.type as event_type from notification_deliveries d join notification_events e on e.id = d.event_id
    ${channelId ? sql`where d.channel_id = ${channelId}` : sql``}
    order by e.created_at, e.type = 'incident.resolved', d.id`))
  const date = (value: unknown) => value === null ? null : new Date(value as string)
  return rows.map((r) => ({
    ...r,
    attempts: Number(r.attempts),
    next_attempt_at: date(r.next_attempt_at),
    lease_until: date(r.lease_until),
    delivered_at: date(r.delivered_at),
    last_status_code: r.last_status_code === null ? null : Number(r.last_status_code),
    attempt_log: typeof r.attempt_log === 'string' ? JSON.parse(r.attempt_log) : r.attempt_log,
  })) as DeliveryRow[]
}
