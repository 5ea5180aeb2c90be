// The uptime section of a monitor's page: time-weighted uptime over five windows and a bar of the last 90 days.
import type { MonitorUptimeView, UptimeWindow } from '../uptime-windows.ts'
import { count, duration, percent } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'

const DAY_MS = 86_400_000

function uptimeBox ({ label, figures: f }: UptimeWindow): SafeHtml {
  const note = f.uptime_percent === null
    ? 'Not monitored in this period'
    : `${f.downtime_seconds === 0 ? 'No downtime' : `${duration(f.downtime_seconds)} down`}, ${count(f.checks)} ${f.checks === 1 ? 'check' : 'checks'}`
  return html`<div class="stat"><p class="stat-label">${label}</p><p class="stat-value">${f.uptime_percent === null ? 'No data' : percent(f.uptime_percent)}</p>
<p class="muted">${note}</p></div>`
}

/** A day's class: all up, some downtime (under 1%), more, or not monitored. */
function dayClass (uptime: number | null): string {
  if (uptime === null) return 'day-none'
  if (uptime >= 100) return 'day-up'
  return uptime >= 99 ? 'day-some' : 'day-down'
}

/** One slot per day of the last 90 (days before the monitor existed are empty), each with its figures as a title. */
function dayBar (view: MonitorUptimeView): SafeHtml {
  const byDay = new Map(view.days.map((d) => [d.start.slice(0, 10), d]))
  const today = Math.floor(view.now.getTime() / DAY_MS) * DAY_MS
  const slots = Array.from({ length: view.barDays }, (_, i) => {
    const date = new Date(today - (view.barDays - 1 - i) * DAY_MS).toISOString().slice(0, 10)
    const day = byDay.get(date)
    const uptime = day?.uptime_percent ?? null
    const title = uptime === null ? `${date}: no data` : `${date}: ${percent(uptime)}${day!.downtime_seconds > 0 ? `, ${duration(day!.downtime_seconds)} down` : ''}`
    return html`<span class="day ${dayClass(uptime)}" title="${title}"></span>`
  })
  const down = view.days.filter((d) => d.uptime_percent !== null && d.uptime_percent < 100).length
  return html`<div class="uptime-bar" role="img" aria-label="Uptime per day over the last ${view.barDays} days: ${down === 0 ? 'no day with downtime' : `${down} ${down === 1 ? 'day' : 'days'} with downtime`}">${slots}</div>
<p class="muted uptime-bar-legend"><span>${view.barDays} days ago</span><span>Today</span></p>`
}

export function uptimeSection (view: MonitorUptimeView): SafeHtml {
  return html`<section aria-labelledby="uptime-title"><h2 id="uptime-title">Uptime</h2>
<p class="muted">The share of the time the monitor was not down (paused time left out); days in UTC.</p>
<div class="stats">${view.windows.map(uptimeBox)}</div>
${dayBar(view)}</section>`
}
