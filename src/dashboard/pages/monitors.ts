// The monitors page, with a search box and a status filter; the rows' actions share one hidden form (one CSRF field).
import { MONITOR_STATUSES } from '../../domain/vocabulary.ts'
import type { MonitorListItem } from '../../monitors/schema.ts'
import type { NotificationChannel } from '../../notifications/schema.ts'
import type { FailingRun, SparkPoint } from '../../repositories/check-stats.ts'
import { pingTimeline, sparkline } from '../charts.ts'
import type { FormFields } from '../form-input.ts'
import { ago, count, STATUS_LABELS, statusBadge } from '../format.ts'
import type { FieldError } from '../../http/validation.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'
import { monitorForm, type LocationChoice } from './monitor-form.ts'
import { KIND_LABELS } from './monitor-kinds.ts'

type Status = typeof MONITOR_STATUSES[number]

// Problems first: what needs attention is at the top of a long list.
const ORDER: Record<Status, number> = { down: 0, degraded: 1, pending: 2, up: 3, paused: 4 }
const BY_ORDER = [...MONITOR_STATUSES].sort((a, b) => ORDER[a] - ORDER[b])

function sortMonitors (monitors: MonitorListItem[]): MonitorListItem[] {
  const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true })
  return [...monitors].sort((a, b) => ORDER[a.status] - ORDER[b.status] || collator.compare(a.name, b.name))
}

export function rowActionForm (csrfToken: string, back: string): SafeHtml {
  return html`<form id="row-action" method="post" hidden>${csrfField(csrfToken)}<input type="hidden" name="back" value="${back}"></form>`
}

/** Pause or resume, and delete: buttons of the shared row form (a button's default type is submit). */
export function monitorActions (m: { id: string, name: string, is_active: boolean }): SafeHtml {
  const [action, label] = m.is_active ? ['pause', 'Pause'] : ['resume', 'Resume']
  return html`<button form="row-action" formaction="/monitors/${m.id}/${action}" aria-label="${label} ${m.name}">${label}</button>
<button form="row-action" formaction="/monitors/${m.id}/delete" class="danger" data-confirm="Delete the monitor ${m.name}?" aria-label="Delete ${m.name}">Delete</button>`
}

/** What a row says the monitor checks, as text (a tcp:// or dns:// URL opens nothing); a heartbeat has no URL. */
function target (m: MonitorListItem): SafeHtml {
  return m.url === null
    ? html`<span class="url">${KIND_LABELS[m.monitor_type]}: pinged by your job</span>`
    : html`<span class="url">${m.url}</span>`
}

/** The response times, or a heartbeat's pings (which have none). */
function recent (m: MonitorListItem, points: SparkPoint[]): SafeHtml {
  if (m.monitor_type === 'heartbeat') return pingTimeline(points)
  const latest = points[points.length - 1]
  return html`${sparkline(points)}${latest && html` <span class="ms">${latest.responseTimeMs} ms</span>`}`
}

function row (m: MonitorListItem, points: SparkPoint[] | undefined, now: Date, failing: FailingRun | undefined, editor: boolean): SafeHtml {
  return html`<tr><td>${statusBadge(m.status, failing)}</td><td class="name"><a href="/monitors/${m.id}">${m.name}</a>${target(m)}</td><td>${ago(m.last_checked_at, now)}</td><td class="rt">${recent(m, points ?? [])}</td><td class="act">${editor && html`<a href="/monitors/${m.id}/edit" aria-label="Edit ${m.name}">Edit</a>
${monitorActions(m)}`}</td></tr>
`
}

/** What narrows the list besides the status: a text searched for, a label (`key:value` or `key`). */
interface Narrowing { search?: string, label?: string }

function listHref (status: Status | undefined, narrowing: Narrowing): string {
  const query = new URLSearchParams()
  if (status) query.set('status', status)
  if (narrowing.search) query.set('search', narrowing.search)
  if (narrowing.label) query.set('label', narrowing.label)
  const text = query.toString()
  return text ? `/?${text}` : '/'
}

