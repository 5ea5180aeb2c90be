// A monitor's page (facts, uptime, chart, incidents, checks) and its edit page.
import type { Check } from '../../schemas/check.ts'
import type { Incident } from '../../schemas/incident.ts'
import type { Monitor } from '../../monitors/schema.ts'
import type { NotificationChannel } from '../../notifications/schema.ts'
import type { FailingRun } from '../../repositories/check-stats.ts'
import type { MonitorUptimeView } from '../uptime-windows.ts'
import { responseTimeChart } from '../charts.ts'
import type { FormFields } from '../form-input.ts'
import { count, duration, statusBadge, timeTag } from '../format.ts'
import type { MonitorType } from '../../domain/vocabulary.ts'
import type { FieldError } from '../../http/validation.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { effectiveQuorum } from '../../locations/quorum.ts'
import { may, page, type PageContext } from './layout.ts'
import { kindFacts, latestProblem, pingSection, target } from './monitor-details.ts'
import { KEYWORD_MODE_LABELS, monitorForm, type LocationChoice } from './monitor-form.ts'
import { monitorActions, rowActionForm } from './monitors.ts'
import { uptimeSection } from './monitor-uptime.ts'

function incidentRows (incidents: Incident[], now: Date): SafeHtml {
  if (incidents.length === 0) return html`<p class="muted">No incidents: this monitor has not been down.</p>`
  return html`<div class="table-wrap"><table><caption class="vh">Incidents, newest first</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Started</th><th scope="col">Resolved</th><th scope="col">Duration</th><th scope="col">Cause</th><th scope="col">Acknowledged</th></tr></thead>
<tbody>${incidents.map((i) => {
  const seconds = i.duration_seconds ?? (now.getTime() - new Date(i.started_at).getTime()) / 1000
  // The kind as the monitor's status it was in (Down, Degraded), in that status's colours.
  return html`<tr><td>${statusBadge(i.kind)}</td><td><a href="/incidents/${i.id}">${timeTag(i.started_at)}</a></td>
<td>${i.resolved_at ? timeTag(i.resolved_at) : html`<span class="st st-${i.kind}">Ongoing</span>`}</td>
<td>${duration(seconds)}${i.resolved_at ? '' : ' so far'}</td><td>${i.cause}${i.status_code !== null && html` <span class="muted">(HTTP ${i.status_code})</span>`}</td>
<td>${i.acknowledged_by ? i.acknowledged_by.label : html`<span class="muted">${i.resolved_at ? 'No' : 'Not yet'}</span>`}</td></tr>`
})}</tbody></table></div>`
}

/** The checks; an HTTP status only for a site and a response time but for a heartbeat (a ping has none). */
function checkRows (checks: Check[], kind: MonitorType): SafeHtml {
  const http = kind === 'site'
  const timed = kind !== 'heartbeat'
  return html`<div class="table-wrap"><table><caption class="vh">Checks, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Result</th>${http && html`<th scope="col">HTTP status</th>`}${timed && html`<th scope="col">Response time</th>`}<th scope="col">Error</th></tr></thead>
<tbody>${checks.map((c) => html`<tr><td>${timeTag(c.checked_at)}</td><td>${statusBadge(c.is_up ? 'up' : 'down')}</td>
${http && html`<td>${c.status_code ?? html`<span class="muted">none</span>`}</td>`}${timed && html`<td>${c.response_time_ms} ms</td>`}<td>${c.error_message ?? ''}</td></tr>`)}</tbody></table></div>`
}

/** Each of the monitor's locations with its latest check; nothing when it has none. */
function locationRows (m: Monitor): SafeHtml {
  if (m.location_states.length === 0) return html``
  const quorum = effectiveQuorum(m.location_quorum, m.locations.length)
  return html`<section aria-labelledby="locations-title"><h2 id="locations-title">Locations</h2>
<p class="hint">Down when ${quorum} of ${m.locations.length} ${m.locations.length === 1 ? 'location sees' : 'locations see'} it failing${m.location_quorum === null ? ' (a majority)' : ''}.</p>
<div class="table-wrap"><table><caption class="vh">Each location's latest check</caption>
<thead><tr><th scope="col">Location</th><th scope="col">Result</th><th scope="col">Checked</th><th scope="col">Error</th></tr></thead>
<tbody>${m.location_states.map((l) => html`<tr><td>${l.location}</td><td>${statusBadge(l.status)}</td>
<td>${l.last_checked_at ? timeTag(l.last_checked_at) : html`<span class="muted">Not yet</span>`}</td><td>${l.error_message ?? ''}</td></tr>`)}</tbody></table></div></section>`
}

/** The channels told of this monitor's incidents: those for every monitor and those it chose. */
function notified (m: Monitor, channels: NotificationChannel[]): SafeHtml {
  const told = channels.filter((c) => c.all_monitors || m.notification_channel_ids.includes(c.id))
  if (told.length === 0) return html`<span class="muted">Nobody</span>`
  return html`${told.map((c, i) => html`${i > 0 && ', '}<a href="/settings/notifications/${c.id}">${c.name}</a>${!c.is_active && ' (off)'}`)}`
}

