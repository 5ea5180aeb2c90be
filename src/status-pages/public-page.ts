// The public page as HTML that needs no JavaScript: status by icon and text (never colour alone), each day of a
// component's bar as a list item with its text, light and dark colours of at least 4.5:1, and a layout that holds at 320 px.
import { html, raw, type SafeHtml } from '../http/html.ts'
import type { ComponentStatus } from '../domain/vocabulary.ts'
import type { PageLinks } from './feeds.ts'
import { STAGE_LABELS } from './feeds.ts'
import type { PageRow, PageWindow, ReportWithUpdates } from './repository.ts'
import { STATUS_LABELS, type Indicator } from './status.ts'
import { reportCursor, type ComponentView, type DayView, type PageView, type PastReports } from './view.ts'

const ICONS: Record<ComponentStatus | Indicator, string> = {
  operational: '✔',
  none: '✔',
  under_maintenance: '⚙',
  maintenance: '⚙',
  degraded_performance: '▲',
  minor: '▲',
  partial_outage: '◆',
  major: '◆',
  major_outage: '✖',
  critical: '✖',
}
const IMPACT_LABELS = { none: 'No impact', minor: 'Minor impact', major: 'Major impact', critical: 'Critical impact' } as const
const LEVEL_LABELS = { none: 'no data', operational: 'no downtime', degraded: 'some downtime', outage: 'downtime', maintenance: 'maintenance only' } as const

const CSS = `
:root { color-scheme: light dark; --text: #1f2937; --muted: #4b5563; --bg: #ffffff; --soft: #f3f4f6; --line: #d1d5db; --link: #1d4ed8;
  --ok: #15803d; --warn: #a16207; --partial: #c2410c; --bad: #b91c1c; --maint: #1d4ed8; --none: #868e9b; }
@media (prefers-color-scheme: dark) { :root { --text: #f3f4f6; --muted: #d1d5db; --bg: #111827; --soft: #1f2937; --line: #4b5563; --link: #93c5fd;
  --ok: #4ade80; --warn: #facc15; --partial: #fb923c; --bad: #f87171; --maint: #93c5fd; --none: #6b7280; } }
* { box-sizing: border-box; }
body { margin: 0; font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--text); background: var(--bg); }
main, header, footer { max-width: 56rem; margin: 0 auto; padding: 0 1rem; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
h1 { font-size: 1.6rem; margin: 1.5rem 0 0.25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.banner { border: 2px solid currentColor; border-radius: 6px; padding: 0.75rem 1rem; font-weight: 700; font-size: 1.1rem; margin: 1rem 0; }
.icon { display: inline-block; width: 1.3em; text-align: center; }
.s-operational, .s-none { color: var(--ok); } .s-degraded_performance, .s-minor { color: var(--warn); }
.s-partial_outage, .s-major { color: var(--partial); } .s-major_outage, .s-critical { color: var(--bad); }
.s-under_maintenance, .s-maintenance { color: var(--maint); }
.components { list-style: none; padding: 0; margin: 0; }
.component { border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; margin: 0.5rem 0; }
.component-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0.25rem 1rem; }
.days { display: flex; gap: 1px; list-style: none; padding: 0; margin: 0.5rem 0 0.25rem; height: 2rem; }
.day { flex: 1 1 0; min-width: 1px; border-radius: 1px; background: var(--none); }
.d-operational { background: var(--ok); } .d-degraded { background: var(--warn); } .d-outage { background: var(--bad); } .d-maintenance { background: var(--maint); }
.range { display: flex; justify-content: space-between; font-size: 0.85rem; color: var(--muted); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
details { margin-top: 0.25rem; } summary { cursor: pointer; color: var(--link); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; } th, td { text-align: left; padding: 0.2rem 0.4rem; border-bottom: 1px solid var(--line); }
.report { border-left: 4px solid currentColor; padding: 0.25rem 0 0.25rem 1rem; margin: 1rem 0; }
.report > * { color: var(--text); }
.updates { list-style: none; padding: 0; margin: 0.5rem 0 0; }
.updates li { margin: 0.5rem 0; overflow-wrap: anywhere; }
footer { margin: 2rem auto; color: var(--muted); font-size: 0.9rem; }
footer ul { padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
`

const when = (at: Date) => html`<time datetime="${at.toISOString()}">${at.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`

function statusText (status: ComponentStatus): SafeHtml {
  return html`<span class="s-${status}"><span class="icon" aria-hidden="true">${ICONS[status]}</span>${STATUS_LABELS[status]}</span>`
}

function dayText (day: DayView): string {
  const parts = [day.uptime === null ? LEVEL_LABELS[day.level] : `${day.uptime.toFixed(2)}% up`]
  if (day.downtimeMinutes > 0) parts.push(`${day.downtimeMinutes} min down`)
  if (day.maintenanceMinutes > 0) parts.push(`${day.maintenanceMinutes} min maintenance`)
  if (day.reports.length > 0) parts.push(`reports: ${day.reports.join('; ')}`)
  return `${day.date}: ${parts.join(', ')}`
}

