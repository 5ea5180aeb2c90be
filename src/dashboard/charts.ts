// Inline SVG made on the server; down checks are squares (not only another colour) and every chart has a text summary.
import { html, raw, type SafeHtml } from '../http/html.ts'
import { utc } from './format.ts'

export interface ChartPoint {
  responseTimeMs: number
  isUp: boolean
  checkedAt?: string
}

const fixed = (n: number) => (Math.round(n * 10) / 10).toString()

function summary (points: ChartPoint[]): { min: number, max: number, down: number } {
  let min = Infinity
  let max = 0
  let down = 0
  for (const p of points) {
    min = Math.min(min, p.responseTimeMs)
    max = Math.max(max, p.responseTimeMs)
    if (!p.isUp) down++
  }
  return { min, max, down }
}

/** A 100×24 sparkline, oldest first, drawn on a 200×48 grid in whole numbers: half-pixel precision in few bytes. */
export function sparkline (points: ChartPoint[]): SafeHtml {
  if (points.length === 0) return html`<span class="muted">No checks yet</span>`
  const { min, max, down } = summary(points)
  const step = points.length > 1 ? 192 / (points.length - 1) : 0
  const coords = points.map((p, i) => [
    Math.round(points.length > 1 ? 4 + i * step : 100),
    Math.round(44 - (max === 0 ? 0 : (p.responseTimeMs / max) * 40)),
  ])
  const line = coords.map(([x, y]) => `${x},${y}`).join(' ')
  const marks = points.map((p, i) => p.isUp ? '' : `<rect x="${coords[i][0] - 4}" y="${coords[i][1] - 4}" width="8" height="8"/>`).join('')
  // The newest check as a dot: the line's end, and all there is to see after the first check.
  const [lastX, lastY] = coords[coords.length - 1]
  const end = points[points.length - 1].isUp ? `<circle cx="${lastX}" cy="${lastY}" r="4"/>` : ''
  const label = `Last ${points.length} checks: ${down > 0 ? `${down} down, ` : ''}${min} to ${max} ms`
  return html`<svg class="spark" viewBox="0 0 200 48" width="100" height="24" role="img" aria-label="${label}"><polyline points="${line}"/>${raw(marks + end)}</svg>`
}

/** A heartbeat's recent checks, oldest first, on a 100×24 line: a ping has no response time, so only whether each came. */
export function pingTimeline (points: ChartPoint[]): SafeHtml {
  if (points.length === 0) return html`<span class="muted">No pings yet</span>`
  const step = points.length > 1 ? 192 / (points.length - 1) : 0
  const marks = points.map((p, i) => {
    const x = Math.round(points.length > 1 ? 4 + i * step : 100)
    return p.isUp ? `<circle cx="${x}" cy="24" r="4"/>` : `<rect x="${x - 4}" y="20" width="8" height="8"/>`
  }).join('')
  const missed = points.filter((p) => !p.isUp).length
  const label = `Last ${points.length} ${points.length === 1 ? 'heartbeat' : 'heartbeats'}: ${missed > 0 ? `${missed} failed or missed` : 'all pinged in time'}`
  return html`<svg class="spark pings" viewBox="0 0 200 48" width="100" height="24" role="img" aria-label="${label}"><line x1="0" y1="24" x2="200" y2="24"/>${raw(marks)}</svg>`
}

/** 1, 2 or 5 times a power of ten, at least n. */
export function niceCeiling (n: number): number {
  if (n <= 10) return 10
  const power = 10 ** Math.floor(Math.log10(n))
  for (const m of [1, 2, 5, 10]) if (m * power >= n) return m * power
  return 10 * power
}

/** An axis label short enough to stay readable when a phone shrinks the chart: "250 ms", "2.5 s". */
export function msLabel (ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`
}

/** The response-time chart of a monitor's page: checks oldest first, axes in ms and UTC time. */
export function responseTimeChart (points: ChartPoint[], id = 'rt'): SafeHtml {
  if (points.length === 0) return html`<p class="muted">No checks yet: the chart appears after the first check.</p>`
  const W = 640
  const H = 220
  const left = 76
  const right = 12
  const top = 12
  const bottom = 30
  const { min, max, down } = summary(points)
  const ceiling = niceCeiling(max)
  const x = (i: number) => points.length > 1 ? left + (i * (W - left - right)) / (points.length - 1) : (left + W - right) / 2
  const y = (ms: number) => top + (H - top - bottom) * (1 - ms / ceiling)
  const grid = [0, ceiling / 2, ceiling].map((v) =>
    `<line class="grid" x1="${left}" x2="${W - right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}"/>` +
    `<text x="${left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end">${msLabel(v)}</text>`).join('')
  const line = points.map((p, i) => `${fixed(x(i))},${fixed(y(p.responseTimeMs))}`).join(' ')
  // Down checks as squares; up checks as dots while there are few enough to tell apart.
  const marks = points.map((p, i) => p.isUp
    ? points.length <= 60 ? `<circle class="up" cx="${fixed(x(i))}" cy="${fixed(y(p.responseTimeMs))}" r="3"/>` : ''
    : `<rect class="down" x="${fixed(x(i) - 3.5)}" y="${fixed(y(p.responseTimeMs) - 3.5)}" width="7" height="7"/>`).join('')
  const first = points[0].checkedAt
  const last = points[points.length - 1].checkedAt
  const axis = first && last
    ? `<text x="${left}" y="${H - 8}">${utc(first)}</text><text x="${W - right}" y="${H - 8}" text-anchor="end">${utc(last)}</text>`
    : ''
  const description = `${points.length} ${points.length === 1 ? 'check' : 'checks'}${first && last ? ` from ${utc(first)} to ${utc(last)}` : ''}: ` +
    `response time ${min} to ${max} ms${down > 0 ? `, ${down} down (drawn as squares)` : ', all up'}.`
  return html`<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-title ${id}-desc">
<title id="${id}-title">Response time of the recent checks</title><desc id="${id}-desc">${description}</desc>
${raw(grid)}<polyline class="line" points="${line}"/>${raw(marks)}${raw(axis)}</svg>
<figcaption>${description}</figcaption></figure>`
}
