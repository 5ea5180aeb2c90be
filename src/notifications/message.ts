// The words a person reads on a phone; every adapter for people builds its service's format from this one text.
import { daysLeft } from '../checks/tls-expiry.ts'
import { effectiveQuorum } from '../locations/quorum.ts'
import type { Incident } from '../schemas/incident.ts'
import type { Monitor } from '../monitors/schema.ts'
import type { MaintenanceWindow } from '../maintenance/schema.ts'
import type { ChannelForSending, Message, SendContext, ToldEvent } from './channels/types.ts'

/** How a message reads; `info` is a test, a digest of no outage, or an incident closed by a pause or a delete. */
export type Tone = 'down' | 'degraded' | 'up' | 'flap' | 'expiring' | 'info'

interface Fact {
  label: string
  value: string
  /** The value is a URL, to be shown as written (and linked). */
  url?: boolean
}

export interface HumanText {
  tone: Tone
  /** One line: a notification's title, a mail's subject. */
  title: string
  facts: Fact[]
  /** A digest's events, one line each with its monitor's page; empty for anything else. */
  items: Array<{ tone: Tone, line: string, url: string | null }>
  /** The page to open: the monitor's in the dashboard, or the dashboard's home for a test or a digest. */
  link: { url: string, label: string }
}

/** The incident of an `incident.*` or `monitor.degraded` event, with its monitor; null for a `test` and a `tls.expiring`. */
export function incidentOf (told: ToldEvent): { monitor: Monitor, incident: Incident } | null {
  const { monitor, incident } = told.event.data
  return monitor && incident ? { monitor, incident } : null
}

/** Whether the event tells an incident's opening, from the incident's status: `monitor.degraded` is one type for both edges. */
export function isOpening (told: ToldEvent): boolean {
  return incidentOf(told)?.incident.status === 'open'
}

/** `down` or `degraded`: what an event's incident is about; one without `kind` is a down incident. */
export const incidentKind = (incident: Incident) => incident.kind === 'degraded' ? 'degraded' : 'down'

/** The monitor's url as a fact, when it has one (a heartbeat is pinged, not checked at a url). */
const checking = (monitor: Monitor): Fact[] => monitor.url ? [{ label: 'Checking', value: monitor.url, url: true }] : []

/** The text of a message, as of `context.now` (an open incident's "for how long" is counted to then), with its acknowledge link. */
export function humanText (channel: Pick<ChannelForSending, 'name'>, message: Message, context: SendContext): HumanText {
  const text = textOf(channel, message, context)
  const data = message.kind === 'event' ? message.told.event.data : undefined
  if (data?.dependents_down) {
    text.facts.push({ label: 'Also down', value: `${data.dependents_down} ${data.dependents_down === 1 ? 'monitor that depends' : 'monitors that depend'} on it` })
  }
  if (data?.acknowledge_url) text.facts.push({ label: 'Acknowledge', value: data.acknowledge_url, url: true })
  return text
}

/** A `location.coverage_*` event's monitor, whether coverage was lost, the silent locations and the headline; null for any other. */
export function coverageOf (told: ToldEvent): { monitor: Monitor, lost: boolean, silent: string[], headline: string } | null {
  const { monitor, silent_locations: silent = [] } = told.event.data
  if (!monitor || (told.event.type !== 'location.coverage_lost' && told.event.type !== 'location.coverage_restored')) return null
  const lost = told.event.type === 'location.coverage_lost'
  const headline = lost
    ? `${monitor.name}: too few locations report (${silent.join(', ')} silent), its status is kept`
    : `${monitor.name}: enough of its locations report again`
  return { monitor, lost, silent, headline }
}

function coverageText ({ monitor, lost, headline }: NonNullable<ReturnType<typeof coverageOf>>, context: SendContext): HumanText {
  const facts: Fact[] = [
    { label: lost ? 'Status kept' : 'Status', value: monitor.status },
    { label: 'Quorum', value: `${effectiveQuorum(monitor.location_quorum, monitor.locations.length)} of ${monitor.locations.length} locations` },
    ...monitor.location_states.map((state) => ({
      label: state.location,
      value: state.last_checked_at ? `${state.status}, last checked ${utcTime(state.last_checked_at)}` : 'never checked',
    })),
  ]
  return { tone: lost ? 'degraded' : 'up', title: headline, facts, items: [], link: { url: monitorUrl(context, monitor.id), label: 'Open in Pingward' } }
}

