// The monitor form of the dashboard (create on the monitors page, edit on its own page).
import { HTTP_METHODS, KEYWORD_MODES, type KeywordMode, type MonitorType } from '../../domain/vocabulary.ts'
import { isFieldOfType, MONITOR_DEFAULTS } from '../../domain/monitor-types.ts'
import type { Location } from '../../locations/schema.ts'
import type { Monitor } from '../../monitors/schema.ts'
import type { NotificationChannel } from '../../notifications/schema.ts'
import type { FieldError } from '../../http/validation.ts'
import { channelFieldName, dependencyFieldName, locationFieldName, pairsText, type FormFields } from '../form-input.ts'
import { checkboxField, checkboxGroup, errorSummary, inputField, selectField } from './forms.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { typeName } from './channel-form.ts'
import { csrfField } from './layout.ts'
import {
  dnsFields, heartbeatFields, INTERVAL_TEXTS, KIND_FIELD_LABELS, kindGroup, kindInput, kindOf, kindSelect, textareaField, URL_TEXTS,
} from './monitor-kinds.ts'

const MONITOR_LABELS: Record<string, string> = {
  name: 'Name',
  url: 'URL',
  method: 'Method',
  expected_status: 'Expected status',
  interval_minutes: 'Check every (minutes)',
  timeout_seconds: 'Timeout (seconds)',
  failure_threshold: 'Failures before down',
  recovery_threshold: 'Successes before up',
  keyword: 'Keyword',
  keyword_mode: 'Keyword mode',
  degraded_after_ms: 'Degraded after (ms)',
  request_headers: 'Request headers',
  secret_headers: 'Also secret',
  request_body: 'Request body',
  is_active: 'Active (checked on schedule)',
  notification_channel_ids: 'Notification channels',
  labels: 'Labels',
  depends_on: 'Depends on',
  locations: 'Check from',
  location_quorum: 'Locations that must fail',
  ...KIND_FIELD_LABELS,
}

/** The labels of the form's fields for one kind (the URL and the interval say what that kind does). */
const labelsFor = (kind: MonitorType): Record<string, string> =>
  ({ ...MONITOR_LABELS, url: URL_TEXTS[kind]?.label ?? MONITOR_LABELS.url, interval_minutes: INTERVAL_TEXTS[kind].label })

const ADVANCED = ['method', 'expected_status', 'interval_minutes', 'timeout_seconds', 'failure_threshold', 'recovery_threshold']
const ASSERTIONS = ['keyword', 'keyword_mode', 'degraded_after_ms', 'request_headers', 'secret_headers', 'request_body']

/** How the dashboard says a keyword mode (also on the monitor page). */
export const KEYWORD_MODE_LABELS: Record<KeywordMode, string> = { contains: 'contains', not_contains: 'does not contain' }

/** The form's values for a new monitor: the API's defaults. */
export function defaultMonitorValues (): FormFields {
  const d = MONITOR_DEFAULTS
  return {
    name: '',
    monitor_type: d.monitor_type,
    url: '',
    method: d.method,
    expected_status: String(d.expected_status),
    interval_minutes: String(d.interval_minutes),
    timeout_seconds: String(d.timeout_seconds),
    failure_threshold: String(d.failure_threshold),
    recovery_threshold: String(d.recovery_threshold),
    keyword: d.keyword ?? '',
    keyword_mode: d.keyword_mode,
    degraded_after_ms: d.degraded_after_ms === null ? '' : String(d.degraded_after_ms),
    request_headers: pairsText(d.request_headers),
    secret_headers: d.secret_headers.join(', '),
    request_body: d.request_body ?? '',
    is_active: d.is_active ? 'on' : undefined,
    dns_record_type: d.dns_record_type,
    dns_expected: '',
    grace_minutes: String(d.grace_minutes),
    labels: pairsText(d.labels),
    location_quorum: '',
  }
}

export function monitorValues (m: Monitor): FormFields {
  const channels = Object.fromEntries(m.notification_channel_ids.map((id) => [channelFieldName(id), 'on']))
  return {
    ...channels,
    name: m.name,
    monitor_type: m.monitor_type,
    url: m.url ?? '',
    method: m.method,
    expected_status: String(m.expected_status),
    interval_minutes: String(m.interval_minutes),
    timeout_seconds: String(m.timeout_seconds),
    failure_threshold: String(m.failure_threshold),
    recovery_threshold: String(m.recovery_threshold),
    keyword: m.keyword ?? '',
    keyword_mode: m.keyword_mode,
    degraded_after_ms: m.degraded_after_ms === null ? '' : String(m.degraded_after_ms),
    // Secret values as the API shows them, masked: sent back unchanged, they keep the stored ones.
    request_headers: pairsText(m.request_headers),
    secret_headers: m.secret_headers.join(', '),
    request_body: m.request_body ?? '',
    is_active: m.is_active ? 'on' : undefined,
    // Another kind's fields at their defaults, for a change of kind.
    dns_record_type: m.dns_record_type ?? MONITOR_DEFAULTS.dns_record_type,
    dns_expected: (m.dns_expected ?? []).join('\n'),
    grace_minutes: String(m.grace_minutes ?? MONITOR_DEFAULTS.grace_minutes),
    labels: pairsText(m.labels),
    ...Object.fromEntries(m.depends_on.map((id) => [dependencyFieldName(id), 'on'])),
    ...Object.fromEntries(m.locations.map((code) => [locationFieldName(code), 'on'])),
    location_quorum: m.location_quorum === null ? '' : String(m.location_quorum),
  }
}

