// The page of a one-click acknowledge link: what is down, and one button; no sign-in.
import type { Incident } from '../../schemas/incident.ts'
import { duration, timeTag } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, page, type PageContext } from './layout.ts'

export function acknowledgePage (context: PageContext, options: { token: string, incident: Incident, monitorName: string, notice?: string }): SafeHtml {
  const { incident: i } = options
  const seconds = i.duration_seconds ?? (context.now.getTime() - new Date(i.started_at).getTime()) / 1000
  const state = i.acknowledged_at && i.acknowledged_by
    ? html`<p>Acknowledged ${timeTag(i.acknowledged_at)} by ${i.acknowledged_by.label}. This link has done its work.</p>`
    : i.status === 'resolved'
      ? html`<p>The incident is resolved: there is nothing left to acknowledge.</p>`
      : html`<form method="post" action="/acknowledge/${options.token}">${csrfField(context.csrfToken)}
<p class="actions"><button type="submit" class="primary">Acknowledge: I am on it</button></p>
<p class="hint">Everyone who reads the incident sees that it is taken; its channels that want acknowledgements are told, and reminders stop.</p></form>`
  const body = html`<div class="narrow">
<h1>${options.monitorName} is ${i.status === 'open' ? i.kind : 'up again'}</h1>
<dl class="facts">
<div><dt>Cause</dt><dd>${i.cause}</dd></div>
<div><dt>Since</dt><dd>${timeTag(i.started_at)}</dd></div>
<div><dt>${i.status === 'open' ? 'For' : 'Lasted'}</dt><dd>${duration(seconds)}${i.status === 'open' ? ' so far' : ''}</dd></div>
</dl>
${state}
<p class="muted">Members can <a href="/incidents/${i.id}">open the incident</a> in the dashboard.</p></div>`
  return page({ title: `Acknowledge: ${options.monitorName}`, context, notice: options.notice, body })
}
