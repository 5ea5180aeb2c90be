// The words a person reads on a phone: which monitor, what failed, since when, for how long (or which
// certificate expires when), and the link to it in the dashboard. Every adapter for people builds its
// service's format from this one text.
import { daysLeft } from '../checker/tls-expiry.ts'
import type { Incident } from '../schemas/incident.ts'
import type { Monitor } from '../schemas/monitor.ts'
import type { ChannelForSending, Message, SendContext, ToldEvent } from './channels/types.ts'

/**
 * How it reads: `down` (an incident opened), `up` (resolved), `flap` (both at once), `expiring` (a certificate
 * near its expiry), `info` (a test, a digest of no outage).
 */
export type Tone = 'down' | 'up' | 'flap' | 'expiring' | 'info'

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
  /** What failed, since when, for how long, where: label and value. */
  facts: Fact[]
  /** A digest's events, one line each with its monitor's page; empty for anything else. */
  items: Array<{ tone: Tone, line: string, url: string | null }>
  /** The page to open: the monitor's in the dashboard, or the dashboard's home for a test or a digest. */
  link: { url: string, label: string }
}

/** The incident of an `incident.*` event, with its monitor; null for a `test` and a `tls.expiring`. */
export function incidentOf (told: ToldEvent): { monitor: Monitor, incident: Incident } | null {
  const { monitor, incident } = told.event.data
  return monitor && incident ? { monitor, incident } : null
}

/** The text of a message, as of `context.now` (an open incident's "for how long" is counted to then). */
export function humanText (channel: Pick<ChannelForSending, 'name'>, message: Message, context: SendContext): HumanText {
  if (message.kind === 'digest') return digestText(message.told, context)
  const told = message.kind === 'flap' ? message.resolved : message.told
  const expiring = certificateOf(told)
  if (expiring) {
    const { monitor, certificate } = expiring
    const facts: Fact[] = [{ label: 'Expires on', value: utcTime(certificate.expiresAt) }]
    if (certificate.issuer) facts.push({ label: 'Issued by', value: certificate.issuer })
    facts.push({ label: 'Checking', value: monitor.url, url: true })
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
  if (told.event.type === 'incident.opened') {
    return {
      tone: 'down',
      title: `${monitor.name} is down`,
      facts: [
        { label: 'What failed', value: incident.cause },
        { label: 'Down since', value: utcTime(incident.started_at) },
        { label: 'Down for', value: `${duration(secondsBetween(incident.started_at, context.now))} so far` },
        { label: 'Checking', value: monitor.url, url: true },
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
    { label: 'Checking', value: monitor.url, url: true },
  ]
  const closedBy = closedWithoutCheck(told, monitor)
  if (closedBy) return { tone: 'info', title: `${monitor.name}: incident closed, the monitor was ${closedBy}`, facts, items: [], link }
  if (message.kind === 'flap') return { tone: 'flap', title: `${monitor.name} was down ${down}, now up`, facts, items: [], link }
  return { tone: 'up', title: `${monitor.name} is up again`, facts, items: [], link }
}

/** A pause or a delete resolves an open incident without a check: the monitor is not known to be up. */
function closedWithoutCheck (told: ToldEvent, monitor: Monitor): 'paused' | 'deleted' | null {
  if (told.event.data.check) return null
  // A paused monitor has no open incident to close, so one closed while active was deleted.
  return monitor.is_active ? 'deleted' : 'paused'
}

/**
 * The certificate of a `tls.expiring` event, as its check saw it: when it expires, who issued it, and the
 * headline that says how long that was from the check ("expires in 7 days", "in 1 day": the event's own time,
 * so a retry says what the first attempt said); null for any other event.
 */
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
    const parts = incidentOf(one)
    if (!parts) return { tone: 'info' as Tone, line: 'Test notification', url: null }
    const { monitor, incident } = parts
    const url = monitorUrl(context, monitor.id)
    if (one.event.type === 'incident.opened') {
      return { tone: 'down' as Tone, line: `${monitor.name} is down since ${utcTime(incident.started_at)}: ${incident.cause}`, url }
    }
    const down = duration(incident.duration_seconds ?? 0)
    const closedBy = closedWithoutCheck(one, monitor)
    if (closedBy) return { tone: 'info' as Tone, line: `${monitor.name}: incident closed after ${down}, the monitor was ${closedBy}`, url }
    return { tone: 'up' as Tone, line: `${monitor.name} is up again after ${down} down`, url }
  })
  const downs = items.filter((item) => item.tone === 'down').length
  const ups = items.filter((item) => item.tone === 'up').length
  const expiring = items.filter((item) => item.tone === 'expiring').length
  const counts = [
    downs ? `${downs} down` : '', ups ? `${ups} up again` : '', expiring ? `${expiring} ${expiring === 1 ? 'certificate' : 'certificates'} expiring` : '',
  ].filter(Boolean).join(', ')
  return {
    tone: downs ? 'down' : expiring ? 'expiring' : 'info',
    title: `${told.length} notifications${counts ? `: ${counts}` : ''}`,
    facts: [],
    items,
    link: { url: `${context.publicUrl}/`, label: 'Open Pingward' },
  }
}

/** The text as plain lines under the title: facts, a digest's lines (with their pages), then the link. */
export function plainBody (text: HumanText): string {
  const lines = [
    ...text.facts.map((fact) => `${fact.label}: ${fact.value}`),
    ...text.items.map((item) => `- ${item.line}${item.url ? ` (${item.url})` : ''}`),
  ]
  return `${lines.join('\n')}\n\n${text.link.label}: ${text.link.url}`
}

export const monitorUrl = (context: SendContext, monitorId: string) => `${context.publicUrl}/monitors/${monitorId}`

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

/**
 * As many of `lines` as fit in `max` characters joined by `separator`, then "…and N more": a storm's digest
 * must stay within the service's limit however many events it holds.
 */
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
