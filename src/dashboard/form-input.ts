// Form strings to API input, checked by the API's own schemas and target rule: the dashboard has no rules of its own.
import { InvalidInputError, LimitReachedError } from '../domain/errors.ts'
import { isFieldOfType } from '../domain/monitor-types.ts'
import { MONITOR_TYPES, type MonitorType } from '../domain/vocabulary.ts'
import { CreateApiKeySchema, type CreateApiKey } from '../schemas/api-key.ts'
import { CreateMonitorSchema, UpdateMonitorSchema, type NewMonitor, type UpdateMonitor } from '../monitors/schema.ts'
import { CreateMaintenanceWindowSchema, type NewMaintenanceWindow } from '../maintenance/schema.ts'
import { isTimeZone } from '../maintenance/occurrences.ts'
import {
  CreateComponentSchema, CreateReportSchema, CreateStatusPageSchema, PostReportUpdateSchema, UpdateComponentSchema, UpdateReportSchema,
  UpdateStatusPageSchema, type ComponentChanges, type NewComponent, type NewReport, type NewStatusPage, type ReportChanges, type StatusPageChanges,
} from '../status-pages/schema.ts'
import type { ReportStatus } from '../domain/vocabulary.ts'
import { Temporal } from 'temporal-polyfill'
import { inputErrorMessage } from '../http/error-catalog.ts'
import { bodyValidator, type FieldError, type Validated } from '../http/validation.ts'

export type FormFields = Record<string, string | undefined>

const validateCreateMonitor = bodyValidator<NewMonitor>(CreateMonitorSchema)
const validateUpdateMonitor = bodyValidator<UpdateMonitor>(UpdateMonitorSchema)
const validateCreateKey = bodyValidator<CreateApiKey>(CreateApiKeySchema)
const validateCreateWindow = bodyValidator<NewMaintenanceWindow>(CreateMaintenanceWindowSchema)
const validateCreatePage = bodyValidator<NewStatusPage>(CreateStatusPageSchema)
const validateUpdatePage = bodyValidator<StatusPageChanges>(UpdateStatusPageSchema)
const validateCreateComponent = bodyValidator<NewComponent>(CreateComponentSchema)
const validateUpdateComponent = bodyValidator<ComponentChanges>(UpdateComponentSchema)
const validateCreateReport = bodyValidator<NewReport>(CreateReportSchema)
const validateUpdateReport = bodyValidator<ReportChanges>(UpdateReportSchema)
const validatePostUpdate = bodyValidator<{ status: ReportStatus, message: string }>(PostReportUpdateSchema)

// The monitor's integer fields, as the update schema types them: whether each may be null (left empty).
const MONITOR_INTEGER_FIELDS = Object.entries(UpdateMonitorSchema.properties)
  .map(([name, field]) => ({ name, types: [(field as { type?: string | string[] }).type].flat() }))
  .filter(({ types }) => types.includes('integer'))
  .map(({ name, types }) => ({ name, nullable: types.includes('null') }))

/** The ids of the ticked checkboxes named `prefix` and an id (one form field per choice). */
const checkedIds = (form: FormFields, prefix: string): string[] =>
  Object.keys(form).filter((name) => name.startsWith(prefix) && form[name] === 'on').map((name) => name.slice(prefix.length))

/** A label selector as typed: items separated by commas or spaces, as `key:value` or `key`. */
const selectorItems = (text: string | undefined): string[] => (text ?? '').split(/[\s,]+/).filter((item) => item !== '')

/** A typed number becomes a number; anything else stays text, so the schema says "must be integer" as the API would. */
function putNumber (input: Record<string, unknown>, name: string, value: string | undefined) {
  const text = value?.trim()
  if (text === undefined || text === '') return
  input[name] = /^[+-]?\d+(\.\d+)?$/.test(text) && text.length <= 20 ? Number(text) : text
}

/** An optional field left empty is null, so that an edit can clear it; text is kept as typed, spaces included. */
export function putNullable (input: Record<string, unknown>, name: string, value: string | undefined, kind: 'text' | 'number') {
  if (value === undefined) return
  if (kind === 'number' ? value.trim() === '' : value === '') input[name] = null
  else if (kind === 'number') putNumber(input, name, value)
  else input[name] = value
}

const quoteLine = (line: string) => JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line)

/**
 * A `Name: value` per line textarea (request headers, labels) as the API's object; only what an object cannot hold
 * (bad line, repeated name, `__proto__`) is refused here.
 */