/** A form shown again after an error: what was sent, and the other kinds' fields (disabled, so not sent) as they were. */
export function valuesSentAgain (sent: FormFields, shown: FormFields): FormFields {
  const kind = kindOf(sent)
  const others = Object.entries(shown).filter(([name]) => !isFieldOfType(kind, name))
  return { ...Object.fromEntries(others), ...sent }
}

/** What else than its status makes a check pass, and what it sends: all optional, empty by default. */
function assertionFields (common: { form: string, error: FieldError | null }, values: FormFields): SafeHtml {
  return html`
${inputField({ ...common, name: 'keyword', label: MONITOR_LABELS.keyword, value: values.keyword ?? '', autocomplete: 'off', hint: 'Text that the first 1 MiB of the response must contain (or not), case-sensitive. Empty: the body is not looked at.' })}
${selectField({ ...common, name: 'keyword_mode', label: MONITOR_LABELS.keyword_mode, value: values.keyword_mode, options: KEYWORD_MODES.map((m) => ({ value: m, label: KEYWORD_MODE_LABELS[m] })) })}
${inputField({ ...common, name: 'degraded_after_ms', label: MONITOR_LABELS.degraded_after_ms, type: 'number', inputmode: 'numeric', value: values.degraded_after_ms ?? '', hint: 'A passing check that takes longer makes the monitor degraded, 1-60000. Empty: never.' })}
${textareaField({
  ...common,
  name: 'request_headers',
  label: MONITOR_LABELS.request_headers,
  value: values.request_headers ?? '',
  rows: 3,
  hint: 'One "Name: value" per line. Secret values (names with auth, cookie, session, credential, pass, sig, token, key or secret, and those ' +
    'named below) are shown masked: left as they are, they stay as saved, unless the URL moves to another site (scheme, host or port): type them again then.',
})}
${inputField({ ...common, name: 'secret_headers', label: MONITOR_LABELS.secret_headers, value: values.secret_headers ?? '', autocomplete: 'off', hint: 'Names of more request headers whose values are secret, separated by commas. A header stops being secret only when its value is typed again.' })}
${textareaField({ ...common, name: 'request_body', label: MONITOR_LABELS.request_body, value: values.request_body ?? '', rows: 3, hint: 'Sent with each check, not with GET or HEAD. Empty: no body.' })}`
}

/** One checkbox per channel; one for every monitor is ticked and locked, the monitor's own choice of it kept hidden. */
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

/** Most monitors offered as checkboxes to depend on: past it, the API sets `depends_on`. */
const DEPENDENCY_CHOICES_MAX = 200

/** One checkbox per other monitor of the organization; a hidden field says they were offered, so none ticked clears them. */
function dependencyChoices (common: { form: string, error: FieldError | null }, others: Array<{ id: string, name: string }>, values: FormFields): SafeHtml {
  if (others.length === 0) return html``
  if (others.length > DEPENDENCY_CHOICES_MAX) {
    return html`<p class="hint">${MONITOR_LABELS.depends_on}: set with the API (<code>depends_on</code>) in an organization of more than ${DEPENDENCY_CHOICES_MAX} monitors.</p>`
  }
  return html`<input type="hidden" name="depends_on_shown" value="on">${checkboxGroup({
    ...common,
    name: 'depends_on',
    label: MONITOR_LABELS.depends_on,
    hint: 'While one of these is down, an incident of this monitor is kept but told to no one (a router, a database it needs).',
    options: others.map((m) => ({ name: dependencyFieldName(m.id), label: m.name, checked: values[dependencyFieldName(m.id)] === 'on' })),
  })}`
}

/** A location the monitor form offers. */
export type LocationChoice = Pick<Location, 'code' | 'name' | 'kind' | 'online'>

