// An incident's page: what happened, who is on it, its timeline, Acknowledge and notes (responders), a report draft (editors).
import type { IncidentDetail } from '../../incidents/schema.ts'
import type { FieldError } from '../../http/validation.ts'
import { duration, statusBadge, timeTag, utc } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'
import { textareaField } from './monitor-kinds.ts'

type Entry = IncidentDetail['timeline'][number]

const EVENT_WORDS: Record<string, string> = {
  'incident.opened': 'the opening',
  'incident.resolved': 'the resolution',
  'incident.acknowledged': 'the acknowledgement',
  'incident.reminder': 'a reminder',
  'monitor.degraded': 'the slowness',
  'heartbeat.missed': 'the missed heartbeat',
}

function entryText (e: Entry): SafeHtml {
  switch (e.kind) {
    case 'opened': return html`Opened: ${e.cause}`
    case 'notified': return html`<a href="/settings/notifications/${e.channel_id}">${e.channel_name}</a> was told of ${EVENT_WORDS[e.event_type] ?? e.event_type} <span class="muted">(${e.status})</span>`
    case 'acknowledged': return html`Acknowledged by ${e.actor.label}`
    case 'note': return html`${e.actor.label} wrote: <span class="note">${e.body}</span>`
    case 'maintenance_started': return html`A maintenance window began`
    case 'maintenance_ended': return html`A maintenance window ended`
    case 'resolved': return html`Resolved`
  }
}

export function incidentPage (context: PageContext, options: {
  incident: IncidentDetail
  monitor: { id: string, name: string }
  note: string
  error: FieldError | null
  notice?: string
}): SafeHtml {
  const { incident: i, monitor } = options
  const open = i.status === 'open'
  const seconds = i.duration_seconds ?? (context.now.getTime() - new Date(i.started_at).getTime()) / 1000
  const respond = may(context, 'responder')
  const body = html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${monitor.id}">${monitor.name}</a> /</p>
<div id="incident-live" data-live="monitor:${monitor.id}">
<div class="title-row"><h1>${monitor.name}: ${i.kind === 'down' ? 'down' : 'degraded'}</h1> ${open ? statusBadge(i.kind) : html`<span class="st st-up">Resolved</span>`}</div>
<dl class="facts">
<div><dt>Cause</dt><dd>${i.cause}${i.status_code !== null && html` <span class="muted">(HTTP ${i.status_code})</span>`}</dd></div>
<div><dt>Started</dt><dd>${timeTag(i.started_at)}</dd></div>
<div><dt>${open ? 'Lasting' : 'Lasted'}</dt><dd>${duration(seconds)}${open ? ' so far' : ''}</dd></div>
<div><dt>Acknowledged</dt><dd>${i.acknowledged_at && i.acknowledged_by
  ? html`${timeTag(i.acknowledged_at)} by ${i.acknowledged_by.label}`
  : html`<span class="muted">Not yet</span>`}</dd></div>
</dl>
${respond && open && !i.acknowledged_at && html`<form method="post" action="/incidents/${i.id}/acknowledge" class="actions">${csrfField(context.csrfToken)}
<button type="submit">Acknowledge</button> <span class="hint">Says you are on it: channels that want acknowledgements are told, reminders stop.</span></form>`}
${may(context, 'editor') && html`<p class="actions"><a href="/status-reports?incident=${i.id}#new-report">Draft a status report</a>
<span class="hint">A report for your status pages, filled in from this incident: nothing is published until you send it.</span></p>`}
<section aria-labelledby="timeline-title"><h2 id="timeline-title">Timeline</h2>
<ol class="timeline">${i.timeline.map((e) => html`<li>${timeTag(e.at)} ${entryText(e)}</li>`)}</ol>
</section>
</div>
${respond && html`<section aria-labelledby="note-title"><h2 id="note-title">Add a note</h2>
<form method="post" action="/incidents/${i.id}/notes" id="note">${csrfField(context.csrfToken)}
${textareaField({ form: 'note', name: 'body', label: 'Note', value: options.note, hint: 'What you found or did; everyone who reads the incident sees it.', error: options.error, rows: 3 })}
<p><button type="submit">Add note</button></p></form></section>`}`
  return page({ title: `${monitor.name}: ${i.kind} since ${utc(i.started_at)}`, context, section: 'monitors', notice: options.notice, body })
}
