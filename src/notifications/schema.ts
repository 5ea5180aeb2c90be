// The notification API's shapes: each channel type's strict config, the channel's create and update bodies and
// masked record, and a delivery with its attempts.
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import {
  CHANNEL_DEFAULTS, CHANNEL_EVENT_TYPES, CHANNEL_TYPES, DELIVERY_STATUSES, NOTIFICATION_EVENT_TYPES, REMINDER_MINUTES, type ChannelType,
} from '../domain/vocabulary.ts'
import { Envelope, Nullable, PageQuery, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

/** A config secret, shown only masked: this annotation is the one place that says a field is secret. */
const Secret = <T extends TSchema>(schema: T): T => ({ ...schema, writeOnly: true })

const isSecret = (schema: TSchema): boolean => (schema as { writeOnly?: boolean }).writeOnly === true

const HttpUrl = (description: string, example: string) => Type.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  pattern: '^[hH][tT][tT][pP][sS]?://',
  'x-error-message': 'must be an absolute http or https URL of at most 2048 characters',
  description: `${description}. Private, loopback, link-local and metadata addresses are refused unless the operator allows private targets`,
  examples: [example],
})

const strict = (properties: TProperties, title: string, description: string) =>
  Type.Object(properties, { additionalProperties: false, title, description })

const WebhookConfig = strict({
  url: HttpUrl('Where the signed POST goes', 'https://example.com/hooks/pingward'),
}, 'WebhookConfig', 'A signed JSON POST (Standard Webhooks) to `url`')

// Slack, Discord and Teams take the same config: the incoming-webhook URL the service gave, itself the secret.
const ChatConfig = strict({
  webhook_url: Secret(HttpUrl('The incoming-webhook URL the service gave (Slack, Discord or Teams); a secret', 'https://hooks.slack.com/services/T000/B000/XXXXXXXX')),
}, 'ChatWebhookConfig', 'A message in the service\'s own format, posted to its incoming webhook')

const TelegramConfig = strict({
  bot_token: Secret(Type.String({
    maxLength: 256,
    pattern: '^[0-9]+:[A-Za-z0-9_-]+$',
    'x-error-message': 'must be a Telegram bot token (digits, a colon, then letters, digits, - and _)',
    description: 'The bot\'s token from @BotFather; a secret',
    examples: ['123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'],
  })),
  chat_id: Type.String({
    maxLength: 32,
    pattern: '^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$',
    'x-error-message': 'must be a numeric chat id (e.g. -1001234567890) or a channel username (e.g. @mychannel)',
    description: 'The chat, group or channel the bot writes to: a numeric id or `@channelusername`',
    examples: ['-1001234567890'],
  }),
}, 'TelegramConfig', 'A message sent by the Bot API\'s `sendMessage`')

const NtfyConfig = strict({
  topic: Type.String({
    maxLength: 64,
    pattern: '^[-_A-Za-z0-9]{1,64}$',
    'x-error-message': 'must be 1-64 letters, digits, - or _',
    description: 'The ntfy topic to publish to',
    examples: ['pingward-alerts'],
  }),
  server_url: Type.Optional(HttpUrl('The ntfy server; the operator\'s NTFY_URL (by default the public https://ntfy.sh) when absent', 'https://ntfy.example.com')),
  token: Type.Optional(Secret(Type.String({
    minLength: 1,
    maxLength: 256,
    pattern: '^\\S+$',
    'x-error-message': 'must be 1-256 characters without spaces',
    description: 'An access token of the ntfy server, for a protected topic; a secret',
    examples: ['tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2'],
  }))),
}, 'NtfyConfig', 'A notification published to an ntfy topic')

