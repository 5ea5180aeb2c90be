// Settings, then Audit log: who changed what in the organization, newest first, with each field before and after.
import type { AuditEventRow } from '../../audit/repository.ts'
import { timeTag } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { page, settingsNav, type PageContext } from './layout.ts'

const shown = (value: unknown): string => value === null ? '—' : typeof value === 'string' ? value : JSON.stringify(value)

function changeList (changes: Record<string, [unknown, unknown]>): SafeHtml {
  const fields = Object.entries(changes)
  if (fields.length === 0) return html`<span class="muted">—</span>`
  return html`<ul class="changes">${fields.map(([field, [before, after]]) =>
    html`<li><code>${field}</code>: ${shown(before)} → ${shown(after)}</li>`)}</ul>`
}

function eventRow (event: AuditEventRow): SafeHtml {
  return html`<tr><td>${timeTag(event.occurredAt)}</td><td>${event.actorLabel} <span class="muted">(${event.actorType.replace('_', ' ')})</span></td>
<td><code>${event.action}</code></td><td><code class="id">${event.entityId}</code></td><td>${changeList(event.changes)}</td></tr>`
}

export function auditLogPage (context: PageContext, options: { events: AuditEventRow[], olderUrl?: string }): SafeHtml {
  const body = html`${settingsNav('audit-log', context)}
<h1>Audit log</h1>
<p>Every change to this organization's monitors, channels, keys, members and settings, newest first. Secrets show only their last characters.</p>
${options.events.length === 0
    ? html`<p class="empty">Nothing has changed yet.</p>`
    : html`<div class="table-wrap"><table class="audit"><caption class="vh">Audit log</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Entity</th><th scope="col">Changes</th></tr></thead>
<tbody>${options.events.map(eventRow)}</tbody></table></div>`}
${options.olderUrl && html`<p><a href="${options.olderUrl}">Older events</a></p>`}`
  return page({ title: 'Audit log', context, section: 'settings', body })
}
