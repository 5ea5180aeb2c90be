// The notification channel form, its fields read off the type's config schema, and the pages around it.
import { CHANNEL_DEFAULTS, CHANNEL_EVENT_TYPES, REMINDER_MINUTES, type ChannelType, type NotificationEventType } from '../../domain/vocabulary.ts'
import type { FieldError } from '../../http/validation.ts'
import type { NotificationChannel } from '../../notifications/schema.ts'
import { configFields, eventFieldName, type ConfigField } from '../channel-input.ts'
import type { FormFields } from '../form-input.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { checkboxField, checkboxGroup, errorSummary, inputField } from './forms.ts'
import { csrfField, page, settingsNav, type PageContext } from './layout.ts'

// A type without a name here is shown by its own name: a new type needs no change to the dashboard.
const TYPE_NAMES: Partial<Record<ChannelType, string>> = {
  webhook: 'Webhook',
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  telegram: 'Telegram',
  ntfy: 'ntfy',
  pagerduty: 'PagerDuty',
  email: 'Email',
}

export const typeName = (type: ChannelType): string => TYPE_NAMES[type] ?? type

export const EVENT_NAMES: Record<NotificationEventType, { short: string, long: string }> = {
  'incident.opened': { short: 'Down', long: 'Down: an incident opens' },
  'incident.resolved': { short: 'Up again', long: 'Up again: an incident is resolved (also by a pause or a delete)' },
  'incident.acknowledged': { short: 'Acknowledged', long: 'Acknowledged: someone said they are on an open incident' },
  'incident.reminder': { short: 'Reminder', long: 'Reminder: an incident still open and not acknowledged' },
  'monitor.degraded': { short: 'Degraded', long: 'Degraded: checks pass but slower than allowed, and when that ends' },
  'heartbeat.missed': { short: 'Heartbeat missed', long: 'Heartbeat missed: no ping within its interval and grace (also told to channels that get Down)' },
  'tls.expiring': { short: 'Certificate expiring', long: 'Certificate expiring: 14, 7 and 1 days before an HTTPS certificate expires' },
  'maintenance.started': { short: 'Maintenance began', long: 'Maintenance began: an occurrence of a maintenance window started' },
  'maintenance.ended': { short: 'Maintenance ended', long: 'Maintenance ended: an occurrence of a maintenance window ended' },
  'location.coverage_lost': { short: 'Locations silent', long: 'Locations silent: too few of a monitor\'s locations report for its quorum (its status is kept)' },
  'location.coverage_restored': { short: 'Locations back', long: 'Locations back: enough of a monitor\'s locations report again' },
  test: { short: 'Tests', long: 'Tests (Send test sends one whatever this says)' },
}

const COMMON_LABELS: Record<string, string> = {
  name: 'Name',
  events: 'Send when',
  all_monitors: 'Every monitor, present and future',
  is_active: 'Active (sends notifications)',
  reminder_minutes: 'Remind every (minutes)',
}

/** The labels of the form's fields, for the error summary. */
const labelsOf = (fields: ConfigField[]) => ({ ...COMMON_LABELS, ...Object.fromEntries(fields.map((f) => [f.name, f.label])) })

/** A new channel's values: the API's defaults. */
export function newChannelValues (): FormFields {
  const values: FormFields = {
    name: '',
    all_monitors: CHANNEL_DEFAULTS.all_monitors ? 'on' : undefined,
    is_active: CHANNEL_DEFAULTS.is_active ? 'on' : undefined,
    reminder_minutes: '',
  }
  for (const event of CHANNEL_DEFAULTS.events) values[eventFieldName(event)] = 'on'
  return values
}

