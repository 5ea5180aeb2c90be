// One status page: its facts, subscribers, custom domain and components; for editors, components added, set and deleted,
// its settings, Verify domain and Delete.
import type { Component, StatusPage } from '../../status-pages/schema.ts'
import type { MonitorListItem } from '../../monitors/schema.ts'
import { STATUS_LABELS } from '../../status-pages/status.ts'
import { COMPONENT_STATUSES } from '../../domain/vocabulary.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { COMPONENT_SOURCES, type FormFields } from '../form-input.ts'
import { checkboxField, errorSummary, inputField, selectField } from './forms.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'
import { textareaField } from './monitor-kinds.ts'
import { CUSTOM_DOMAIN_HINT, publicLink, publishedBadge, sentBack, statusNav, type SentForm } from './status-pages.ts'

const SETTINGS_LABELS: Record<string, string> = {
  title: 'Title',
  slug: 'Slug',
  custom_domain: 'Custom domain',
  description: 'Description',
  homepage_url: 'Homepage URL',
  published: 'Published',
  history_days: 'History (days)',
  access: 'Access',
  password: 'Password',
}

const COMPONENT_LABELS: Record<string, string> = {
  name: 'Name',
  group: 'Group',
  source: 'Follows',
  monitor_id: 'Monitor',
  label_selector: 'Monitors with labels',
  manual_status: 'Status set by hand',
}

const SOURCE_LABELS: Record<typeof COMPONENT_SOURCES[number], string> = {
  monitor: 'A monitor',
  labels: 'The monitors with some labels',
  manual: 'A status set by hand',
}

const statusOptions = COMPONENT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))

function source (c: Component, names: Map<string, string>): SafeHtml {
  if (c.monitor_id !== null) return html`<a href="/monitors/${c.monitor_id}">${names.get(c.monitor_id) ?? 'a deleted monitor'}</a>`
  if (c.label_selector !== null) return html`Labels <code>${c.label_selector.join(' ')}</code>`
  return html`Set by hand`
}

/** A manual component's status as a small form of its own (editors), else as words. */
function manualStatus (context: PageContext, p: StatusPage, c: Component, sent: SentForm | undefined): SafeHtml {
  if (c.manual_status === null) return html``
  if (!may(context, 'editor')) return html`${STATUS_LABELS[c.manual_status]}`
  const { form, values, error } = sentBack(sent, `component-${c.id}`, { manual_status: c.manual_status })
  return html`<form method="post" action="/status-pages/${p.id}/components/${c.id}" id="${form}">${csrfField(context.csrfToken)}
${selectField({ form, error, name: 'manual_status', label: `Status of ${c.name}`, value: values.manual_status, options: statusOptions })}
<button type="submit">Set</button></form>`
}

function componentRows (context: PageContext, p: StatusPage, components: Component[], names: Map<string, string>, sent: SentForm | undefined): SafeHtml {
  if (components.length === 0) return html`<p class="empty">No components yet: the page has nothing to show.</p>`
  const editor = may(context, 'editor')
  return html`<div class="table-wrap"><table class="components"><caption class="vh">Components</caption>
<thead><tr><th scope="col">Component</th><th scope="col">Group</th><th scope="col">Follows</th><th scope="col">Status set by hand</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${components.map((c) => html`<tr><td class="name">${c.name}</td><td>${c.group ?? html`<span class="muted">None</span>`}</td>
<td>${source(c, names)}</td><td>${manualStatus(context, p, c, sent)}</td>
<td class="act">${editor && html`<button form="component-action" formaction="/status-pages/${p.id}/components/${c.id}/delete" class="danger" data-confirm="Delete the component ${c.name}?" aria-label="Delete ${c.name}">Delete</button>`}</td></tr>
`)}</tbody></table></div>`
}