// A day table wider than the screen scrolls in its own box, a focusable region (so by keyboard too), never the page.
function componentItem (component: ComponentView, historyDays: number): SafeHtml {
  const { row } = component
  const hasData = component.days.some((day) => day.level !== 'none')
  const notable = component.days.filter((day) => (day.level !== 'operational' && day.level !== 'none') || day.reports.length > 0)
  return html`<li class="component" id="component-${row.id}">
  <div class="component-head"><h3>${row.name}</h3><p style="margin:0">${statusText(component.status)}${component.outageLocations.length > 0 && html` from ${component.outageLocations.join(', ')}`}</p></div>
  ${row.description && html`<p class="muted" style="margin:0">${row.description}</p>`}
  ${hasData && html`<ol class="days" aria-label="${row.name}: the last ${historyDays} days">${component.days.map((day) =>
    html`<li class="day d-${day.level}" title="${dayText(day)}"><span class="sr">${dayText(day)}</span></li>`)}</ol>
  <div class="range" aria-hidden="true"><span>${historyDays} days ago</span><span>${component.uptime === null ? '' : `${component.uptime.toFixed(2)}% uptime`}</span><span>Today</span></div>
  <details><summary>Days with downtime, maintenance or reports (${notable.length})</summary>
    ${notable.length === 0
      ? html`<p>None in the last ${historyDays} days.</p>`
      : html`<div class="scroll" role="region" aria-label="${row.name}: days with downtime, maintenance or reports" tabindex="0"><table><thead><tr><th scope="col">Day</th><th scope="col">Uptime</th><th scope="col">Down</th><th scope="col">Maintenance</th><th scope="col">Reports</th></tr></thead><tbody>${notable.map((day) =>
        html`<tr><td>${day.date}</td><td>${day.uptime === null ? '—' : `${day.uptime.toFixed(2)}%`}</td><td>${day.downtimeMinutes} min</td><td>${day.maintenanceMinutes} min</td><td>${day.reports.join('; ')}</td></tr>`)}</tbody></table></div>`}
  </details>`}
</li>`
}

function components (view: PageView): SafeHtml {
  const groups: Array<{ name: string | null, members: ComponentView[] }> = []
  for (const component of view.components) {
    const last = groups.at(-1)
    const found = component.row.groupName === null ? undefined : groups.find((group) => group.name === component.row.groupName)
    if (found) found.members.push(component)
    else if (component.row.groupName === null && last && last.name === null) last.members.push(component)
    else groups.push({ name: component.row.groupName, members: [component] })
  }
  return html`${groups.map((group) => group.name === null
    ? html`<ul class="components">${group.members.map((member) => componentItem(member, view.page.historyDays))}</ul>`
    : html`<section aria-labelledby="group-${group.members[0].row.id}"><h2 id="group-${group.members[0].row.id}" style="margin-top:1.25rem">${group.name}</h2>
      <ul class="components">${group.members.map((member) => componentItem(member, view.page.historyDays))}</ul></section>`)}`
}

function report (item: ReportWithUpdates, view: PageView): SafeHtml {
  const named = view.components.filter((component) => item.componentIds.includes(component.row.id)).map((component) => component.row.name)
  return html`<article class="report s-${item.resolvedAt === null ? item.impact === 'none' ? 'none' : item.impact : 'none'}" id="report-${item.id}">
  <h3>${item.title}</h3>
  <p class="muted" style="margin:0">${item.resolvedAt === null ? IMPACT_LABELS[item.impact] : html`Resolved ${when(item.resolvedAt)}`}${named.length > 0 && ` · Affects ${named.join(', ')}`}</p>
  <ol class="updates" reversed>${[...item.updates].reverse().map((update) =>
    html`<li><strong>${STAGE_LABELS[update.status]}</strong> · ${when(update.createdAt)}<br>${update.message}</li>`)}</ol>
</article>`
}

function maintenance (window: PageWindow, now: Date): SafeHtml {
  const active = window.active || (window.nextStartsAt! <= now && now < window.nextEndsAt!)
  return html`<article class="report s-maintenance" id="maintenance-${window.id}">
  <h3>${window.title}</h3>
  <p class="muted" style="margin:0"><span class="icon" aria-hidden="true">⚙</span>${active ? 'Under way' : 'Scheduled'}: ${when(window.nextStartsAt!)} to ${when(window.nextEndsAt!)}</p>
  ${window.description && html`<p>${window.description}</p>`}
</article>`
}

/** A document of the page: its head, its header, `main`, and its footer with the feeds' links. */
function layout (page: PageRow, links: PageLinks, title: string, main: SafeHtml, builtAt?: Date): string {
  return '<!doctype html>\n' + html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}: ${title}</title>
