// Status reports: open and recent ones with their timelines, updates (responders), changes and new ones, drafts too (editors).
import type { Component, StatusPage, StatusReport } from '../../status-pages/schema.ts'
import { STAGE_LABELS } from '../../status-pages/feeds.ts'
import { REPORT_IMPACTS, REPORT_STATUSES } from '../../domain/vocabulary.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { timeTag } from '../format.ts'
import { reportComponentFieldName, reportPageFieldName } from '../form-input.ts'
import { checkboxGroup, errorSummary, inputField, selectField } from './forms.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'
import { textareaField } from './monitor-kinds.ts'
import { sentBack, statusNav, type SentForm } from './status-pages.ts'

type PageComponent = Component & { page_id: string }

const LABELS: Record<string, string> = {
  status_page_ids: 'Pages',
  title: 'Title',
  status: 'Status',
  impact: 'Impact',
  component_ids: 'Components',
  message: 'Message',
}

const IMPACT_LABELS: Record<StatusReport['impact'], string> = {
  none: 'None: components show what their monitors say',
  minor: 'Minor: degraded performance',
  major: 'Major: partial outage',
  critical: 'Critical: major outage',
}

const STAGE_BADGES: Record<StatusReport['status'], string> = { investigating: 'st-down', identified: 'st-degraded', monitoring: 'st-pending', resolved: 'st-up' }

const stageOptions = REPORT_STATUSES.map((s) => ({ value: s, label: STAGE_LABELS[s] }))
const impactOptions = REPORT_IMPACTS.map((i) => ({ value: i, label: IMPACT_LABELS[i] }))

interface Names { pages: Map<string, StatusPage>, components: Map<string, PageComponent> }

function updateForm (context: PageContext, r: StatusReport, sent: SentForm | undefined): SafeHtml {
  const { form, values, error } = sentBack(sent, `update-${r.id}`, { status: r.status })
  return html`<form method="post" action="/status-reports/${r.id}/updates" id="${form}" novalidate>${csrfField(context.csrfToken)}
${errorSummary('The update was not posted', error, LABELS, form)}
${selectField({ form, error, name: 'status', label: LABELS.status, value: values.status, options: stageOptions, hint: 'Resolved resolves the report.' })}
${textareaField({ form, name: 'message', label: LABELS.message, value: values.message ?? '', hint: 'What readers of its pages are told now.', error, rows: 2 })}
<p><button type="submit">Post update</button></p></form>`
}

function editForm (context: PageContext, r: StatusReport, sent: SentForm | undefined): SafeHtml {
  const { form, values, error } = sentBack(sent, `edit-${r.id}`, { title: r.title, impact: r.impact })
  return html`<details${error ? html` open` : ''}><summary>Title and impact</summary>
<form method="post" action="/status-reports/${r.id}" id="${form}" novalidate>${csrfField(context.csrfToken)}
${errorSummary('The report was not saved', error, LABELS, form)}
${inputField({ form, error, name: 'title', label: LABELS.title, value: values.title ?? '', required: true })}
${selectField({ form, error, name: 'impact', label: LABELS.impact, value: values.impact, options: impactOptions })}
<p><button type="submit">Save report</button></p></form></details>`
}

function report (context: PageContext, r: StatusReport, names: Names, sent: SentForm | undefined): SafeHtml {
  const pages = r.status_page_ids.map((id) => names.pages.get(id)).filter((p) => p !== undefined)
  const components = r.component_ids.map((id) => names.components.get(id)?.name).filter((name) => name !== undefined)
  const open = r.resolved_at === null
  return html`<article class="panel report" aria-labelledby="report-${r.id}-title">
<div class="title-row"><h3 id="report-${r.id}-title">${r.title}</h3> <span class="st ${STAGE_BADGES[r.status]}">${STAGE_LABELS[r.status]}</span></div>
<dl class="facts">
<div><dt>On</dt><dd>${pages.map((p, i) => html`${i > 0 && ', '}<a href="/status-pages/${p.id}">${p.title}</a>`)}</dd></div>
<div><dt>Impact</dt><dd>${IMPACT_LABELS[r.impact]}</dd></div>
<div><dt>Affects</dt><dd>${components.length > 0 ? components.join(', ') : html`<span class="muted">No component named</span>`}</dd></div>
<div><dt>${open ? 'Since' : 'Resolved'}</dt><dd>${timeTag(r.resolved_at ?? r.created_at)}</dd></div>
</dl>
<ol class="timeline">${r.updates.toReversed().map((u) => html`<li>${timeTag(u.created_at)} <strong>${STAGE_LABELS[u.status]}</strong>: <span class="note">${u.message}</span></li>`)}</ol>
${open && may(context, 'responder') && updateForm(context, r, sent)}
${may(context, 'editor') && html`${editForm(context, r, sent)}
<p><button form="report-action" formaction="/status-reports/${r.id}/delete" class="danger" data-confirm="Delete the report ${r.title} from every page?" aria-label="Delete ${r.title}">Delete report</button></p>`}
</article>`
}