function componentForm (context: PageContext, p: StatusPage, monitors: MonitorListItem[], sent: SentForm): SafeHtml {
  const { form, values, error } = sent
  const common = { form, error }
  return html`<section class="panel" aria-labelledby="component-heading"><h2 id="component-heading">Add a component</h2>
${errorSummary('The component was not added', error, COMPONENT_LABELS, form)}
<form method="post" action="/status-pages/${p.id}/components" id="${form}" novalidate>${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'name', label: COMPONENT_LABELS.name, value: values.name ?? '', required: true, placeholder: 'API' })}
${inputField({ ...common, name: 'group', label: COMPONENT_LABELS.group, value: values.group ?? '', placeholder: 'Europe', hint: 'Components of one group are shown together. Empty: no group.' })}
${selectField({
    ...common,
    name: 'source',
    label: COMPONENT_LABELS.source,
    value: values.source ?? 'monitor',
    options: COMPONENT_SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] })),
    hint: 'Only the field of the source chosen here is saved.',
  })}
${monitors.length > 0
  ? selectField({ ...common, name: 'monitor_id', label: COMPONENT_LABELS.monitor_id, value: values.monitor_id, options: monitors.map((m) => ({ value: m.id, label: m.name })) })
  : html`<p class="hint">This organization has no monitors yet: a component can follow labels or a status set by hand.</p>`}
${inputField({ ...common, name: 'label_selector', label: COMPONENT_LABELS.label_selector, value: values.label_selector ?? '', placeholder: 'service:api env:prod', hint: 'key:value or key, separated by spaces: the worst of the monitors that match them all.' })}
${selectField({ ...common, name: 'manual_status', label: COMPONENT_LABELS.manual_status, value: values.manual_status ?? 'operational', options: statusOptions })}
<p><button type="submit">Add component</button></p></form></section>`
}

/** The page's settings as its form's fields. */
function settingsValues (p: StatusPage): FormFields {
  return {
    title: p.title,
    slug: p.slug,
    custom_domain: p.custom_domain ?? '',
    description: p.description ?? '',
    homepage_url: p.homepage_url ?? '',
    published: p.published ? 'on' : undefined,
    history_days: String(p.history_days),
    access: p.access,
  }
}

function settingsForm (context: PageContext, p: StatusPage, sent: SentForm): SafeHtml {
  const { form, values, error } = sent
  const common = { form, error }
  return html`<section class="panel" aria-labelledby="settings-heading"><h2 id="settings-heading">Settings</h2>
${errorSummary('The settings were not saved', error, SETTINGS_LABELS, form)}
<form method="post" action="/status-pages/${p.id}" id="${form}" novalidate>${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'title', label: SETTINGS_LABELS.title, value: values.title ?? '', required: true })}
${inputField({ ...common, name: 'slug', label: SETTINGS_LABELS.slug, value: values.slug ?? '', required: true, hint: 'Its address, /status/<slug>: lowercase letters, digits and hyphens, unique on this server. The old address answers 404 once changed.' })}
${inputField({ ...common, name: 'custom_domain', label: SETTINGS_LABELS.custom_domain, value: values.custom_domain ?? '', placeholder: 'status.acme.example', hint: `${CUSTOM_DOMAIN_HINT} A new one must be verified again.` })}
${textareaField({ form, name: 'description', label: SETTINGS_LABELS.description, value: values.description ?? '', hint: 'A line under the heading. Empty: none.', error, rows: 2 })}
${inputField({ ...common, name: 'homepage_url', label: SETTINGS_LABELS.homepage_url, type: 'url', value: values.homepage_url ?? '', placeholder: 'https://acme.example', hint: 'Where the page\'s heading links to. Empty: nowhere.' })}
${checkboxField({ ...common, name: 'published', label: SETTINGS_LABELS.published, checked: values.published === 'on', hint: 'Until then the page is a 404 to everyone.' })}
${inputField({ ...common, name: 'history_days', label: SETTINGS_LABELS.history_days, type: 'number', value: values.history_days ?? '', inputmode: 'numeric', hint: 'How many days of bars each component shows: 7 to 365.' })}
${selectField({ ...common, name: 'access', label: SETTINGS_LABELS.access, value: values.access ?? 'public', options: [{ value: 'public', label: 'Anyone may read it' }, { value: 'password', label: 'Readers give a password first' }] })}
${inputField({ ...common, name: 'password', label: SETTINGS_LABELS.password, type: 'password', autocomplete: 'new-password', hint: `What readers of a password page give. ${p.access === 'password' ? 'Empty: it stays as it is.' : 'Required for password access.'}` })}
<p><button type="submit">Save settings</button></p></form></section>`
}

