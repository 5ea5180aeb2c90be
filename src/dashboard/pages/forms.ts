// Form fields with real labels, hints and an error message tied to the field (aria-describedby, aria-invalid).
import type { FieldError } from '../../http/validation.ts'
import { html, type SafeHtml } from '../../http/html.ts'

interface FieldBase {
  name: string
  label: string
  /** The id prefix, when one page has two forms with the same field names. */
  form?: string
  hint?: string
  error?: FieldError | null
}

const fieldId = (f: FieldBase) => `${f.form ? `${f.form}-` : ''}${f.name}`

/** The API's message with the field's label in place of its path: `body/url: …` reads "URL: …". */
export function messageFor (label: string, error: FieldError): string {
  const path = `body/${error.field}`
  if (!error.message.startsWith(path)) return `${label}: ${error.message}`
  // An item of a list (`body/config/to/1 must ...`) reads "To #2 must ...".
  const rest = error.message.slice(path.length)
  const item = /^\/(\d+)(?=[ :])/.exec(rest)
  return item ? `${label} #${Number(item[1]) + 1}${rest.slice(item[0].length)}` : label + rest
}

function describe (f: FieldBase): { attrs: SafeHtml, after: SafeHtml } {
  const id = fieldId(f)
  const error = f.error && f.error.field === f.name ? f.error : null
  const ids = [f.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
  return {
    attrs: html`${ids && html` aria-describedby="${ids}"`}${error && html` aria-invalid="true" autofocus`}`,
    after: html`${f.hint && html`<p class="hint" id="${id}-hint">${f.hint}</p>`}${error &&
      html`<p class="error" id="${id}-error">${messageFor(f.label, error)}</p>`}`,
  }
}

export function inputField (f: FieldBase & {
  value?: string
  type?: 'text' | 'url' | 'number' | 'email' | 'password' | 'datetime-local'
  /** Text shown in an empty field (an example), never a value. */
  placeholder?: string
  autocomplete?: string
  required?: boolean
  inputmode?: string
}): SafeHtml {
  const { attrs, after } = describe(f)
  const id = fieldId(f)
  return html`<div class="field${f.error?.field === f.name ? ' invalid' : ''}"><label for="${id}">${f.label}</label>
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}"${f.value !== undefined && f.type !== 'password' ? html` value="${f.value}"` : ''}${
  f.autocomplete && html` autocomplete="${f.autocomplete}"`}${f.placeholder && html` placeholder="${f.placeholder}"`}${f.required && html` required`}${f.inputmode && html` inputmode="${f.inputmode}"`}${attrs}>${after}</div>`
}

export function selectField (f: FieldBase & { value?: string, options: Array<{ value: string, label: string }> }): SafeHtml {
  const { attrs, after } = describe(f)
  const id = fieldId(f)
  return html`<div class="field${f.error?.field === f.name ? ' invalid' : ''}"><label for="${id}">${f.label}</label>
<select id="${id}" name="${f.name}"${attrs}>${f.options.map((o) =>
  html`<option value="${o.value}"${o.value === f.value ? html` selected` : ''}>${o.label}</option>`)}</select>${after}</div>`
}

export function checkboxField (f: FieldBase & { checked: boolean }): SafeHtml {
  const { attrs, after } = describe(f)
  const id = fieldId(f)
  return html`<div class="field check"><input id="${id}" name="${f.name}" type="checkbox"${f.checked && html` checked`}${attrs}>
<label for="${id}">${f.label}</label>${after}</div>`
}

export interface CheckOption {
  /** The checkbox's own form field: the form parser keeps one value per name, so each choice has a name. */
  name: string
  label: string
  checked: boolean
  /** Shown checked or not, but not a choice here (and so not sent). */
  disabled?: boolean
  /** A few words after the label, e.g. why it is disabled. */
  note?: string
}

/** Checkboxes under one legend: one field of the API's input (a list), its hint and error on the group. */
export function checkboxGroup (f: FieldBase & { options: CheckOption[] }): SafeHtml {
  const id = fieldId(f)
  const error = f.error && f.error.field === f.name ? f.error : null
  const ids = [f.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
  return html`<fieldset id="${id}" class="checks${error ? ' invalid' : ''}" tabindex="-1"${ids && html` aria-describedby="${ids}"`}><legend>${f.label}</legend>
${f.hint && html`<p class="hint" id="${id}-hint">${f.hint}</p>`}${f.options.map((o, i) => html`<div class="field check"><input id="${id}-${i}" name="${o.name}" type="checkbox"${
  o.checked && html` checked`}${o.disabled && html` disabled`}><label for="${id}-${i}">${o.label}${o.note && html` <span class="muted">(${o.note})</span>`}</label></div>
`)}${error && html`<p class="error" id="${id}-error">${messageFor(f.label, error)}</p>`}</fieldset>`
}

/** Announced at once by screen readers; links to the field in error. */
export function errorSummary (title: string, error: FieldError | null, fieldLabels: Record<string, string>, form?: string): SafeHtml {
  if (!error) return html``
  const label = fieldLabels[error.field]
  const text = label ? messageFor(label, error) : error.message
  return html`<div class="error-summary" role="alert"><h2>${title}</h2><p>${label
    ? html`<a href="#${form ? `${form}-` : ''}${error.field}">${text}</a>`
    : text}</p></div>`
}