function reportForm (context: PageContext, pages: StatusPage[], components: PageComponent[], sent: SentForm): SafeHtml {
  const { form, values, error } = sent
  const common = { form, error }
  const pageTitles = new Map(pages.map((p) => [p.id, p.title]))
  return html`<section class="panel" aria-labelledby="new-report-heading" id="new-report"><h2 id="new-report-heading">New report</h2>
${errorSummary('The report was not published', error, LABELS, form)}
${pages.length === 0
  ? html`<p class="empty">There is no status page to report on yet: <a href="/status-pages">make one first</a>.</p>`
  : html`<form method="post" action="/status-reports" id="${form}" novalidate>${csrfField(context.csrfToken)}
${checkboxGroup({ ...common, name: 'status_page_ids', label: LABELS.status_page_ids, hint: 'Published ones show it at once.', options: pages.map((p) => ({ name: reportPageFieldName(p.id), label: p.title, checked: values[reportPageFieldName(p.id)] === 'on' })) })}
${inputField({ ...common, name: 'title', label: LABELS.title, value: values.title ?? '', required: true, placeholder: 'Elevated API errors' })}
${selectField({ ...common, name: 'status', label: LABELS.status, value: values.status ?? 'investigating', options: stageOptions })}
${selectField({ ...common, name: 'impact', label: LABELS.impact, value: values.impact ?? 'minor', options: impactOptions, hint: 'What the components it names show while it is open.' })}
${components.length > 0 && checkboxGroup({
    ...common,
    name: 'component_ids',
    label: LABELS.component_ids,
    hint: 'Only components of the pages chosen above.',
    options: components.map((c) => ({ name: reportComponentFieldName(c.id), label: c.name, note: pageTitles.get(c.page_id), checked: values[reportComponentFieldName(c.id)] === 'on' })),
  })}
${textareaField({ form, name: 'message', label: LABELS.message, value: values.message ?? '', hint: 'The first update: what readers are told.', error, rows: 3 })}
<p><button type="submit">Publish report</button></p></form>`}</section>`
}

export function statusReportsPage (context: PageContext, options: {
  open: StatusReport[]
  resolved: StatusReport[]
  pages: StatusPage[]
  components: PageComponent[]
  sent?: SentForm
  notice?: string
}): SafeHtml {
  const { sent } = options
  const names: Names = { pages: new Map(options.pages.map((p) => [p.id, p])), components: new Map(options.components.map((c) => [c.id, c])) }
  const body = html`${statusNav('reports')}
<h1>Status reports</h1>
<p>A report tells the readers of its pages about a problem while it lasts: each update moves it on, and Resolved ends it.
Responders post updates; editors open, change and delete reports.</p>
<form id="report-action" method="post" hidden>${csrfField(context.csrfToken)}</form>
<section aria-labelledby="open-title"><h2 id="open-title">Open</h2>
${options.open.length === 0 ? html`<p class="empty">No open reports: the pages show what the monitors say.</p>` : options.open.map((r) => report(context, r, names, sent))}</section>
${may(context, 'editor') && reportForm(context, options.pages, options.components, sentBack(sent, 'report'))}
<section aria-labelledby="resolved-title"><h2 id="resolved-title">Recently resolved</h2>
${options.resolved.length === 0 ? html`<p class="empty">No resolved reports.</p>` : options.resolved.map((r) => report(context, r, names, sent))}</section>`
  return page({ title: 'Status reports', context, section: 'status-pages', notice: options.notice, body })
}