const PagerDutyConfig = strict({
  routing_key: Secret(Type.String({
    maxLength: 32,
    pattern: '^[A-Za-z0-9]{32}$',
    'x-error-message': 'must be the 32-character integration key of an Events API v2 integration',
    description: 'The integration key (routing key) of an Events API v2 integration; a secret',
    examples: ['R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12'],
  })),
}, 'PagerDutyConfig', 'An Events API v2 alert: triggered when an incident opens, resolved (same `dedup_key`, the incident id) when it ends')

const EmailConfig = strict({
  to: Type.Array(Type.String({ format: 'email', maxLength: 254, description: 'An email address', examples: ['oncall@example.com'] }), {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: '1-20 addresses, each once',
  }),
}, 'EmailConfig', 'A mail through the operator\'s SMTP server (SMTP_URL)')

/** Each type's config; a type without one fails to compile. Secret fields carry `writeOnly: true`. */
export const CHANNEL_CONFIG_SCHEMAS: Record<ChannelType, TObject> = {
  webhook: WebhookConfig,
  slack: ChatConfig,
  discord: ChatConfig,
  teams: ChatConfig,
  telegram: TelegramConfig,
  ntfy: NtfyConfig,
  pagerduty: PagerDutyConfig,
  email: EmailConfig,
}

/** The config fields that are URLs the service will connect to: each passes the target policy. */
export function urlFields (type: ChannelType): string[] {
  return Object.entries(CHANNEL_CONFIG_SCHEMAS[type].properties)
    .filter(([, schema]) => (schema as { format?: string }).format === 'uri')
    .map(([key]) => key)
}

export function secretFields (type: ChannelType): string[] {
  return Object.entries(CHANNEL_CONFIG_SCHEMAS[type].properties).filter(([, schema]) => isSecret(schema)).map(([key]) => key)
}

const name = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  'x-error-message': 'must be 1-255 characters and not blank',
  description: 'Display name, 1-255 characters (surrounding spaces are trimmed)',
  examples: ['On-call'],
})
const events = Type.Array(StringEnum(CHANNEL_EVENT_TYPES), {
  minItems: 1,
  maxItems: CHANNEL_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The events the channel gets (`test` events are sent by the test route whatever this says; `incident.reminder` comes ' +
    'with `reminder_minutes`)',
  examples: [['incident.opened', 'incident.resolved']],
})
const allMonitors = Type.Boolean({
  description: 'True: every monitor of the owner, present and future; false: only the monitors that list the channel in `notification_channel_ids`',
})
const reminderMinutes = Nullable(Type.Integer({
  minimum: REMINDER_MINUTES.min,
  maximum: REMINDER_MINUTES.max,
  description: `Re-send \`incident.reminder\` every this many minutes (${REMINDER_MINUTES.min}-${REMINDER_MINUTES.max}) while an incident the ` +
    'channel was told of is open and not acknowledged; null: no reminders',
  examples: [30],
}))
const isActive = Type.Boolean({ description: 'False stops sending (deliveries already written still go); true again clears `disabled_reason`' })

const withDefault = <T extends object>(schema: T, value: unknown) => ({ ...schema, default: value })

const EXAMPLE_CONFIGS: Record<ChannelType, Record<string, unknown>> = {
  webhook: { url: 'https://example.com/hooks/pingward' },
  slack: { webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' },
  discord: { webhook_url: 'https://discord.com/api/webhooks/123/abc' },
  teams: { webhook_url: 'https://example.webhook.office.com/webhookb2/abc' },
  telegram: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '-1001234567890' },
  ntfy: { topic: 'pingward-alerts' },
  pagerduty: { routing_key: 'R0ut1ngK3yR0ut1ngK3yR0ut1ngK3y12' },
  email: { to: ['oncall@example.com'] },
}

const createVariant = (type: ChannelType) => Type.Object({
  name,
  type: Type.Literal(type, { description: 'Where the channel sends; fixed once created' }),
  config: CHANNEL_CONFIG_SCHEMAS[type],
  events: Type.Optional(withDefault(events, [...CHANNEL_DEFAULTS.events])),
  all_monitors: Type.Optional(withDefault(allMonitors, CHANNEL_DEFAULTS.all_monitors)),
  is_active: Type.Optional(withDefault(isActive, CHANNEL_DEFAULTS.is_active)),
  reminder_minutes: Type.Optional(withDefault(reminderMinutes, CHANNEL_DEFAULTS.reminder_minutes)),
}, { additionalProperties: false, title: `Create${type[0].toUpperCase()}${type.slice(1)}Channel` })

const CREATE_VARIANTS = CHANNEL_TYPES.map(createVariant)
type CreateVariant = Static<ReturnType<typeof createVariant>>

/** A new channel: one object per type, told apart by `type`, so that an error names the field of that type's config. */
export const CreateChannelSchema = Type.Unsafe<CreateVariant>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: CREATE_VARIANTS,
  $id: 'CreateNotificationChannelRequest',
  title: 'CreateNotificationChannelRequest',
  description: 'A new channel: `name`, `type` and that type\'s `config` are required; `events`, `all_monitors` and `is_active` have defaults',
  examples: [{ name: 'On-call webhook', type: 'webhook', config: EXAMPLE_CONFIGS.webhook, events: ['incident.opened', 'incident.resolved'], all_monitors: true }],
})

