// The one HTML-escaping helper of the dashboard and the public status pages: a tagged template that escapes every value that is not already SafeHtml.

/** Markup that is already safe: made only by html`` and raw(). */
export class SafeHtml {
  readonly value: string
  constructor (value: string) { this.value = value }
  toString (): string { return this.value }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c])
}

function render (value: unknown): string {
  if (value === null || value === undefined || value === false) return ''
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

/** Escapes strings and numbers, keeps SafeHtml, joins arrays; null, undefined and false render nothing (`${cond && html`...`}`). */
export function html (strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]
  return new SafeHtml(out)
}

/** Trusted markup made by code (never from input), e.g. an SVG path computed from numbers. */
export const raw = (markup: string) => new SafeHtml(markup)
