// A channel adapter turns a message into the request its service expects; src/notifications sends it.
import type { ChannelType } from '../../domain/vocabulary.ts'
import type { NotificationEvent } from '../../schemas/notification-event.ts'

export interface ChannelForSending {
  id: string
  name: string
  type: ChannelType
  /** The stored config, secrets in clear. */
  config: Record<string, unknown>
  /** A webhook's signing secrets in effect (the current one first, the previous one during the 24 h after a rotation); [] otherwise. */
  secrets: string[]
}

export interface ToldEvent {
  /** The event's id: a webhook's `webhook-id`. */
  id: string
  event: NotificationEvent
}

/** One request's content: an event, an incident that resolved before it was told, or a storm's digest (`forPeople` only). */
export type Message =
  | { kind: 'event', told: ToldEvent }
  | { kind: 'flap', opened: ToldEvent, resolved: ToldEvent }
  | { kind: 'digest', told: ToldEvent[] }

export interface SendContext {
  /** The dashboard's base URL, no trailing slash (PUBLIC_URL). */
  publicUrl: string
  serviceUrls: { telegram: string, pagerduty: string, ntfy: string }
  now: Date
}

export type Outgoing =
  | { kind: 'http', url: string, headers: Record<string, string>, body: string }
  | {
    kind: 'email'
    to: string[]
    subject: string
    text: string
    html?: string
    messageId: string
    inReplyTo?: string
    /** More header fields, such as RFC 8058's List-Unsubscribe of a status page's subscriber mail. */
    headers?: Record<string, string>
  }

export interface ChannelAdapter {
  /** A person reads it, so it gets flaps and digests; a machine (webhook, PagerDuty) needs each event as it is. */
  forPeople: boolean
  render: (channel: ChannelForSending, message: Message, context: SendContext) => Outgoing
}