/** A create body after validation, which applied the defaults: every field is there. */
export type NewChannel = Required<CreateVariant>

export const UpdateChannelSchema = Type.Object({
  name: Type.Optional(name),
  config: Type.Optional(Type.Object({}, {
    additionalProperties: true,
    description: 'Merged over the stored config (a field set to null is removed), then checked as the type\'s config. ' +
      'A secret sent back masked, as responses show it, keeps the stored secret',
    examples: [{ url: 'https://example.com/hooks/new' }],
  })),
  events: Type.Optional(events),
  all_monitors: Type.Optional(allMonitors),
  is_active: Type.Optional(isActive),
  reminder_minutes: Type.Optional(reminderMinutes),
}, {
  $id: 'UpdateNotificationChannelRequest',
  title: 'UpdateNotificationChannelRequest',
  additionalProperties: false,
  description: 'Any subset of the writable fields; `{}` changes nothing. `type` cannot change',
  examples: [{ events: ['incident.opened'], is_active: true }],
})

export type UpdateChannel = Static<typeof UpdateChannelSchema>

const MASKED = Type.String({ description: 'A secret, masked: `…` and its last 4 characters', examples: ['…a1b2'] })

/** A type's config as responses show it: secret fields are masked strings, the rest as stored. */
function maskedConfigSchema (schema: TObject): TObject {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([key, field]) => {
    if (!isSecret(field)) return [key, field]
    const optional = !(schema.required ?? []).includes(key)
    return [key, optional ? Type.Optional(MASKED) : MASKED]
  }))
  return Type.Object(properties, { additionalProperties: false, title: schema.title, description: schema.description })
}

const MASKED_CONFIGS = [...new Set(Object.values(CHANNEL_CONFIG_SCHEMAS))].map(maskedConfigSchema)

const channelFields = {
  id: Uuid('Identifier of the channel'),
  name: Type.String({ description: 'Display name' }),
  type: StringEnum(CHANNEL_TYPES, { description: 'Where the channel sends' }),
  config: Type.Union(MASKED_CONFIGS, { description: 'The type\'s config, secrets masked' }),
  events,
  all_monitors: allMonitors,
  is_active: isActive,
  reminder_minutes: reminderMinutes,
  disabled_reason: Nullable(Type.String({
    description: 'Why the service turned the channel off (its receiver answered 410 Gone); null otherwise',
    examples: ['the receiver answered 410 Gone'],
  })),
  created_at: Timestamp('When the channel was created'),
  updated_at: Timestamp('When the channel was last changed'),
}