/** The search box and the label filter: a GET form of the list, keeping the status filter chosen. */
function searchForm (filter: Status | undefined, narrowing: Narrowing): SafeHtml {
  return html`<form class="search" method="get" action="/" role="search">
<label for="monitor-search">Search monitors</label>
<input type="search" id="monitor-search" name="search" value="${narrowing.search ?? ''}" maxlength="2048" placeholder="Name or URL">
<label for="monitor-label">Label</label>
<input type="search" id="monitor-label" name="label" value="${narrowing.label ?? ''}" maxlength="320" placeholder="env:prod">
${filter ? html`<input type="hidden" name="status" value="${filter}">` : ''}<button type="submit">Search</button>
${narrowing.search || narrowing.label ? html`<a href="${listHref(filter, {})}">Clear</a>` : ''}
</form>`
}

export function monitorsPage (context: PageContext, options: {
  /** The monitors the search kept (all without one). */
  monitors: MonitorListItem[]
  sparks: Map<string, SparkPoint[]>
  /** Monitors not down whose latest checks failed (fewer than their threshold). */
  failing?: Map<string, FailingRun>
  filter?: Status
  /** What the list was searched for (name or URL, in any case). */
  search?: string
  /** The label the list was narrowed to. */
  label?: string
  notice?: string
  values: FormFields
  error: FieldError | null
  channels: NotificationChannel[]
  /** Every monitor of the organization, which a new one may depend on. */
  others: Array<{ id: string, name: string }>
  locations: LocationChoice[]
}): SafeHtml {
  const { monitors, sparks, filter, search, error } = options
  const narrowing = { search, label: options.label }
  const narrowed = Boolean(search || options.label)
  const matching = [search && `“${search}”`, options.label && `the label ${options.label}`].filter(Boolean).join(' and ')
  const counts = Object.fromEntries(MONITOR_STATUSES.map((s) => [s, 0])) as Record<Status, number>
  for (const m of monitors) counts[m.status]++
  const shown = sortMonitors(filter ? monitors.filter((m) => m.status === filter) : monitors)
  const filterLink = (status: Status | undefined, label: string, n: number) =>
    html`<li><a href="${listHref(status, narrowing)}"${filter === status ? html` aria-current="page"` : ''}>${label} <span class="n">${count(n)}</span></a></li>`
  const adding = (monitors.length === 0 && !narrowed) || error !== null
  const what = filter ? `${STATUS_LABELS[filter]} monitors` : 'All monitors'

  const editor = may(context, 'editor')
  const body = html`<h1>Monitors</h1>
${editor && html`<section class="panel" aria-labelledby="add-title">
<details${adding ? html` open` : ''}><summary><h2 id="add-title">Add a monitor</h2></summary>
${monitorForm({ id: 'new-monitor', action: '/monitors', submit: 'Add monitor', csrfToken: context.csrfToken, values: options.values, error, collapseAdvanced: true, channels: options.channels, others: options.others, locations: options.locations })}
</details>
</section>`}
<div id="monitor-list" data-live="monitors">
${monitors.length === 0 && !narrowed
  ? html`<p class="empty">No monitors yet${editor ? ': add the first one above' : ''}.</p>`
  : html`${searchForm(filter, narrowing)}
<nav class="filters" aria-label="Filter by status"><ul>
${filterLink(undefined, 'All', monitors.length)}
${BY_ORDER.filter((s) => counts[s] > 0 || filter === s).map((s) => filterLink(s, STATUS_LABELS[s], counts[s]))}
</ul></nav>
${rowActionForm(context.csrfToken, listHref(filter, narrowing))}
<div class="table-wrap"><table class="monitors">
<caption class="vh">${narrowed ? `${what} matching ${matching}` : what}, problems first</caption>
<thead><tr><th scope="col">Status</th><th scope="col">Monitor</th><th scope="col">Last check</th><th scope="col">Response time</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>
${shown.map((m) => row(m, sparks.get(m.id), context.now, options.failing?.get(m.id), editor))}
</tbody></table></div>
${shown.length === 0 && html`<p class="empty">${narrowed
  ? html`No monitor${filter ? html` that is ${filter}` : ''} matches ${matching}.`
  : html`No monitor is ${filter} right now.`}</p>`}`}
</div>`
  return page({ title: 'Monitors', context, section: 'monitors', notice: options.notice, body })
}