/** What else than its status makes a check pass, and what it sends besides its method: only what is set. */
function assertions (m: Monitor): SafeHtml {
  if (m.monitor_type !== 'site') return html``
  const headers = Object.entries(m.request_headers)
  const facts = [
    m.keyword !== null && html`<div><dt>Keyword</dt><dd class="value">${KEYWORD_MODE_LABELS[m.keyword_mode]} ${JSON.stringify(m.keyword)}</dd></div>`,
    m.degraded_after_ms !== null && html`<div><dt>Degraded after</dt><dd>${count(m.degraded_after_ms)} ms</dd></div>`,
    // Secret values as the API shows them: masked.
    headers.length > 0 && html`<div><dt>Request headers</dt><dd class="value"><ul class="headers">${
      headers.map(([name, value]) => html`<li>${name}: ${value}</li>`)}</ul></dd></div>`,
    m.request_body !== null && html`<div><dt>Request body</dt><dd>Sent, ${count(m.request_body.length)} ${m.request_body.length === 1 ? 'character' : 'characters'}</dd></div>`,
  ]
  if (!facts.some(Boolean)) return html``
  return html`<section aria-labelledby="assertions-title"><h2 id="assertions-title">Assertions</h2><dl class="facts">${facts}</dl></section>`
}

export function monitorPage (context: PageContext, options: {
  monitor: Monitor
  checks: Check[]
  incidents: Incident[]
  uptime: MonitorUptimeView
  pageSize: number
  before?: string
  notice?: string
  channels: NotificationChannel[]
  /** Its latest checks failed, fewer than mark it down. */
  failing?: FailingRun
  /** The monitors it depends on. */
  parents: Array<{ id: string, name: string }>
}): SafeHtml {
  const { monitor: m, checks } = options
  const oldest = checks[checks.length - 1]
  // The newest check's error (a failed or degraded one's reason), on the first page of checks only.
  const latest = options.before ? undefined : checks[0]
  const chartPoints = [...checks].reverse().map((c) => ({ responseTimeMs: c.response_time_ms, isUp: c.is_up, checkedAt: c.checked_at }))
  const body = html`<p class="crumbs"><a href="/">Monitors</a> /</p>
<div id="monitor-live" data-live="monitor:${m.id}">
<div class="title-row"><h1>${m.name}</h1> ${statusBadge(m.status, options.failing)}</div>
${target(m)}
${latestProblem(latest)}
${rowActionForm(context.csrfToken, `/monitors/${m.id}`)}
${may(context, 'editor') && html`<p class="actions"><a class="button" href="/monitors/${m.id}/edit">Edit</a> ${monitorActions(m)}</p>`}
<dl class="facts">
${kindFacts(m, context.now)}
<div><dt>Down after</dt><dd>${m.failure_threshold} failed ${m.failure_threshold === 1 ? 'check' : 'checks'}</dd></div>
<div><dt>Up again after</dt><dd>${m.recovery_threshold} ${m.recovery_threshold === 1 ? 'success' : 'successes'}</dd></div>
<div><dt>Notifies</dt><dd>${notified(m, options.channels)}</dd></div>
${Object.keys(m.labels).length > 0 && html`<div><dt>Labels</dt><dd class="value"><ul class="headers">${
  Object.entries(m.labels).map(([key, value]) => html`<li>${key}: ${value}</li>`)}</ul></dd></div>`}
${options.parents.length > 0 && html`<div><dt>Depends on</dt><dd>${options.parents.map((p, i) => html`${i > 0 && ', '}<a href="/monitors/${p.id}">${p.name}</a>`)}</dd></div>`}
</dl>
${pingSection(m)}
${assertions(m)}
${locationRows(m)}
${uptimeSection(options.uptime)}
${m.monitor_type !== 'heartbeat' && html`<section aria-labelledby="chart-title"><h2 id="chart-title">Response time</h2>${responseTimeChart(chartPoints)}</section>`}
<section aria-labelledby="incidents-title"><h2 id="incidents-title">Incidents</h2>${incidentRows(options.incidents, context.now)}</section>
<section aria-labelledby="checks-title"><h2 id="checks-title">Checks</h2>
${checks.length === 0
  ? html`<p class="muted">${options.before
    ? 'No older checks.'
    : m.monitor_type === 'heartbeat'
      ? 'No pings yet: request the ping URL above from your job.'
      : 'No checks yet: the first one comes within seconds of creating or resuming the monitor.'}</p>`
  : checkRows(checks, m.monitor_type)}
<p class="pager">${options.before && html`<a href="/monitors/${m.id}">Newest checks</a> `}${checks.length === options.pageSize && oldest &&
  html`<a href="/monitors/${m.id}?before=${encodeURIComponent(oldest.checked_at)}">Older checks</a>`}</p>
</section>
</div>`
  return page({ title: m.name, context, section: 'monitors', notice: options.notice, body })
}

export function editMonitorPage (context: PageContext, options: {
  monitor: Monitor
  values: FormFields
  error: FieldError | null
  channels: NotificationChannel[]
  others: Array<{ id: string, name: string }>
  locations: LocationChoice[]
}): SafeHtml {
  const { monitor: m } = options
  const body = html`<p class="crumbs"><a href="/">Monitors</a> / <a href="/monitors/${m.id}">${m.name}</a> /</p>
<h1>Edit ${m.name}</h1>
${monitorForm({ id: 'edit-monitor', action: `/monitors/${m.id}/edit`, submit: 'Save', csrfToken: context.csrfToken, values: options.values, error: options.error, collapseAdvanced: false, channels: options.channels, others: options.others, locations: options.locations })}
<p><a href="/monitors/${m.id}">Cancel</a></p>`
  return page({ title: `Edit ${m.name}`, context, section: 'monitors', body })
}
