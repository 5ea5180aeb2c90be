// Form fields with real labels, hints and an error message tied to the field (aria-describedby, aria-invalid).
import { html, type SafeHtml } from './html.ts'

export interface FieldError {
  /** The form field the message is about ('' when it names none). */
  field: string
  message: string
}

interface FieldBase {
  name: string
  label: string
  /** The id prefix, when one page has two forms with the same field names. */
  form?: string
  hint?: string
  error?: FieldError | null
}

const fieldId = (f: FieldBase) => `${f.form ? `${f.form}-` : ''}${f.name}`

/** The API's message without its `body/field` prefix, led by the field's label: "Interval must be <= 1440". */
export function messageFor (label: string, message: string): string {
  const rest = message.replace(/^body\/\w+:?\s*/, '')
  return /^(must|is)\b/.test(rest) ? `${label} ${rest}` : `${label}: ${rest}`
}

function describe (f: FieldBase): { attrs: SafeHtml, after: SafeHtml } {
  const id = fieldId(f)
  const error = f.error && f.error.field === f.name ? f.error : null
  const ids = [f.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ')
  return {
    attrs: html`${ids && html` aria-describedby="${ids}"`}${error && html` aria-invalid="true" autofocus`}`,
    after: html`${f.hint && html`<p class="hint" id="${id}-hint">${f.hint}</p>`}${error &&
      html`<p class="error" id="${id}-error">${messageFor(f.label, error.message)}</p>`}`,
  }
}

export function inputField (f: FieldBase & {
  value?: string
  type?: 'text' | 'url' | 'number' | 'email' | 'password'
  autocomplete?: string
  required?: boolean
  inputmode?: string
}): SafeHtml {
  const { attrs, after } = describe(f)
  const id = fieldId(f)
  return html`<div class="field${f.error?.field === f.name ? ' invalid' : ''}"><label for="${id}">${f.label}</label>
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}"${f.value !== undefined && f.type !== 'password' ? html` value="${f.value}"` : ''}${
  f.autocomplete && html` autocomplete="${f.autocomplete}"`}${f.required && html` required`}${f.inputmode && html` inputmode="${f.inputmode}"`}${attrs}>${after}</div>`
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

/** Announced at once by screen readers; links to the field in error. */
export function errorSummary (title: string, error: FieldError | null, fieldLabels: Record<string, string>, form?: string): SafeHtml {
  if (!error) return html``
  const label = fieldLabels[error.field]
  const text = label ? messageFor(label, error.message) : error.message
  return html`<div class="error-summary" role="alert"><h2>${title}</h2><p>${label
    ? html`<a href="#${form ? `${form}-` : ''}${error.field}">${text}</a>`
    : text}</p></div>`
}