${page.description && html`<meta name="description" content="${page.description}">`}
<link rel="alternate" type="application/atom+xml" title="${page.title}: status history" href="${links.base}/history.atom">
<style>${raw(CSS)}</style>
</head>
<body>
<header>
  <h1>${page.homepageUrl ? html`<a href="${page.homepageUrl}">${page.title}</a>` : page.title}</h1>
  ${page.description && html`<p class="muted">${page.description}</p>`}
</header>
${main}
<footer>
  ${builtAt && html`<p>Last updated ${when(builtAt)}</p>`}
  <ul>
    <li><a href="${links.base}/history.atom">Atom feed</a></li>
    <li><a href="${links.base}/maintenance.ics">Maintenance calendar</a></li>
    <li><a href="${links.base}/summary.json">JSON summary</a></li>
  </ul>
  <p>Powered by Pingward</p>
</footer>
</body>
</html>
`.value
}

/** The link to the page of past reports resolved before `last`, on the host that serves the page. */
const olderLink = (last: ReportWithUpdates, links: PageLinks) =>
  html`<p><a href="${links.path}/history?before=${reportCursor(last)}" rel="next">Older reports</a></p>`

/** The whole page. */
export function renderPage (view: PageView, links: PageLinks): string {
  const { page } = view
  return layout(page, links, view.description, html`<main>
  <p class="banner s-${view.indicator}" role="status"><span class="icon" aria-hidden="true">${ICONS[view.indicator]}</span>${view.description}</p>
  ${view.openReports.length > 0 && html`<section aria-labelledby="open-reports"><h2 id="open-reports">Current incidents</h2>${view.openReports.map((item) => report(item, view))}</section>`}
  ${view.windows.length > 0 && html`<section aria-labelledby="maintenance"><h2 id="maintenance">Maintenance</h2>${view.windows.map((window) => maintenance(window, view.builtAt))}</section>`}
  <section aria-labelledby="components"><h2 id="components">Components</h2>
  ${view.components.length === 0 ? html`<p class="muted">No components yet.</p>` : components(view)}
  </section>
  <section aria-labelledby="past-reports"><h2 id="past-reports">Past incidents</h2>
  ${view.pastReports.length === 0 ? html`<p class="muted">No incidents in the last ${page.historyDays} days.</p>` : view.pastReports.map((item) => report(item, view))}
  ${view.olderReports && olderLink(view.pastReports.at(-1)!, links)}
  </section>
  ${links.subscriptions && html`<section aria-labelledby="subscribe"><h2 id="subscribe">News by mail</h2>
  <form method="post" action="${links.path}/subscribe">
    <p><label for="email">Your email address: each report update and maintenance announcement, and a link to stop</label><br>
    <input id="email" name="email" type="email" autocomplete="email" maxlength="254" required style="font:inherit;padding:0.4rem;max-width:100%">
    <button type="submit" style="font:inherit;padding:0.4rem 1rem">Subscribe</button></p>
  </form></section>`}
</main>`, view.builtAt)
}

/** A page of older past reports (read when asked, not in the snapshot), with a link to the next older page. */
export function renderHistory (view: PageView, past: PastReports, links: PageLinks): string {
  const { page } = view
  return layout(page, links, 'past incidents', html`<main>
  <p><a href="${links.path || '/'}">Current status</a></p>
  <section aria-labelledby="past-reports"><h2 id="past-reports">Past incidents</h2>
  ${past.reports.length === 0 ? html`<p class="muted">No incidents to show from the last ${page.historyDays} days.</p>` : past.reports.map((item) => report(item, view))}
  ${past.more && olderLink(past.reports.at(-1)!, links)}
  </section>
</main>`)
}

/** A password page's form, and what a wrong password answers. */
export function renderPasswordForm (title: string, action: string, wrong: boolean): string {
  return '<!doctype html>\n' + html`<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}: password</title><style>${raw(CSS)}</style></head>
<body><main>
<h1>${title}</h1>
${wrong && html`<p class="banner s-critical" role="alert"><span class="icon" aria-hidden="true">✖</span>That password is not right.</p>`}
<form method="post" action="${action}">
  <p><label for="password">This status page needs its password</label><br>
  <input id="password" name="password" type="password" autocomplete="current-password" required style="font:inherit;padding:0.4rem;max-width:100%"></p>
  <p><button type="submit" style="font:inherit;padding:0.4rem 1rem">View the page</button></p>
</form>
</main></body></html>
`.value
}

/** A short page of the subscription's steps: what happened, and the form that takes the next one. */
export function renderNotice (title: string, heading: string, message: string, form?: { action: string, token: string, button: string }): string {
  return '<!doctype html>\n' + html`<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}: ${heading}</title><style>${raw(CSS)}</style></head>
<body><main>
<h1>${title}</h1>
<h2>${heading}</h2>
<p>${message}</p>
${form && html`<form method="post" action="${form.action}"><input type="hidden" name="token" value="${form.token}"><p><button type="submit" style="font:inherit;padding:0.4rem 1rem">${form.button}</button></p></form>`}
</main></body></html>
`.value
}
