// Channel forms to API input: a type's fields come from its config schema, and the API's own checks decide.
import type { TObject, TSchema } from '@sinclair/typebox'
import { InvalidInputError } from '../domain/errors.ts'
import { CHANNEL_EVENT_TYPES, CHANNEL_TYPES, type ChannelType } from '../domain/vocabulary.ts'
import { inputErrorMessage } from '../http/error-catalog.ts'
import { bodyValidator, type FieldError, type Validated } from '../http/validation.ts'
import { assertTargetAllowed } from '../net/target-url.ts'
import {
  CHANNEL_CONFIG_SCHEMAS, CreateChannelSchema, UpdateChannelSchema, urlFields,
  type NewChannel, type NotificationChannel, type UpdateChannel,
} from '../notifications/schema.ts'
import { putNullable, type FormFields } from './form-input.ts'

type ConfigFieldKind = 'text' | 'url' | 'list' | 'number' | 'switch'

export interface ConfigField {
  key: string
  /** The form field's name, and the `field` of its errors: `config/url`. */
  name: string
  label: string
  description?: string
  example?: string
  kind: ConfigFieldKind
  secret: boolean
  required: boolean
}

interface FieldSchema { type?: string, format?: string, description?: string, examples?: unknown[], items?: FieldSchema, writeOnly?: boolean }

const WORDS: Record<string, string> = { url: 'URL', id: 'ID', api: 'API' }

/** `webhook_url` reads "Webhook URL", `chat_id` "Chat ID". */
function labelOf (key: string): string {
  const words = key.split('_').map((w) => WORDS[w] ?? w)
  return words.join(' ').replace(/^./, (c) => c.toUpperCase())
}

function kindOf (schema: FieldSchema): ConfigFieldKind {
  if (schema.type === 'array') return 'list'
  if (schema.type === 'integer' || schema.type === 'number') return 'number'
  if (schema.type === 'boolean') return 'switch'
  return schema.format === 'uri' ? 'url' : 'text'
}

/** The fields of a type's config, in the schema's order, as the form shows them. */
export const configFields = (type: ChannelType): ConfigField[] => fieldsOf(CHANNEL_CONFIG_SCHEMAS[type])

/** The fields of a config schema; a field marked writeOnly (the schema's one mark of a secret) is a secret. */
export function fieldsOf (schema: TObject): ConfigField[] {
  return Object.entries(schema.properties).map(([key, field]: [string, FieldSchema & TSchema]) => {
    const example = field.examples?.[0] ?? field.items?.examples?.[0]
    return {
      key,
      name: `config/${key}`,
      label: labelOf(key),
      description: field.description ?? field.items?.description,
      example: typeof example === 'string' ? example : undefined,
      kind: kindOf(field),
      secret: field.writeOnly === true,
      required: (schema.required ?? []).includes(key),
    }
  })
}

/** A typed-in value, or undefined when the field was left blank. */
export function valueOf (field: ConfigField, text: string | undefined): unknown {
  const trimmed = text?.trim() ?? ''
  if (field.kind === 'switch') return text === 'on'
  if (trimmed === '') return undefined
  if (field.kind === 'list') return trimmed.split(/[\s,;]+/).filter(Boolean)
  // A number becomes a number; anything else stays text, for the schema to say "must be integer".
  if (field.kind === 'number') return /^[+-]?\d+(\.\d+)?$/.test(trimmed) && trimmed.length <= 20 ? Number(trimmed) : trimmed
  return trimmed
}

/** A new channel's config: blank fields are left out (the schema says which are required). */
function newConfig (type: ChannelType, form: FormFields): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  for (const field of configFields(type)) {
    const value = valueOf(field, form[field.name])
    if (value !== undefined) config[field.key] = value
  }
  return config
}

