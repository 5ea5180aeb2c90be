// The monitor form's parts that depend on the monitor's kind, and the textarea the form's lists use.
import { DNS_RECORD_TYPES, MONITOR_TYPES, type MonitorType } from '../../domain/vocabulary.ts'
import type { FieldError } from '../../http/validation.ts'
import type { FormFields } from '../form-input.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { inputField, messageFor, selectField } from './forms.ts'

/** How the dashboard names each kind of monitor (the form's select, the monitor page, the list). */
export const KIND_LABELS: Record<MonitorType, string> = { site: 'Site (HTTP/HTTPS)', tcp: 'TCP port', dns: 'DNS record', heartbeat: 'Heartbeat' }

/** What a field whose label depends on the kind says for each kind (a kind left out: the field is not its). */
export interface KindText { label: string, placeholder?: string, hint: string }

/** The `url` field per kind: what each kind checks, written as that kind's URL (src/domain/monitor-types.ts). */
export const URL_TEXTS: Partial<Record<MonitorType, KindText>> = {
  site: { label: 'URL', placeholder: 'https://example.com/health', hint: 'An http:// or https:// address.' },
  tcp: { label: 'Host and port', placeholder: 'tcp://host:port', hint: 'tcp://, a host name or address, a colon and a port: up when a connection opens in time.' },
  dns: { label: 'Host to look up', placeholder: 'dns://example.com', hint: 'dns:// and a host name: up when the resolver answers (with the expected values, if any).' },
}

/** `interval_minutes`: a heartbeat is not checked, it expects a ping. */
export const INTERVAL_TEXTS: Record<MonitorType, KindText> = {
  site: { label: 'Check every (minutes)', hint: '1-1440.' },
  tcp: { label: 'Check every (minutes)', hint: '1-1440.' },
  dns: { label: 'Check every (minutes)', hint: '1-1440.' },
  heartbeat: { label: 'Expect a ping every (minutes)', hint: 'How often your job pings, 1-1440.' },
}

/** The form's kind: what it says, or `site` (the API's default) for anything else. */
export function kindOf (values: FormFields): MonitorType {
  return (MONITOR_TYPES as readonly string[]).includes(values.monitor_type ?? '') ? values.monitor_type as MonitorType : 'site'
}

/** Fields of some kinds only: the script hides the others and disables their inputs; without it the server drops them. */
export function kindGroup (kinds: readonly MonitorType[], content: SafeHtml, legend?: string): SafeHtml {
  return legend === undefined
    ? html`<div class="kind-fields" data-kinds="${kinds.join(' ')}">${content}</div>`
    : html`<fieldset class="kind-fields" data-kinds="${kinds.join(' ')}"><legend>${legend}</legend>${content}</fieldset>`
}

/** `data-text-<kind>` attributes: what the script puts in the element when that kind is chosen. */
const kindData = (attribute: string, texts: Partial<Record<MonitorType, KindText>>, pick: (t: KindText) => string | undefined): SafeHtml =>
  html`${Object.entries(texts).map(([kind, text]) => {
    const value = pick(text!)
    return value === undefined ? '' : html` data-${attribute}-${kind}="${value}"`
  })}`

/** An input labelled for the form's kind, with the other kinds' texts in data attributes for the script. */
export interface KindInput {
  form: string
  name: string
  kind: MonitorType
  texts: Partial<Record<MonitorType, KindText>>
  value: string
  error: FieldError | null
  type?: 'url' | 'number'
  required?: boolean
}

export function kindInput (f: KindInput): SafeHtml {
  const id = `${f.form}-${f.name}`
  const text = f.texts[f.kind] ?? Object.values(f.texts)[0]!
  const error = f.error?.field === f.name ? f.error : null
  const described = [`${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${id}"${kindData('text', f.texts, (t) => t.label)}>${text.label}</label>
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}" value="${f.value}" autocomplete="off"${f.type === 'number' ? html` inputmode="numeric"` : ''}${
  f.required && html` required`}${text.placeholder && html` placeholder="${text.placeholder}"`}${kindData('placeholder', f.texts, (t) => t.placeholder)} aria-describedby="${described}"${
  error && html` aria-invalid="true" autofocus`}><p class="hint" id="${id}-hint"${kindData('text', f.texts, (t) => t.hint)}>${text.hint}</p>${
  error && html`<p class="error" id="${id}-error">${messageFor(text.label, error)}</p>`}</div>`
}

/** A textarea with its label, hint and error; the parser drops the newline after the opening tag, so a leading one survives. */
export function textareaField (f: { form: string, name: string, label: string, value: string, hint: string, error: FieldError | null, rows: number }): SafeHtml {
  const id = `${f.form}-${f.name}`
  const error = f.error?.field === f.name ? f.error : null
  const described = [`${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
  return html`<div class="field${error ? ' invalid' : ''}"><label for="${id}">${f.label}</label>
<textarea id="${id}" name="${f.name}" rows="${f.rows}" spellcheck="false" autocomplete="off" aria-describedby="${described}"${error && html` aria-invalid="true" autofocus`}>
${f.value}</textarea><p class="hint" id="${id}-hint">${f.hint}</p>${error && html`<p class="error" id="${id}-error">${messageFor(f.label, error)}</p>`}</div>`
}

/** Labels of the kinds' own fields (the monitor form's error messages and summary). */
export const KIND_FIELD_LABELS: Record<string, string> = {
  monitor_type: 'Kind',
  dns_record_type: 'Record type',
  dns_expected: 'Expected values',
  grace_minutes: 'Grace (minutes)',
}

export function kindSelect (common: { form: string, error: FieldError | null }, kind: MonitorType): SafeHtml {
  return html`${selectField({
    ...common,
    name: 'monitor_type',
    label: KIND_FIELD_LABELS.monitor_type,
    value: kind,
    options: MONITOR_TYPES.map((k) => ({ value: k, label: KIND_LABELS[k] })),
    hint: 'Site: an HTTP(S) request. TCP port: a connection opened. DNS record: a question to the resolver. Heartbeat: your job pings Pingward.',
  })}<noscript><p class="hint">Only the fields of the chosen kind are saved; the others are ignored.</p></noscript>`
}

/** A DNS monitor's question and the values its answer must hold. */
export function dnsFields (common: { form: string, error: FieldError | null }, values: FormFields): SafeHtml {
  return kindGroup(['dns'], html`
${selectField({ ...common, name: 'dns_record_type', label: KIND_FIELD_LABELS.dns_record_type, value: values.dns_record_type, options: DNS_RECORD_TYPES.map((t) => ({ value: t, label: t })) })}
${textareaField({
  ...common,
  name: 'dns_expected',
  label: KIND_FIELD_LABELS.dns_expected,
  value: values.dns_expected ?? '',
  rows: 3,
  hint: 'One per line, each of which the answer must contain: addresses, names, an MX record\'s host, a TXT record\'s text. Empty: any answer is up.',
})}`, 'DNS record')
}

/** A heartbeat's grace: it is pinged, so it has no target; its ping URL comes with the saved monitor. */
export function heartbeatFields (common: { form: string, error: FieldError | null }, values: FormFields): SafeHtml {
  return kindGroup(['heartbeat'], html`
${inputField({
  ...common,
  name: 'grace_minutes',
  label: KIND_FIELD_LABELS.grace_minutes,
  type: 'number',
  inputmode: 'numeric',
  value: values.grace_minutes ?? '',
  hint: 'Down when no ping came within the interval plus these minutes, 1-1440. The ping URL is on the monitor\'s page once it is saved.',
})}`, 'Heartbeat')
}
