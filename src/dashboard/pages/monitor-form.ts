// The monitor form of the dashboard (create on the monitors page, edit on its own page).
import { HTTP_METHODS, MONITOR_DEFAULTS } from '../../domain/vocabulary.ts'
import type { Monitor } from '../../schemas/monitor.ts'
import type { NotificationChannel } from '../../schemas/notification-channel.ts'
import type { FieldError } from '../../http/validation.ts'
import { channelFieldName, type FormFields } from '../form-input.ts'
import { checkboxField, checkboxGroup, errorSummary, inputField, selectField } from './forms.ts'
import { html, type SafeHtml } from '../html.ts'
import { typeName } from './channel-form.ts'
import { csrfField } from './layout.ts'

const MONITOR_LABELS: Record<string, string> = {
  name: 'Name',
  url: 'URL',
  method: 'Method',
  expected_status: 'Expected status',
  interval_minutes: 'Check every (minutes)',
  timeout_seconds: 'Timeout (seconds)',
  failure_threshold: 'Failures before down',
  recovery_threshold: 'Successes before up',
  is_active: 'Active (checked on schedule)',
  notification_channel_ids: 'Notification channels',
}

const ADVANCED = ['method', 'expected_status', 'interval_minutes', 'timeout_seconds', 'failure_threshold', 'recovery_threshold']

/** The form's values for a new monitor: the API's defaults. */
export function defaultMonitorValues (): FormFields {
  const d = MONITOR_DEFAULTS
  return {
    name: '',
    url: '',
    method: d.method,
    expected_status: String(d.expected_status),
    interval_minutes: String(d.interval_minutes),
    timeout_seconds: String(d.timeout_seconds),
    failure_threshold: String(d.failure_threshold),
    recovery_threshold: String(d.recovery_threshold),
    is_active: d.is_active ? 'on' : undefined,
  }
}

export function monitorValues (m: Monitor): FormFields {
  const channels = Object.fromEntries(m.notification_channel_ids.map((id) => [channelFieldName(id), 'on']))
  return {
    ...channels,
    name: m.name,
    url: m.url,
    method: m.method,
    expected_status: String(m.expected_status),
    interval_minutes: String(m.interval_minutes),
    timeout_seconds: String(m.timeout_seconds),
    failure_threshold: String(m.failure_threshold),
    recovery_threshold: String(m.recovery_threshold),
    is_active: m.is_active ? 'on' : undefined,
  }
}

/**
 * Which channels the monitor notifies: one checkbox per channel of the user's. A channel for every monitor is
 * shown ticked and cannot be unticked here; if the monitor also chose it, that choice is kept (hidden), so it
 * still holds should the channel stop covering every monitor.
 */
function channelChoices (common: { form: string, error: FieldError | null }, channels: NotificationChannel[], values: FormFields): SafeHtml {
  if (channels.length === 0) {
    return html`<p class="hint">No notification channels yet: <a href="/settings/notifications">add one</a> to be told when this monitor goes down.</p>`
  }
  const chosen = (c: NotificationChannel) => values[channelFieldName(c.id)] === 'on'
  return html`${checkboxGroup({
    ...common,
    name: 'notification_channel_ids',
    label: MONITOR_LABELS.notification_channel_ids,
    hint: 'Who is told when this monitor goes down and when it is up again.',
    options: channels.map((c) => ({
      name: channelFieldName(c.id),
      label: c.name,
      checked: c.all_monitors || chosen(c),
      disabled: c.all_monitors,
      note: [typeName(c.type), c.all_monitors && 'covers every monitor', !c.is_active && 'off'].filter(Boolean).join(', '),
    })),
  })}${channels.filter((c) => c.all_monitors && chosen(c)).map((c) => html`<input type="hidden" name="${channelFieldName(c.id)}" value="on">`)}`
}

export function monitorForm (options: {
  id: string
  action: string
  submit: string
  csrfToken: string
  values: FormFields
  error: FieldError | null
  /** Put the less common fields in a closed <details> (unless one of them is in error). */
  collapseAdvanced: boolean
  /** The user's notification channels, to choose from. */
  channels: NotificationChannel[]
}): SafeHtml {
  const { id, values, error } = options
  const common = { form: id, error }
  const number = (name: string, hint: string) => inputField({
    ...common, name, label: MONITOR_LABELS[name], type: 'number', inputmode: 'numeric', value: values[name] ?? '', hint,
  })
  const advanced = html`
${selectField({ ...common, name: 'method', label: MONITOR_LABELS.method, value: values.method, options: HTTP_METHODS.map((m) => ({ value: m, label: m })) })}
${number('expected_status', 'The HTTP status that counts as up, 100-599.')}
${number('interval_minutes', '1-1440.')}
${number('timeout_seconds', 'A check that takes longer fails, 1-60.')}
${number('failure_threshold', 'Failed checks in a row that open an incident, 1-10.')}
${number('recovery_threshold', 'Successful checks in a row that resolve it, 1-10.')}`
  const open = !options.collapseAdvanced || (error !== null && ADVANCED.includes(error.field))
  // novalidate: the server's rules (the API's) decide, and their message appears next to the field.
  return html`<form id="${id}" class="monitor-form" method="post" action="${options.action}" novalidate>
${errorSummary('The monitor was not saved', error, MONITOR_LABELS, id)}
${csrfField(options.csrfToken)}
${inputField({ ...common, name: 'name', label: MONITOR_LABELS.name, value: values.name ?? '', required: true, autocomplete: 'off' })}
${inputField({ ...common, name: 'url', label: MONITOR_LABELS.url, type: 'url', value: values.url ?? '', required: true, autocomplete: 'off', hint: 'An http:// or https:// address.' })}
${options.collapseAdvanced
  ? html`<details${open ? html` open` : ''}><summary>More settings</summary>${advanced}</details>`
  : html`<fieldset><legend>Check settings</legend>${advanced}</fieldset>`}
${channelChoices(common, options.channels, values)}
${checkboxField({ ...common, name: 'is_active', label: MONITOR_LABELS.is_active, checked: values.is_active === 'on' })}
<p class="actions"><button type="submit" class="primary">${options.submit}</button></p>
</form>`
}