function configInput (field: ConfigField, options: { form: string, values: FormFields, error: FieldError | null, saved?: unknown }): SafeHtml {
  const common = { form: options.form, error: options.error, name: field.name, label: field.label }
  if (field.kind === 'switch') return checkboxField({ ...common, checked: options.values[field.name] === 'on', hint: field.description })
  const hint = [
    field.kind === 'list' && 'Separate them with commas.',
    field.secret && typeof options.saved === 'string' && `Saved: ${options.saved}. Leave blank to keep it.`,
    field.description && `${field.description}.`,
    !field.required && !field.secret && 'Optional.',
  ].filter(Boolean).join(' ')
  return inputField({
    ...common,
    // A secret is never shown again, not even masked in the field: only its last characters, in the hint.
    type: field.secret ? 'password' : field.kind === 'url' ? 'url' : field.kind === 'number' ? 'number' : 'text',
    value: options.values[field.name] ?? '',
    autocomplete: 'off',
    placeholder: field.secret ? undefined : field.example,
    required: field.required && !(field.secret && options.saved !== undefined),
    hint,
  })
}

function channelForm (options: {
  id: string
  action: string
  submit: string
  csrfToken: string
  type: ChannelType
  values: FormFields
  error: FieldError | null
  /** An edit: the stored config, secrets masked. */
  saved?: Record<string, unknown>
}): SafeHtml {
  const { id, values, error, type } = options
  const fields = configFields(type)
  const common = { form: id, error }
  return html`<form id="${id}" class="channel-form" method="post" action="${options.action}" novalidate>
${errorSummary('The channel was not saved', error, labelsOf(fields), id)}
${csrfField(options.csrfToken)}
${options.saved === undefined && html`<input type="hidden" name="type" value="${type}">`}
${inputField({ ...common, name: 'name', label: COMMON_LABELS.name, value: values.name ?? '', required: true, autocomplete: 'off', hint: 'What it is, e.g. "On-call Slack".' })}
<fieldset><legend>${typeName(type)} settings</legend>
${fields.map((field) => configInput(field, { form: id, values, error, saved: options.saved?.[field.key] }))}
</fieldset>
${checkboxGroup({
  ...common,
  name: 'events',
  label: COMMON_LABELS.events,
  options: CHANNEL_EVENT_TYPES.map((event) => ({ name: eventFieldName(event), label: EVENT_NAMES[event].long, checked: values[eventFieldName(event)] === 'on' })),
})}
${checkboxField({ ...common, name: 'all_monitors', label: COMMON_LABELS.all_monitors, checked: values.all_monitors === 'on', hint: 'Otherwise only the monitors whose form ticks this channel.' })}
${inputField({ ...common, name: 'reminder_minutes', label: COMMON_LABELS.reminder_minutes, type: 'number', inputmode: 'numeric', value: values.reminder_minutes ?? '', hint: `While an incident this channel was told of is open and nobody has acknowledged it, ${REMINDER_MINUTES.min}-${REMINDER_MINUTES.max}. Empty: no reminders.` })}
${checkboxField({ ...common, name: 'is_active', label: COMMON_LABELS.is_active, checked: values.is_active === 'on' })}
<p class="actions"><button type="submit" class="primary">${options.submit}</button></p>
</form>`
}

const crumbs = (context: PageContext) => html`${settingsNav('notifications', context)}<p class="crumbs"><a href="/settings/notifications">Notifications</a> /</p>`

export function newChannelPage (context: PageContext, options: { type: ChannelType, values: FormFields, error: FieldError | null }): SafeHtml {
  const title = `New ${typeName(options.type)} channel`
  const body = html`${crumbs(context)}
<h1>${title}</h1>
${channelForm({ id: 'new-channel', action: '/settings/notifications', submit: 'Create channel', csrfToken: context.csrfToken, ...options })}
<p><a href="/settings/notifications">Cancel</a></p>`
  return page({ title, context, section: 'settings', body })
}

export function editChannelPage (context: PageContext, options: { channel: NotificationChannel, values: FormFields, error: FieldError | null }): SafeHtml {
  const { channel: c } = options
  const body = html`${crumbs(context)}
<h1>Edit ${c.name}</h1>
${channelForm({
  id: 'edit-channel',
action: `/settings/notifications/${c.id}/edit`,
submit: 'Save',
csrfToken: context.csrfToken,
  type: c.type,
values: options.values,
error: options.error,
saved: c.config as Record<string, unknown>,
})}
<p><a href="/settings/notifications/${c.id}">Cancel</a></p>`
  return page({ title: `Edit ${c.name}`, context, section: 'settings', body })
}
