// How the dashboard writes times, durations, percentages and statuses, as text (never colour alone).
import type { MonitorStatus } from '../domain/vocabulary.ts'
import type { FailingRun } from '../repositories/check-stats.ts'
import { html, type SafeHtml } from '../http/html.ts'

export const STATUS_LABELS: Record<MonitorStatus, string> = { up: 'Up', degraded: 'Degraded', down: 'Down', pending: 'Pending', paused: 'Paused' }

/** The status as a badge; one still up (or pending, degraded) whose latest checks failed says so: "Up, failing 1 of 3". */
export function statusBadge (status: MonitorStatus, failing?: FailingRun): SafeHtml {
  if (!failing) return html`<span class="st st-${status}">${STATUS_LABELS[status]}</span>`
  const title = `The latest ${failing.failures === 1 ? 'check' : `${failing.failures} checks`} failed; ${failing.threshold} in a row mark it down`
  return html`<span class="st st-${status} st-failing" title="${title}">${STATUS_LABELS[status]}, failing ${failing.failures} of ${failing.threshold}</span>`
}

/** 2026-11-21 09:30:05 UTC */
export function utc (date: Date | string): string {
  const iso = typeof date === 'string' ? date : date.toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
}

/** "42 s", "1 min 30 s", "3 h 20 min", "2 d 4 h": the two largest units, the smaller one left out when zero. */
export function duration (seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const units: Array<[number, string]> = [[86_400, 'd'], [3600, 'h'], [60, 'min'], [1, 's']]
  const parts: string[] = []
  let rest = s
  for (const [size, name] of units) {
    const n = Math.floor(rest / size)
    if (n > 0 || parts.length > 0) parts.push(`${n} ${name}`)
    rest -= n * size
    if (parts.length === 2) break
  }
  return parts.filter((p) => !p.startsWith('0 ')).join(' ')
}

/** "just now", "3 min ago", "2 h ago", in a <time> that carries the exact time. */
export function ago (date: Date | string | null, now: Date): SafeHtml {
  if (date === null) return html`<span class="muted">Never</span>`
  const when = typeof date === 'string' ? new Date(date) : date
  const seconds = (now.getTime() - when.getTime()) / 1000
  const text = seconds < 10 ? 'just now' : `${duration(seconds)} ago`
  // data-ago: assets/dashboard.js moves the text on with the clock, written as here.
  return html`<time datetime="${when.toISOString()}" title="${utc(when)}" data-ago>${text}</time>`
}

export function timeTag (date: Date | string | null, empty = 'Never'): SafeHtml {
  if (date === null) return html`<span class="muted">${empty}</span>`
  const when = typeof date === 'string' ? new Date(date) : date
  return html`<time datetime="${when.toISOString()}">${utc(when)}</time>`
}

/** Uptime as a percentage, rounded down so that 99.999% never reads as 100%. */
export function percent (value: number | null): string {
  if (value === null) return 'No checks'
  if (value >= 100) return '100%'
  return `${(Math.floor(value * 100) / 100).toFixed(2)}%`
}

// Not toLocaleString: ICU's number data would be paged into the process (about 6 MB resident) for a comma.
export const count = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/** Under this many days before its expiry a certificate is shown as a warning (the first `tls.expiring` reminder). */
const CERTIFICATE_WARNING_DAYS = 14

/** When a certificate expires, in words (the colour only repeats it): a warning near expiry, an error once expired. */
export function certificateExpiry (expiresAt: Date | string, now: Date): SafeHtml {
  const when = typeof expiresAt === 'string' ? new Date(expiresAt) : expiresAt
  const ms = when.getTime() - now.getTime()
  if (ms <= 0) return html`<span class="expiry expiry-expired">expired ${ago(when, now)}</span>`
  const days = Math.floor(ms / 86_400_000)
  const text = days === 0 ? 'expires within a day' : `expires in ${count(days)} ${days === 1 ? 'day' : 'days'}`
  return html`<span class="expiry${days < CERTIFICATE_WARNING_DAYS ? ' expiry-soon' : ''}">${text}</span>`
}