/** The window of a `maintenance.started` or `maintenance.ended` event, and whether it began; null for any other. */
export function maintenanceOf (told: ToldEvent): { window: MaintenanceWindow, began: boolean } | null {
  const window = told.event.data.maintenance_window
  if (!window || (told.event.type !== 'maintenance.started' && told.event.type !== 'maintenance.ended')) return null
  return { window, began: told.event.type === 'maintenance.started' }
}

const maintenanceHeadline = ({ window, began }: { window: MaintenanceWindow, began: boolean }) =>
  `Maintenance ${began ? 'began' : 'ended'}: ${window.title}`

/** What a window covers, in words. */
function coverage (window: MaintenanceWindow): string {
  if (window.all_monitors) return 'every monitor'
  const parts = []
  if (window.monitor_ids.length > 0) parts.push(`${window.monitor_ids.length} ${window.monitor_ids.length === 1 ? 'monitor' : 'monitors'}`)
  if (window.label_selector.length > 0) parts.push(`monitors labelled ${window.label_selector.join(', ')}`)
  return parts.join(' and ')
}

function maintenanceText (maintenance: { window: MaintenanceWindow, began: boolean }, context: SendContext): HumanText {
  const { window, began } = maintenance
  const facts: Fact[] = [
    { label: 'Covers', value: coverage(window) },
    { label: 'Mode', value: window.mode === 'mute' ? 'muted: checks run, nothing is told' : 'paused: no checks run' },
  ]
  if (began && window.next_ends_at) facts.push({ label: 'Until', value: utcTime(window.next_ends_at) })
  if (!began && window.next_starts_at) facts.push({ label: 'Next', value: utcTime(window.next_starts_at) })
  return { tone: 'info', title: maintenanceHeadline(maintenance), facts, items: [], link: { url: maintenancePageUrl(context.publicUrl), label: 'Open in Pingward' } }
}

function textOf (channel: Pick<ChannelForSending, 'name'>, message: Message, context: SendContext): HumanText {
  if (message.kind === 'digest') return digestText(message.told, context)
  const told = message.kind === 'flap' ? message.resolved : message.told
  const maintenance = maintenanceOf(told)
  if (maintenance) return maintenanceText(maintenance, context)
  const coverage = coverageOf(told)
  if (coverage) return coverageText(coverage, context)
  const expiring = certificateOf(told)
  if (expiring) {
    const { monitor, certificate } = expiring
    const facts: Fact[] = [{ label: 'Expires on', value: utcTime(certificate.expiresAt) }]
    if (certificate.issuer) facts.push({ label: 'Issued by', value: certificate.issuer })
    facts.push(...checking(monitor))
    return {
      tone: 'expiring',
      title: certificate.headline,
      facts,
      items: [],
      link: { url: monitorUrl(context, monitor.id), label: 'Open in Pingward' },
    }
  }
  const parts = incidentOf(told)
  if (!parts) {
    return {
      tone: 'info',
      title: 'Test notification from Pingward',
      facts: [{ label: 'Channel', value: channel.name }, { label: 'Sent', value: utcTime(told.event.timestamp) }],
      items: [],
      link: { url: `${context.publicUrl}/`, label: 'Open Pingward' },
    }
  }
  const { monitor, incident } = parts
  const link = { url: monitorUrl(context, monitor.id), label: 'Open in Pingward' }
  if (told.event.type === 'incident.acknowledged') {
    const facts = [
      { label: incidentKind(incident) === 'down' ? 'What failed' : 'What is slow', value: incident.cause },
      { label: 'Since', value: utcTime(incident.started_at) },
      { label: 'Acknowledged', value: utcTime(incident.acknowledged_at ?? told.event.timestamp) },
    ]
    return { tone: 'info', title: acknowledgedHeadline(monitor, incident), facts, items: [], link }
  }
  if (told.event.type === 'incident.reminder') {
    const down = incidentKind(incident) === 'down'
    const facts = [
      { label: down ? 'What failed' : 'What is slow', value: incident.cause },
      { label: down ? 'Down since' : 'Degraded since', value: utcTime(incident.started_at) },
      { label: down ? 'Down for' : 'Slow for', value: `${duration(secondsBetween(incident.started_at, context.now))} so far` },
      ...checking(monitor),
    ]
    return { tone: down ? 'down' : 'degraded', title: reminderHeadline(monitor, incident), facts, items: [], link }
  }
  if (incidentKind(incident) === 'degraded') return degradedText(told, message.kind === 'flap', monitor, incident, context)
  if (told.event.type === 'heartbeat.missed') {
    const facts = [
      { label: 'What failed', value: incident.cause },
      { label: 'Down since', value: utcTime(incident.started_at) },
      { label: 'Down for', value: `${duration(secondsBetween(incident.started_at, context.now))} so far` },
    ]
    return { tone: 'down', title: missedHeadline(told, monitor), facts, items: [], link }
  }
  if (told.event.type === 'incident.opened') {
    return {
      tone: 'down',
      title: openingHeadline(monitor, incident),
      facts: [
        { label: 'What failed', value: incident.cause },
        { label: 'Down since', value: utcTime(incident.started_at) },
        { label: 'Down for', value: `${duration(secondsBetween(incident.started_at, context.now))} so far` },
        ...checking(monitor),
      ],
      items: [],
      link,
    }
  }
  const down = duration(incident.duration_seconds ?? secondsBetween(incident.started_at, incident.resolved_at ?? context.now))
  const facts = [
    { label: 'What failed', value: incident.cause },
    { label: 'Down from', value: `${utcTime(incident.started_at)} to ${utcTime(incident.resolved_at ?? told.event.timestamp)}` },
    { label: 'Down for', value: down },
    ...checking(monitor),
  ]
  const closedBy = closedWithoutCheck(told, monitor)
  if (closedBy) return { tone: 'info', title: `${monitor.name}: incident closed, the monitor was ${closedBy}`, facts, items: [], link }
  if (message.kind === 'flap') return { tone: 'flap', title: `${monitor.name} was down ${down}, now up`, facts, items: [], link }
  return { tone: 'up', title: `${monitor.name} is up again`, facts, items: [], link }
}

