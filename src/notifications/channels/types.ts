// What a channel adapter is: it turns a message (one event, an incident told whole, or a digest) into the
// request its service expects. Adapters only build requests; src/notifications sends them and records attempts.
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

/**
 * What is told in one request: an event; an incident that opened and resolved before its opening was told
 * (one message says both: "was down 3 min, now up"); or a digest of a storm of events (more than 10 for one
 * channel within a minute). Flaps and digests go only to adapters with `forPeople`.
 */
export type Message =
  | { kind: 'event', told: ToldEvent }
  | { kind: 'flap', opened: ToldEvent, resolved: ToldEvent }
  | { kind: 'digest', told: ToldEvent[] }

/** Where the services are (configuration, defaulting to the real ones) and where the dashboard is. */
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
    /** Threading: the opened mail's Message-ID is the incident's; the resolved mail answers it. */
    messageId: string
    inReplyTo?: string
  }

export interface ChannelAdapter {
  /**
   * True when a person reads what it sends: it gets flaps and digests. False for receivers that are
   * machines and need each event as it is (webhook; PagerDuty, whose resolve must match its trigger).
   */
  forPeople: boolean
  render: (channel: ChannelForSending, message: Message, context: SendContext) => Outgoing
}
