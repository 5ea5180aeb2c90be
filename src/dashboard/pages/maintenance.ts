// Maintenance: the occurrences to come, day by day, the organization's windows with Start now and End now
// (responders), and a new window (editors).
import type { MaintenanceWindow } from '../../maintenance/schema.ts'
import type { MonitorListItem } from '../../monitors/schema.ts'
import type { FieldError } from '../../http/validation.ts'
import { windowMonitorFieldName, type FormFields } from '../form-input.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { checkboxField, checkboxGroup, errorSummary, inputField, selectField } from './forms.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'
import { textareaField } from './monitor-kinds.ts'

export interface Occurrence { window: MaintenanceWindow, startsAt: Date, endsAt: Date }

const LABELS: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  starts_at: 'Starts',
  ends_at: 'Ends',
  timezone: 'Time zone',
  rrule: 'Repeats (RRULE)',
  mode: 'Mode',
  all_monitors: 'Every monitor',
  label_selector: 'Monitors with labels',
  monitor_ids: 'Monitors',
}

const STATES: Record<MaintenanceWindow['state'], SafeHtml> = {
  scheduled: html`<span class="st st-pending">Scheduled</span>`,
  active: html`<span class="st st-degraded">Under way</span>`,
  completed: html`<span class="st st-paused">Completed</span>`,
  cancelled: html`<span class="st st-paused">Cancelled</span>`,
}

/** `Sun 6 Dec 2026` and `02:00` in a zone. */
function inZone (at: Date, zone: string): { day: string, time: string } {
  const day = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }).format(at)
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at)
  return { day, time }
}

function covers (w: MaintenanceWindow, names: Map<string, string>): string {
  if (w.all_monitors) return 'Every monitor'
  const parts = w.monitor_ids.map((id) => names.get(id) ?? 'a deleted monitor')
  if (w.label_selector.length > 0) parts.push(`labels ${w.label_selector.join(', ')}`)
  return parts.join(', ')
}

/** The occurrences to come, grouped by their day in the window's zone. */
function calendar (occurrences: Occurrence[], now: Date): SafeHtml {
  if (occurrences.length === 0) return html`<p class="empty">Nothing is scheduled in the next 30 days.</p>`
  const days = new Map<string, Occurrence[]>()
  for (const o of occurrences) {
    const { day } = inZone(o.startsAt, o.window.timezone)
    days.set(day, [...days.get(day) ?? [], o])
  }
  return html`<ol class="calendar">${[...days].map(([day, list]) => html`<li><h3>${day}</h3><ul>${list.map((o) => {
    const [from, to] = [inZone(o.startsAt, o.window.timezone), inZone(o.endsAt, o.window.timezone)]
    const current = o.startsAt <= now && now < o.endsAt
    return html`<li${current ? html` class="current"` : ''}>${from.time}–${to.day === from.day ? to.time : `${to.day} ${to.time}`} <span class="muted">${o.window.timezone}</span>
<strong>${o.window.title}</strong>${current ? html` <span class="st st-degraded">Now</span>` : ''}${o.window.mode === 'pause' ? html` <span class="muted">(checks paused)</span>` : ''}</li>`
  })}</ul></li>`)}</ol>`
}

function windowRows (windows: MaintenanceWindow[], names: Map<string, string>, context: PageContext): SafeHtml {
  if (windows.length === 0) return html`<p class="empty">No maintenance windows: every incident is told as it happens.</p>`
  const [responder, editor] = [may(context, 'responder'), may(context, 'editor')]
  return html`<div class="table-wrap"><table class="windows"><caption class="vh">Maintenance windows</caption>
<thead><tr><th scope="col">Window</th><th scope="col">Schedule</th><th scope="col">Covers</th><th scope="col">State</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${windows.map((w) => html`<tr><td class="name">${w.title}${w.description && html`<span class="url">${w.description}</span>`}</td>
<td>${w.rrule ? html`<code>${w.rrule}</code>` : 'Once'} <span class="muted">(${w.timezone}, ${w.mode === 'mute' ? 'muted' : 'paused'})</span>${
  w.next_starts_at && html`<span class="url">Next: ${inZone(new Date(w.next_starts_at), w.timezone).day} ${inZone(new Date(w.next_starts_at), w.timezone).time}</span>`}</td>
<td>${covers(w, names)}</td><td>${STATES[w.state]}</td>
<td class="act">${responder && w.state === 'active' && html`<button form="window-action" formaction="/maintenance/${w.id}/end" aria-label="End ${w.title} now">End now</button>`}
${responder && w.state !== 'active' && w.state !== 'cancelled' && html`<button form="window-action" formaction="/maintenance/${w.id}/start" aria-label="Start ${w.title} now">Start now</button>`}
${editor && w.state !== 'cancelled' && w.state !== 'completed' && html`<button form="window-action" formaction="/maintenance/${w.id}/cancel" aria-label="Cancel ${w.title}">Cancel</button>`}
${editor && html`<button form="window-action" formaction="/maintenance/${w.id}/delete" class="danger" data-confirm="Delete the maintenance window ${w.title}?" aria-label="Delete ${w.title}">Delete</button>`}</td></tr>
`)}</tbody></table></div>`
}