/** A degraded incident's text; one that ends because the monitor went down says so, as the down incident's message follows. */
function degradedText (told: ToldEvent, flap: boolean, monitor: Monitor, incident: Incident, context: SendContext): HumanText {
  const link = { url: monitorUrl(context, monitor.id), label: 'Open in Pingward' }
  if (incident.status === 'open') {
    const facts = [
      { label: 'What is slow', value: incident.cause },
      { label: 'Degraded since', value: utcTime(incident.started_at) },
      { label: 'Slow for', value: `${duration(secondsBetween(incident.started_at, context.now))} so far` },
      ...checking(monitor),
    ]
    return { tone: 'degraded', title: openingHeadline(monitor, incident), facts, items: [], link }
  }
  const slow = duration(incident.duration_seconds ?? secondsBetween(incident.started_at, incident.resolved_at ?? context.now))
  const facts = [
    { label: 'What was slow', value: incident.cause },
    { label: 'Degraded from', value: `${utcTime(incident.started_at)} to ${utcTime(incident.resolved_at ?? told.event.timestamp)}` },
    { label: 'Slow for', value: slow },
    ...checking(monitor),
  ]
  const closedBy = closedWithoutCheck(told, monitor)
  if (closedBy) return { tone: 'info', title: `${monitor.name}: degraded incident closed, the monitor was ${closedBy}`, facts, items: [], link }
  if (monitor.status === 'down') return { tone: 'info', title: `${monitor.name} is no longer degraded: it went down`, facts, items: [], link }
  if (flap) return { tone: 'flap', title: `${monitor.name} was degraded ${slow}, no longer`, facts, items: [], link }
  return { tone: 'up', title: `${monitor.name} is no longer degraded`, facts, items: [], link }
}

/** An opening's title (and mail subject): a degraded one names its cause, so that a preview says why a passing monitor warns. */
export function openingHeadline (monitor: Pick<Monitor, 'name'>, incident: Incident): string {
  if (incidentKind(incident) === 'down') return `${monitor.name} is down`
  return `${monitor.name} is degraded: ${truncate(incident.cause, 160)}`
}