/** An edit's config: a blank secret keeps the stored one, a blank optional field is removed, a blank required one refused. */
function configPatch (type: ChannelType, form: FormFields): Record<string, unknown> {
  const patch: Record<string, unknown> = {}
  for (const field of configFields(type)) {
    const value = valueOf(field, form[field.name])
    if (value !== undefined) patch[field.key] = value
    else if (field.secret) continue
    else patch[field.key] = field.required ? (field.kind === 'list' ? [] : '') : null
  }
  return patch
}

/** The form's name of an event's checkbox (one name per choice: the form parser keeps one value per name). */
export const eventFieldName = (event: string) => `event:${event}`

function commonInput (form: FormFields) {
  const input: Record<string, unknown> = {
    name: form.name ?? '',
    events: CHANNEL_EVENT_TYPES.filter((event) => form[eventFieldName(event)] === 'on'),
    all_monitors: form.all_monitors === 'on',
    is_active: form.is_active === 'on',
  }
  putNullable(input, 'reminder_minutes', form.reminder_minutes ?? '', 'number')
  return input
}

const validateCreate = bodyValidator<NewChannel>(CreateChannelSchema)
const validateUpdate = bodyValidator<UpdateChannel>(UpdateChannelSchema)
const validateConfig = Object.fromEntries(CHANNEL_TYPES.map((type) => [type, bodyValidator(CHANNEL_CONFIG_SCHEMAS[type])])) as
  Record<ChannelType, ReturnType<typeof bodyValidator>>

/** A config's first error, from its type's schema (its path put back under `config`), then the target rule on URL fields. */
function configError (type: ChannelType, config: Record<string, unknown>, allowPrivateTargets: boolean): FieldError | null {
  const result = validateConfig[type](config)
  if (!result.ok) {
    const { field, message } = result.error
    return { field: field ? `config/${field}` : 'config', message: message.replace(/^body/, 'body/config') }
  }
  for (const key of urlFields(type)) {
    try {
      assertTargetAllowed(config[key] as string | undefined, allowPrivateTargets, `config/${key}`)
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err
      return { field: `config/${key}`, message: inputErrorMessage(err) }
    }
  }
  return null
}

export function parseCreateChannel (type: ChannelType, form: FormFields, allowPrivateTargets: boolean): Validated<NewChannel> {
  const input = { ...commonInput(form), type, config: newConfig(type, form) }
  const result = validateCreate(input)
  // The API's validation decides; an error in the config is then found again, to name its field.
  const error = result.ok || result.error.field === 'config' ? configError(type, input.config, allowPrivateTargets) : null
  if (error) return { ok: false, error }
  return result
}

/** An edit of `channel`: its config's own checks come later, on the merged config (channelConfigCheck). */
export function parseUpdateChannel (channel: NotificationChannel, form: FormFields): Validated<UpdateChannel> {
  return validateUpdate({ ...commonInput(form), config: configPatch(channel.type, form) })
}

/** The service's check of an edit's merged config: the type's schema and the target rule, naming the field. */
export function channelConfigCheck (allowPrivateTargets: boolean) {
  return (type: ChannelType, config: Record<string, unknown>): void => {
    const error = configError(type, config, allowPrivateTargets)
    // The domain's sentence starts at the field; the edge says where it was.
    if (error) throw new InvalidInputError(error.field, error.message.replace(/^body\//, ''))
  }
}

/** A stored channel as the edit form's values (secrets blank: they are never shown). */
export function channelValues (channel: NotificationChannel): FormFields {
  const values: FormFields = {
    name: channel.name,
    all_monitors: channel.all_monitors ? 'on' : undefined,
    is_active: channel.is_active ? 'on' : undefined,
    reminder_minutes: channel.reminder_minutes === null ? '' : String(channel.reminder_minutes),
  }
  for (const event of channel.events) values[eventFieldName(event)] = 'on'
  const config = channel.config as Record<string, unknown>
  for (const field of configFields(channel.type)) {
    const value = config[field.key]
    if (field.secret || value === undefined || value === null) continue
    values[field.name] = Array.isArray(value) ? value.join(', ') : field.kind === 'switch' ? (value ? 'on' : undefined) : String(value)
  }
  return values
}