export const NotificationChannelSchema = Type.Object(channelFields, {
  $id: 'NotificationChannel',
  title: 'NotificationChannel',
  additionalProperties: false,
})

export const NotificationChannelWithSecretSchema = Type.Object({
  ...channelFields,
  secret: Type.Optional(Type.String({
    pattern: '^whsec_',
    description: 'A webhook channel\'s signing secret (`whsec_` and the base64 of 32 random bytes), shown only in the answers to create and ' +
      'rotate-secret. Receivers verify `webhook-signature` with it (Standard Webhooks)',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Nx9aJ1BhQM='],
  })),
}, { $id: 'NotificationChannelWithSecret', title: 'NotificationChannelWithSecret', additionalProperties: false })

export const ChannelEnvelope = Envelope(Type.Ref(NotificationChannelSchema), 'One notification channel')
export const ChannelWithSecretEnvelope = Envelope(Type.Ref(NotificationChannelWithSecretSchema), 'The channel; a webhook\'s with its signing secret, shown this once')
export const ChannelListEnvelope = Envelope(Type.Array(Type.Ref(NotificationChannelSchema)), 'The caller\'s channels, newest created first')

export const ChannelIdParams = Type.Object({
  id: Uuid('Id of the notification channel'),
}, { additionalProperties: false })

export type NotificationChannel = Static<typeof NotificationChannelSchema>
export type NotificationChannelWithSecret = Static<typeof NotificationChannelWithSecretSchema>

const deliveryFields = {
  id: Uuid('Identifier of the delivery'),
  channel_id: Uuid('The channel it goes to'),
  event_id: Uuid('The event it tells: the `webhook-id`, the same on every attempt'),
  event_type: StringEnum(NOTIFICATION_EVENT_TYPES, { description: 'What the event is' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description: '`pending` until its first attempt (or after a retry was asked), `delivered` after a 2xx, `failed` while it will be retried, `dead` once given up',
  }),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far' }),
  next_attempt_at: Nullable(Timestamp('When the next attempt is due; null once delivered or dead')),
  last_status_code: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null before the first, or when no response arrived' })),
  last_error: Nullable(Type.String({ description: 'What went wrong in the last attempt; null when it succeeded or none was made', examples: ['receiver answered 503'] })),
  created_at: Timestamp('When the event was written'),
  delivered_at: Nullable(Timestamp('When a 2xx arrived; null until then')),
}

export const DeliverySchema = Type.Object(deliveryFields, { $id: 'Delivery', title: 'Delivery', additionalProperties: false })

const AttemptSchema = Type.Object({
  at: Timestamp('When the attempt started'),
  status_code: Nullable(Type.Integer({ description: 'HTTP status received; null when no response arrived' })),
  duration_ms: Type.Integer({ minimum: 0, description: 'Milliseconds until the answer (or the failure)' }),
  error: Nullable(Type.String({ description: 'What went wrong; null for a 2xx', examples: ['timeout after 15000 ms'] })),
}, { additionalProperties: false })

export const DeliveryDetailSchema = Type.Object({
  ...deliveryFields,
  attempt_log: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }),
}, { $id: 'DeliveryDetail', title: 'DeliveryDetail', additionalProperties: false })

export const DeliveryEnvelope = Envelope(Type.Ref(DeliveryDetailSchema), 'One delivery with its attempts')
export const DeliveryListEnvelope = Envelope(Type.Array(Type.Ref(DeliverySchema)), 'Deliveries of the channel, newest first')

export const DELIVERY_PAGE_DEFAULT = 50

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries with this status' })),
  ...PageQuery('deliveries', DELIVERY_PAGE_DEFAULT).properties,
}, { additionalProperties: false })

export const DeliveryIdParams = Type.Object({
  id: Uuid('Id of the delivery'),
}, { additionalProperties: false })

export type Delivery = Static<typeof DeliverySchema>
export type DeliveryDetail = Static<typeof DeliveryDetailSchema>