/** The locations as checkboxes, with the quorum; a hidden field says they were offered, so none ticked clears them. */
function locationChoices (
  common: { form: string, error: FieldError | null }, locations: LocationChoice[], values: FormFields
): SafeHtml {
  if (locations.length <= 1 && !locations.some((l) => values[locationFieldName(l.code)] === 'on')) return html``
  return kindGroup(['site', 'tcp', 'dns'], html`<input type="hidden" name="locations_shown" value="on">${checkboxGroup({
    ...common,
    name: 'locations',
    label: MONITOR_LABELS.locations,
    hint: 'The locations (checkers and agents) that check this monitor, each on every interval. None: any one checker.',
    options: locations.map((l) => ({
      name: locationFieldName(l.code),
      label: l.name,
      checked: values[locationFieldName(l.code)] === 'on',
      note: [l.code, l.kind === 'agent' && 'agent', !l.online && 'offline'].filter(Boolean).join(', '),
    })),
  })}
${inputField({
  ...common,
  name: 'location_quorum',
  label: MONITOR_LABELS.location_quorum,
  type: 'number',
  inputmode: 'numeric',
  value: values.location_quorum ?? '',
  hint: 'How many of the ticked locations must see it failing for it to be down. Empty: a majority.',
})}`)
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
  channels: NotificationChannel[]
  /** The organization's other monitors, which it may depend on. */
  others: Array<{ id: string, name: string }>
  /** The locations it may be checked from. */
  locations: LocationChoice[]
}): SafeHtml {
  const { id, values, error } = options
  const kind = kindOf(values)
  const common = { form: id, error }
  const number = (name: string, hint: string) => inputField({
    ...common, name, label: MONITOR_LABELS[name], type: 'number', inputmode: 'numeric', value: values[name] ?? '', hint,
  })
  // Each field of one kind or a few is in a group marked with its kinds, which the script shows for those only.
  const advanced = html`
${kindGroup(['site'], html`
${selectField({ ...common, name: 'method', label: MONITOR_LABELS.method, value: values.method, options: HTTP_METHODS.map((m) => ({ value: m, label: m })) })}
${number('expected_status', 'The HTTP status that counts as up, 100-599.')}`)}
${kindInput({ ...common, name: 'interval_minutes', kind, texts: INTERVAL_TEXTS, type: 'number', value: values.interval_minutes ?? '' })}
${kindGroup(['site', 'tcp', 'dns'], number('timeout_seconds', 'A check that takes longer fails, 1-60.'))}
${number('failure_threshold', 'Failed checks in a row that open an incident, 1-10.')}
${number('recovery_threshold', 'Successful checks in a row that resolve it, 1-10.')}`
  // A body refused for the method: the method is one of these.
  const open = !options.collapseAdvanced || (error !== null && [...ADVANCED, 'request_body'].includes(error.field))
  // Open when one of them is in error or set (a form shown again after an error elsewhere).
  const assertionsOpen = !options.collapseAdvanced || (error !== null && ASSERTIONS.includes(error.field)) ||
    ASSERTIONS.some((name) => name !== 'keyword_mode' && (values[name] ?? '') !== '')
  // novalidate: the server's rules (the API's) decide, and their message appears next to the field.
  return html`<form id="${id}" class="monitor-form" method="post" action="${options.action}" novalidate>
${errorSummary('The monitor was not saved', error, labelsFor(kind), id)}
${csrfField(options.csrfToken)}
${inputField({ ...common, name: 'name', label: MONITOR_LABELS.name, value: values.name ?? '', required: true, autocomplete: 'off' })}
${kindSelect(common, kind)}
${kindGroup(['site', 'tcp', 'dns'], kindInput({ ...common, name: 'url', kind, texts: URL_TEXTS, type: 'url', value: values.url ?? '', required: true }))}
${dnsFields(common, values)}
${heartbeatFields(common, values)}
${options.collapseAdvanced
  ? html`<details${open ? html` open` : ''}><summary>More settings</summary>${advanced}</details>`
  : html`<fieldset><legend>Check settings</legend>${advanced}</fieldset>`}
${kindGroup(['site'], options.collapseAdvanced
  ? html`<details${assertionsOpen ? html` open` : ''}><summary>Assertions</summary>${assertionFields(common, values)}</details>`
  : html`<fieldset><legend>Assertions</legend>${assertionFields(common, values)}</fieldset>`)}
${channelChoices(common, options.channels, values)}
${textareaField({ ...common, name: 'labels', label: MONITOR_LABELS.labels, value: values.labels ?? '', rows: 2, hint: 'One "key: value" per line, at most 20 (keys of a-z 0-9 _ . - /), to find monitors and choose them for maintenance.' })}
${dependencyChoices(common, options.others, values)}
${locationChoices(common, options.locations, values)}
${checkboxField({ ...common, name: 'is_active', label: MONITOR_LABELS.is_active, checked: values.is_active === 'on' })}
<p class="actions"><button type="submit" class="primary">${options.submit}</button></p>
</form>`
}