function pairsFromText (field: string, noun: string, text: string): { ok: true, value: Record<string, string> } | { ok: false, error: FieldError } {
  const headers: Record<string, string> = {}
  const refuse = (message: string) => ({ ok: false as const, error: { field, message: `body/${field}: ${message}` } })
  const lines = text.split(/\r\n|\r|\n/)
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    const colon = line.indexOf(':')
    if (colon === -1) return refuse(`line ${i + 1} (${quoteLine(line)}) is not "Name: value"`)
    const name = line.slice(0, colon).trim()
    if (name === '__proto__') return refuse(`the ${noun} "${name}" cannot be set`)
    if (Object.hasOwn(headers, name)) return refuse(`the ${noun} "${name}" is given twice`)
    headers[name] = line.slice(colon + 1).trim()
  }
  return { ok: true, value: headers }
}

/** Request headers or labels as their textarea shows them: one `Name: value` per line (secret values as the API masks them). */
export const pairsText = (headers: Record<string, string>): string =>
  Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')

/** The form's name of the checkbox of a monitor this one may depend on. */
export const dependencyFieldName = (id: string) => `depends:${id}`

/** The form's name of the checkbox of a location the monitor may be checked from. */
export const locationFieldName = (code: string) => `location:${code}`

/** The form's name of a notification channel's checkbox (one per channel: the form parser keeps one value per name). */
export const channelFieldName = (id: string) => `channel:${id}`

/** Only the monitor's writable fields; an unsent checkbox is false, an empty optional field null. */
function monitorInputFromForm (form: FormFields): Validated<Record<string, unknown>> {
  const input: Record<string, unknown> = {}
  if (form.name !== undefined) input.name = form.name
  if (form.url !== undefined) input.url = form.url.trim()
  if (form.method !== undefined) input.method = form.method
  for (const { name, nullable } of MONITOR_INTEGER_FIELDS) {
    if (nullable) putNullable(input, name, form[name], 'number')
    else putNumber(input, name, form[name])
  }
  putNullable(input, 'keyword', form.keyword, 'text')
  if (form.keyword_mode !== undefined) input.keyword_mode = form.keyword_mode
  if (form.request_headers !== undefined) {
    const headers = pairsFromText('request_headers', 'header', form.request_headers)
    if (!headers.ok) return headers
    input.request_headers = headers.value
  }
  if (form.labels !== undefined) {
    const labels = pairsFromText('labels', 'label', form.labels)
    if (!labels.ok) return labels
    input.labels = labels.value
  }
  // Names separated by commas or spaces; none: no header marked.
  if (form.secret_headers !== undefined) input.secret_headers = form.secret_headers.split(/[\s,]+/).filter((name) => name !== '')
  putNullable(input, 'request_body', form.request_body, 'text')
  input.is_active = form.is_active === 'on'
  if (form.monitor_type !== undefined) input.monitor_type = form.monitor_type
  if (form.dns_record_type !== undefined) input.dns_record_type = form.dns_record_type
  // One value per line; no lines: any answer.
  if (form.dns_expected !== undefined) {
    const values = form.dns_expected.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '')
    input.dns_expected = values.length === 0 ? null : values
  }
  // The ticked locations, when the form offers them; the service checks each is one of GET /locations.
  if (form.locations_shown === 'on') input.locations = checkedIds(form, locationFieldName(''))
  // The form shows every kind's fields (a script hides the others): only the chosen kind's are sent.
  const type = (MONITOR_TYPES as readonly string[]).includes(form.monitor_type ?? '') ? form.monitor_type as MonitorType : 'site'
  for (const field of Object.keys(input)) if (!isFieldOfType(type, field)) delete input[field]
  // The ticked channels; whether each is the user's is the repository's check, as for the API.
  input.notification_channel_ids = checkedIds(form, channelFieldName(''))
  // The ticked monitors it depends on, when the form offers them; the service checks each is the organization's.
  if (form.depends_on_shown === 'on') input.depends_on = checkedIds(form, dependencyFieldName(''))
  return { ok: true, value: input }
}

/** The form as API input, checked by `validate`: the form's own error first (a request header line), then the schema's. */
function validatedMonitor<T> (form: FormFields, validate: (input: Record<string, unknown>) => Validated<T>): Validated<T> {
  const input = monitorInputFromForm(form)
  return input.ok ? validate(input.value) : input
}

/** A rule the service refused, as its form shows it, worded as the API words it; anything else is thrown again. */
export function refusal (err: unknown): FieldError {
  if (err instanceof InvalidInputError) return { field: err.field, message: inputErrorMessage(err) }
  // The limit is no field's: the form's summary says it.
  if (err instanceof LimitReachedError) return { field: '', message: err.message }
  throw err
}

export function parseCreateMonitor (form: FormFields): Validated<NewMonitor> {
  return validatedMonitor(form, validateCreateMonitor)
}

export function parseUpdateMonitor (form: FormFields): Validated<UpdateMonitor> {
  return validatedMonitor(form, validateUpdateMonitor)
}