function windowForm (context: PageContext, monitors: MonitorListItem[], values: FormFields, error: FieldError | null): SafeHtml {
  const common = { form: 'window', error }
  return html`<section class="panel" aria-labelledby="new-window-title"><h2 id="new-window-title">New maintenance window</h2>
${errorSummary('The window was not saved', error, LABELS, 'window')}
<form method="post" action="/maintenance" id="window" novalidate>${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'title', label: LABELS.title, value: values.title ?? '', required: true, placeholder: 'Database upgrade' })}
${inputField({ ...common, name: 'starts_at', label: LABELS.starts_at, type: 'datetime-local', value: values.starts_at ?? '', hint: 'In the time zone below. Empty: now.' })}
${inputField({ ...common, name: 'ends_at', label: LABELS.ends_at, type: 'datetime-local', value: values.ends_at ?? '', required: true })}
${inputField({ ...common, name: 'timezone', label: LABELS.timezone, value: values.timezone ?? 'UTC', hint: 'An IANA name such as Europe/Berlin: a repeating window keeps its times in it across summer time.' })}
${inputField({ ...common, name: 'rrule', label: LABELS.rrule, value: values.rrule ?? '', placeholder: 'FREQ=MONTHLY;BYDAY=1SU', hint: 'Empty: once. FREQ=DAILY, WEEKLY or MONTHLY, with INTERVAL, BYDAY (1SU: the first Sunday), BYMONTHDAY, UNTIL or COUNT.' })}
${selectField({ ...common, name: 'mode', label: LABELS.mode, value: values.mode ?? 'mute', options: [{ value: 'mute', label: 'Mute: checks run, nobody is told' }, { value: 'pause', label: 'Pause: no checks run' }] })}
${checkboxField({ ...common, name: 'all_monitors', label: LABELS.all_monitors, checked: values.all_monitors === 'on' })}
${inputField({ ...common, name: 'label_selector', label: LABELS.label_selector, value: values.label_selector ?? '', placeholder: 'env:prod team', hint: 'key:value or key, separated by spaces: a monitor must match them all.' })}
${monitors.length > 0 && checkboxGroup({
    ...common,
    name: 'monitor_ids',
    label: LABELS.monitor_ids,
    options: monitors.map((m) => ({ name: windowMonitorFieldName(m.id), label: m.name, checked: values[windowMonitorFieldName(m.id)] === 'on' })),
  })}
${textareaField({ form: 'window', name: 'description', label: LABELS.description, value: values.description ?? '', hint: 'What happens, for whoever reads this page.', error, rows: 2 })}
<p><button type="submit">Save window</button></p></form></section>`
}

export function maintenancePage (context: PageContext, options: {
  windows: MaintenanceWindow[]
  upcoming: Occurrence[]
  monitors: MonitorListItem[]
  values: FormFields
  error: FieldError | null
  notice?: string
}): SafeHtml {
  const names = new Map(options.monitors.map((m) => [m.id, m.name]))
  const body = html`<h1>Maintenance</h1>
<p>While a window is under way, the monitors it covers tell nobody: an incident that opens is kept, and told when the
window ends if it is still open. Deploy scripts start and end windows with the API.</p>
<div id="maintenance-live" data-live="monitors">
<section aria-labelledby="upcoming-title"><h2 id="upcoming-title">Next 30 days</h2>
${calendar(options.upcoming, context.now)}</section>
<section aria-labelledby="windows-title"><h2 id="windows-title">Windows</h2>
<form id="window-action" method="post" hidden>${csrfField(context.csrfToken)}</form>
${windowRows(options.windows, names, context)}</section>
</div>
${may(context, 'editor') && windowForm(context, options.monitors, options.values, options.error)}`
  return page({ title: 'Maintenance', context, section: 'maintenance', notice: options.notice, body })
}