/** The page's subscribers; `enabled` is false when the server sends no mail, so that the page takes none. */
interface SubscriberCounts { confirmed: number, pending: number, enabled: boolean }

function subscriberFact (subscribers: SubscriberCounts): SafeHtml {
  return html`<div><dt>Subscribers</dt><dd>${subscribers.confirmed} confirmed, ${subscribers.pending} not yet confirmed${
    !subscribers.enabled && html` <span class="muted">(the server sends no mail: the page takes no subscribers)</span>`}</dd></div>`
}

/** The TXT record to publish and, for editors, Verify domain; a refused check says what the records say. */
function domainPanel (context: PageContext, p: StatusPage, sent: SentForm): SafeHtml {
  const { form, error } = sent
  const refused = errorSummary('The domain was not verified', error, {}, form)
  if (p.custom_domain === null) return refused
  return html`<section class="panel" aria-labelledby="domain-heading"><h2 id="domain-heading">Custom domain</h2>
${refused}<p>${p.domain_verified
    ? html`<strong>${p.custom_domain}</strong> is verified: it serves this page (once published) while this TXT record stays published.`
    : html`<strong>${p.custom_domain}</strong> is not verified: it serves nothing until this TXT record is published and seen.`}</p>
<dl class="facts"><div><dt>TXT record</dt><dd><code>_pingward.${p.custom_domain}</code></dd></div>
<div><dt>Its value</dt><dd><code>${p.domain_txt_record}</code></dd></div></dl>
<p class="hint">Point the domain at this server too (a CNAME, or its addresses). The record is looked at every minute until it is seen, then once a day.</p>
${may(context, 'editor') && html`<form method="post" action="/status-pages/${p.id}/verify-domain" id="${form}">${csrfField(context.csrfToken)}
<button type="submit">Verify domain</button> <span class="hint">Looks the record up now.</span></form>`}</section>`
}

export function statusPagePage (context: PageContext, options: {
  page: StatusPage
  components: Component[]
  monitors: MonitorListItem[]
  subscribers: SubscriberCounts
  sent?: SentForm
  notice?: string
}): SafeHtml {
  const { page: p, sent } = options
  const names = new Map(options.monitors.map((m) => [m.id, m.name]))
  const editor = may(context, 'editor')
  const body = html`${statusNav('pages')}
<p class="crumbs"><a href="/status-pages">Status pages</a> /</p>
<div class="title-row"><h1>${p.title}</h1> ${publishedBadge(p)}</div>
<dl class="facts">
<div><dt>Address</dt><dd>${publicLink(p)}${!p.published && html` <span class="muted">(a 404 until published)</span>`}</dd></div>
<div><dt>Access</dt><dd>${p.access === 'password' ? 'Readers give a password' : 'Anyone'}</dd></div>
<div><dt>History</dt><dd>${p.history_days} days</dd></div>
${p.custom_domain && html`<div><dt>Custom domain</dt><dd>${p.custom_domain} ${p.domain_verified ? html`<span class="st st-up">Verified</span>` : html`<span class="st st-paused">Not verified</span>`}</dd></div>`}
${subscriberFact(options.subscribers)}
</dl>
${domainPanel(context, p, sentBack(sent, 'verify-domain'))}
<section aria-labelledby="components-title"><h2 id="components-title">Components</h2>
<form id="component-action" method="post" hidden>${csrfField(context.csrfToken)}</form>
${componentRows(context, p, options.components, names, sent)}</section>
${editor && componentForm(context, p, options.monitors, sentBack(sent, 'component'))}
${editor && settingsForm(context, p, sentBack(sent, 'settings', settingsValues(p)))}
${editor && html`<form method="post" action="/status-pages/${p.id}/delete" class="actions">${csrfField(context.csrfToken)}
<button type="submit" class="danger" data-confirm="Delete the status page ${p.title}, with its components?">Delete page</button>
<span class="hint">Its address answers 404 from then on; a report on no other page goes with it.</span></form>`}`
  return page({ title: p.title, context, section: 'status-pages', notice: options.notice, body })
}