/** Who is on it: the actor's label (an email, a key's name) says who answered. */
const acknowledgedHeadline = (monitor: Pick<Monitor, 'name'>, incident: Incident) =>
  `${monitor.name}: ${incident.acknowledged_by?.label ?? 'someone'} acknowledged the ${incidentKind(incident)} incident`

const reminderHeadline = (monitor: Pick<Monitor, 'name'>, incident: Incident) =>
  `Reminder: ${monitor.name} is still ${incidentKind(incident)}, and nobody has acknowledged it`

/** The last ping is `last_checked_at`; a heartbeat never pinged has waited since the missed check less interval and grace. */
function missedHeadline (told: ToldEvent, monitor: Monitor): string {
  const grace = monitor.grace_minutes ?? 0
  const checkedAt = told.event.data.check?.checked_at ?? told.event.timestamp
  const since = monitor.last_checked_at ?? new Date(new Date(checkedAt).getTime() - (monitor.interval_minutes + grace) * 60_000).toISOString()
  return `${monitor.name} missed its heartbeat: no ping since ${utcTime(since)} (expected every ${monitor.interval_minutes} min + ${grace} min grace)`
}

/** A pause or a delete resolves an open incident without a check: the monitor is not known to be up. */
function closedWithoutCheck (told: ToldEvent, monitor: Monitor): 'paused' | 'deleted' | null {
  if (told.event.data.check) return null
  // A paused monitor has no open incident to close, so one closed while active was deleted.
  return monitor.is_active ? 'deleted' : 'paused'
}

/** A `tls.expiring` event's certificate as its check saw it; days count from the event's time, so a retry says the same. */
export function certificateOf (told: ToldEvent): { monitor: Monitor, certificate: { expiresAt: string, issuer: string | null, headline: string } } | null {
  const { monitor } = told.event.data
  if (told.event.type !== 'tls.expiring' || !monitor?.tls_expires_at) return null
  const days = daysLeft(monitor.tls_expires_at, told.event.timestamp)
  const inDays = `${days} ${days === 1 ? 'day' : 'days'}`
  return {
    monitor,
    certificate: { expiresAt: monitor.tls_expires_at, issuer: monitor.tls_issuer, headline: `The certificate of ${monitor.name} expires in ${inDays}` },
  }
}

function digestText (told: ToldEvent[], context: SendContext): HumanText {
  const items = told.map((one) => {
    const expiring = certificateOf(one)
    if (expiring) {
      const { monitor, certificate } = expiring
      const line = `${certificate.headline}, on ${utcTime(certificate.expiresAt)}`
      return { tone: 'expiring' as Tone, line, url: monitorUrl(context, monitor.id) }
    }
    const maintenance = maintenanceOf(one)
    if (maintenance) return { tone: 'info' as Tone, line: maintenanceHeadline(maintenance), url: maintenancePageUrl(context.publicUrl) }
    const coverage = coverageOf(one)
    if (coverage) return { tone: (coverage.lost ? 'info' : 'up') as Tone, line: coverage.headline, url: monitorUrl(context, coverage.monitor.id) }
    const parts = incidentOf(one)
    if (!parts) return { tone: 'info' as Tone, line: 'Test notification', url: null }
    const { monitor, incident } = parts
    const url = monitorUrl(context, monitor.id)
    if (one.event.type === 'incident.acknowledged') return { tone: 'info' as Tone, line: acknowledgedHeadline(monitor, incident), url }
    if (one.event.type === 'incident.reminder') return { tone: incidentKind(incident) as Tone, line: reminderHeadline(monitor, incident), url }
    if (incidentKind(incident) === 'degraded') return { ...degradedLine(one, monitor, incident), url }
    if (one.event.type === 'heartbeat.missed') return { tone: 'down' as Tone, line: missedHeadline(one, monitor), url }
    if (one.event.type === 'incident.opened') {
      return { tone: 'down' as Tone, line: `${monitor.name} is down since ${utcTime(incident.started_at)}: ${incident.cause}`, url }
    }
    const down = duration(incident.duration_seconds ?? 0)
    const closedBy = closedWithoutCheck(one, monitor)
    if (closedBy) return { tone: 'info' as Tone, line: `${monitor.name}: incident closed after ${down}, the monitor was ${closedBy}`, url }
    return { tone: 'up' as Tone, line: `${monitor.name} is up again after ${down} down`, url }
  })
  const downs = items.filter((item) => item.tone === 'down').length
  const degraded = items.filter((item) => item.tone === 'degraded').length
  const ups = items.filter((item) => item.tone === 'up').length
  const expiring = items.filter((item) => item.tone === 'expiring').length
  const counts = [
    downs ? `${downs} down` : '', degraded ? `${degraded} degraded` : '', ups ? `${ups} up again` : '',
    expiring ? `${expiring} ${expiring === 1 ? 'certificate' : 'certificates'} expiring` : '',
  ].filter(Boolean).join(', ')
  return {
    tone: downs ? 'down' : degraded ? 'degraded' : expiring ? 'expiring' : 'info',
    title: `${told.length} notifications${counts ? `: ${counts}` : ''}`,
    facts: [],
    items,
    link: { url: `${context.publicUrl}/`, label: 'Open Pingward' },
  }
}

