// Status pages: the organization's public pages, each with its address, and a new page (editors).
import type { StatusPage } from '../../status-pages/schema.ts'
import type { FieldError } from '../../http/validation.ts'
import type { FormFields } from '../form-input.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { checkboxField, errorSummary, inputField } from './forms.ts'
import { csrfField, may, navLink, page, type PageContext } from './layout.ts'

/** A form shown again as it was sent: its id on the page, its values and what was refused. */
export interface SentForm { form: string, values: FormFields, error: FieldError | null }

/** The form `form` as it was sent, if it was; else empty. */
export const sentBack = (sent: SentForm | undefined, form: string, values: FormFields = {}): SentForm =>
  sent?.form === form ? sent : { form, values, error: null }

export function statusNav (current: 'pages' | 'reports'): SafeHtml {
  return html`<nav class="subnav" aria-label="Status pages"><ul>
${navLink('/status-pages', 'Pages', current === 'pages')}
${navLink('/status-reports', 'Reports', current === 'reports')}
</ul></nav>`
}

export const publishedBadge = (p: StatusPage): SafeHtml => p.published
  ? html`<span class="st st-up">Published</span>`
  : html`<span class="st st-paused">Not published</span>`

/** The public page's address, which answers only once the page is published. */
export const publicLink = (p: StatusPage): SafeHtml => html`<a href="/status/${p.slug}">/status/${p.slug}</a>`

const LABELS: Record<string, string> = { slug: 'Slug', title: 'Title', published: 'Published', custom_domain: 'Custom domain' }

/** The hint of a page's custom domain field, on the new page form and the settings form. */
export const CUSTOM_DOMAIN_HINT = 'A host name of yours that serves the page at its root once its TXT record is published and verified. Empty: none.'

function pageRows (pages: StatusPage[]): SafeHtml {
  if (pages.length === 0) return html`<p class="empty">No status pages yet: your users learn of an outage from you or not at all.</p>`
  return html`<div class="table-wrap"><table class="status-pages"><caption class="vh">Status pages</caption>
<thead><tr><th scope="col">Page</th><th scope="col">Address</th><th scope="col">Access</th><th scope="col">State</th></tr></thead>
<tbody>${pages.map((p) => html`<tr><td class="name"><a href="/status-pages/${p.id}">${p.title}</a></td><td>${publicLink(p)}</td>
<td>${p.access === 'password' ? 'Password' : 'Anyone'}</td><td>${publishedBadge(p)}</td></tr>
`)}</tbody></table></div>`
}

function newPageForm (context: PageContext, sent: SentForm): SafeHtml {
  const { values, error } = sent
  const common = { form: sent.form, error }
  return html`<section class="panel" aria-labelledby="new-page-heading"><h2 id="new-page-heading">New status page</h2>
${errorSummary('The page was not made', error, LABELS, sent.form)}
<form method="post" action="/status-pages" id="${sent.form}" novalidate>${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'title', label: LABELS.title, value: values.title ?? '', required: true, placeholder: 'Acme status' })}
${inputField({ ...common, name: 'slug', label: LABELS.slug, value: values.slug ?? '', required: true, placeholder: 'acme', hint: 'Its address, /status/<slug>: lowercase letters, digits and hyphens, unique on this server.' })}
${inputField({ ...common, name: 'custom_domain', label: LABELS.custom_domain, value: values.custom_domain ?? '', placeholder: 'status.acme.example', hint: CUSTOM_DOMAIN_HINT })}
${checkboxField({ ...common, name: 'published', label: LABELS.published, checked: values.published === 'on', hint: 'Until then the page is a 404 to everyone.' })}
<p><button type="submit">Make page</button></p></form></section>`
}

export function statusPagesPage (context: PageContext, options: { pages: StatusPage[], sent?: SentForm, notice?: string }): SafeHtml {
  const body = html`${statusNav('pages')}
<h1>Status pages</h1>
<p>A status page tells your users how your services are: each component follows a monitor, the monitors with some
labels, or a status you set, and the reports you post say what is being done.</p>
<section aria-labelledby="pages-title"><h2 id="pages-title">Pages</h2>
${pageRows(options.pages)}</section>
${may(context, 'editor') && newPageForm(context, sentBack(options.sent, 'new-page'))}`
  return page({ title: 'Status pages', context, section: 'status-pages', notice: options.notice, body })
}