export function parseCreateKey (form: FormFields): Validated<CreateApiKey> {
  const input: Record<string, unknown> = { name: (form.name ?? '').trim(), scope: form.scope ?? '' }
  putNumber(input, 'expires_in_days', form.expires_in_days)
  return validateCreateKey(input)
}

/** The form's name of a monitor's checkbox on the maintenance window form. */
export const windowMonitorFieldName = (id: string) => `monitor:${id}`

/** A `datetime-local` value, the wall-clock time in `zone`, as the instant the API takes; anything else is left for the schema to refuse. */
function instantIn (value: string, zone: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) || !isTimeZone(zone)) return value
  return Temporal.PlainDateTime.from(value).toZonedDateTime(zone).toInstant().toString({ smallestUnit: 'millisecond' })
}

/** The new window form as API input: times are wall-clock times in its time zone, an empty start is now. */
export function parseCreateWindow (form: FormFields): Validated<NewMaintenanceWindow> {
  const timezone = (form.timezone ?? '').trim() || 'UTC'
  const input: Record<string, unknown> = { title: form.title ?? '', timezone, mode: form.mode ?? 'mute', all_monitors: form.all_monitors === 'on' }
  if (form.description?.trim()) input.description = form.description
  if (form.starts_at?.trim()) input.starts_at = instantIn(form.starts_at.trim(), timezone)
  input.ends_at = instantIn((form.ends_at ?? '').trim(), timezone)
  input.rrule = form.rrule?.trim() ? form.rrule.trim() : null
  input.label_selector = selectorItems(form.label_selector)
  input.monitor_ids = checkedIds(form, windowMonitorFieldName(''))
  return validateCreateWindow(input)
}

/** The new status page form: its address, heading, custom domain and whether it answers; the rest is the page's settings form. */
export function parseCreatePage (form: FormFields): Validated<NewStatusPage> {
  const input: Record<string, unknown> = { slug: (form.slug ?? '').trim(), title: form.title ?? '', published: form.published === 'on' }
  putNullable(input, 'custom_domain', form.custom_domain?.trim(), 'text')
  return validateCreatePage(input)
}

/** A status page's settings form; an empty password keeps the page's, an empty custom domain removes it. */
export function parsePageSettings (form: FormFields): Validated<StatusPageChanges> {
  const input: Record<string, unknown> = { title: form.title ?? '', published: form.published === 'on', access: form.access ?? 'public' }
  if (form.slug !== undefined) input.slug = form.slug.trim()
  putNullable(input, 'custom_domain', form.custom_domain?.trim(), 'text')
  putNullable(input, 'description', form.description, 'text')
  putNullable(input, 'homepage_url', form.homepage_url?.trim(), 'text')
  putNumber(input, 'history_days', form.history_days)
  if (form.password) input.password = form.password
  return validateUpdatePage(input)
}

/** Where a component's status comes from: the form's `source` select. */
export const COMPONENT_SOURCES = ['monitor', 'labels', 'manual'] as const

/** The new component form: the form shows every source's field, only the chosen source's is sent. */
export function parseNewComponent (form: FormFields): Validated<NewComponent> {
  const input: Record<string, unknown> = { name: form.name ?? '' }
  putNullable(input, 'group', form.group, 'text')
  if (form.source === 'labels') input.label_selector = selectorItems(form.label_selector)
  else if (form.source === 'manual') input.manual_status = form.manual_status ?? ''
  else input.monitor_id = form.monitor_id ?? ''
  return validateCreateComponent(input)
}

/** A manual component's status, set by hand. */
export function parseComponentStatus (form: FormFields): Validated<ComponentChanges> {
  return validateUpdateComponent({ manual_status: form.manual_status ?? '' })
}

/** The form's names of a page's and a component's checkbox on the report form. */
export const reportPageFieldName = (id: string) => `page:${id}`
export const reportComponentFieldName = (id: string) => `component:${id}`

export function parseCreateReport (form: FormFields): Validated<NewReport> {
  return validateCreateReport({
    status_page_ids: checkedIds(form, reportPageFieldName('')),
    title: form.title ?? '',
    status: form.status ?? 'investigating',
    impact: form.impact ?? 'minor',
    component_ids: checkedIds(form, reportComponentFieldName('')),
    message: form.message ?? '',
  })
}

/** A report's title and impact; its status moves by updates. */
export function parseChangeReport (form: FormFields): Validated<ReportChanges> {
  return validateUpdateReport({ title: form.title ?? '', impact: form.impact ?? '' })
}

export function parseReportUpdate (form: FormFields): Validated<{ status: ReportStatus, message: string }> {
  return validatePostUpdate({ status: form.status ?? '', message: form.message ?? '' })
}