function degradedLine (told: ToldEvent, monitor: Monitor, incident: Incident): { tone: Tone, line: string } {
  if (incident.status === 'open') return { tone: 'degraded', line: `${monitor.name} is degraded since ${utcTime(incident.started_at)}: ${incident.cause}` }
  const slow = duration(incident.duration_seconds ?? 0)
  const closedBy = closedWithoutCheck(told, monitor)
  if (closedBy) return { tone: 'info', line: `${monitor.name}: degraded incident closed after ${slow}, the monitor was ${closedBy}` }
  if (monitor.status === 'down') return { tone: 'info', line: `${monitor.name} is no longer degraded after ${slow} slow: it went down` }
  return { tone: 'up', line: `${monitor.name} is no longer degraded after ${slow} slow` }
}

/** The text as plain lines under the title: facts, a digest's lines (with their pages), then the link. */
export function plainBody (text: HumanText): string {
  const lines = [
    ...text.facts.map((fact) => `${fact.label}: ${fact.value}`),
    ...text.items.map((item) => `- ${item.line}${item.url ? ` (${item.url})` : ''}`),
  ]
  return `${lines.join('\n')}\n\n${text.link.label}: ${text.link.url}`
}

/** The dashboard's page of a monitor (its route at the root, `/monitors/:id`), or its home for an event of none (a test). */
export const dashboardUrl = (publicUrl: string, monitorId: string | null) => monitorId ? `${publicUrl}/monitors/${monitorId}` : `${publicUrl}/`

/** The dashboard's maintenance page: where a maintenance event links. */
export const maintenancePageUrl = (publicUrl: string) => `${publicUrl}/maintenance`

export const monitorUrl = (context: SendContext, monitorId: string) => dashboardUrl(context.publicUrl, monitorId)

/** The dashboard's page of a one-click acknowledge link (its route at the root, `/acknowledge/:token`). */
export const acknowledgeUrl = (publicUrl: string, token: string) => `${publicUrl}/acknowledge/${token}`

/** `2026-05-01 12:03 UTC`: a phone shows it in a line, and every reader converts from the same zone. */
export function utcTime (iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

function secondsBetween (fromIso: string, to: Date | string): number {
  return Math.max(0, Math.round((new Date(to).getTime() - new Date(fromIso).getTime()) / 1000))
}

/** `45 s`, `3 min`, `2 h 5 min`, `3 d 4 h`: two units at most, the smaller one dropped when zero. */
export function duration (seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const minutes = Math.floor(s / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`
  const days = Math.floor(hours / 24)
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`
}

/** At most `max` characters, the cut marked with an ellipsis. */
export function truncate (text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** As many `lines` as fit in `max` characters, then "…and N more": a digest stays within the service's limit. */
export function fitLines (lines: string[], max: number, separator = '\n'): string {
  const kept: string[] = []
  let length = 0
  for (const [index, line] of lines.entries()) {
    const rest = lines.length - index - 1
    const more = rest ? `${separator}…and ${rest} more` : ''
    const next = length + (kept.length ? separator.length : 0) + line.length
    if (next + more.length > max) {
      const left = lines.length - kept.length
      return [...kept, `…and ${left} more`].join(separator)
    }
    kept.push(line)
    length = next
  }
  return kept.join(separator)
}
