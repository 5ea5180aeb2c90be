// A page's machine-readable twins, made from its view: summary.json in Atlassian Statuspage's /api/v2/summary.json shape,
// the Atom history (the `feed` library), the maintenance calendar (`ical-generator`) and badges (`badge-maker`, and
// shields.io's endpoint JSON).
import { createHash } from 'node:crypto'
import { makeBadge } from 'badge-maker'
import { Feed } from 'feed'
import ical from 'ical-generator'
import type { ComponentStatus } from '../domain/vocabulary.ts'
import type { PageWindow, ReportWithUpdates } from './repository.ts'
import { STATUS_LABELS } from './status.ts'
import type { ComponentView, PageView } from './view.ts'

/** Where the page's files answer: `/status/{slug}`, or `/` on its verified custom domain. */
export interface PageLinks {
  base: string
  /** The page's path on the host that serves it (`/status/{slug}`, or empty on its custom domain), for its forms. */
  path: string
  /** Whether the page offers subscriptions by mail (SMTP_URL is set). */
  subscriptions: boolean
}

const BADGE_COLORS: Record<ComponentStatus, string> = {
  operational: 'brightgreen', under_maintenance: 'blue', degraded_performance: 'yellow', partial_outage: 'orange', major_outage: 'red',
}
const INDICATOR_BADGE = {
  none: { message: 'operational', color: 'brightgreen' },
  maintenance: { message: 'maintenance', color: 'blue' },
  minor: { message: 'degraded', color: 'yellow' },
  major: { message: 'partial outage', color: 'orange' },
  critical: { message: 'major outage', color: 'red' },
} as const

/** A stable id for a group of components: Statuspage makes each group a component of its own. */
function groupId (pageId: string, group: string): string {
  const hex = createHash('sha256').update(`${pageId}/${group}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${(8 + (parseInt(hex[16], 16) & 3)).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

const iso = (at: Date | null) => at?.toISOString() ?? null

function incidentOf (view: PageView, report: ReportWithUpdates, links: PageLinks) {
  const components = view.components.filter((component) => report.componentIds.includes(component.row.id))
  const firstOf = (status: string) => report.updates.find((update) => update.status === status)?.createdAt ?? null
  return {
    id: report.id,
    name: report.title,
    status: report.status,
    created_at: report.createdAt.toISOString(),
    updated_at: report.updatedAt.toISOString(),
    monitoring_at: iso(firstOf('monitoring')),
    resolved_at: iso(report.resolvedAt),
    impact: report.impact,
    shortlink: `${links.base}#report-${report.id}`,
    started_at: report.createdAt.toISOString(),
    page_id: view.page.id,
    incident_updates: [...report.updates].reverse().map((update) => ({
      id: update.id,
      status: update.status,
      body: update.message,
      incident_id: report.id,
      created_at: update.createdAt.toISOString(),
      updated_at: update.createdAt.toISOString(),
      display_at: update.createdAt.toISOString(),
      affected_components: components.map((component) => ({ code: component.row.id, name: component.row.name, old_status: component.status, new_status: component.status })),
      deliver_notifications: true,
      custom_tweet: null,
      tweet_id: null,
    })),
    components: components.map((component) => componentOf(view, component)),
  }
}

function componentOf (view: PageView, component: ComponentView) {
  return {
    id: component.row.id,
    name: component.row.name,
    status: component.status,
    created_at: component.row.createdAt.toISOString(),
    updated_at: view.builtAt.toISOString(),
    position: component.row.position,
    description: component.row.description,
    showcase: true,
    start_date: null,
    group_id: component.row.groupName === null ? null : groupId(view.page.id, component.row.groupName),
    page_id: view.page.id,
    group: false,
    only_show_if_degraded: false,
  }
}

function maintenanceOf (view: PageView, window: PageWindow, links: PageLinks, now: Date) {
  const startsAt = window.nextStartsAt!
  const endsAt = window.nextEndsAt!
  const status = window.active || (startsAt <= now && now < endsAt) ? 'in_progress' : 'scheduled'
  return {
    id: window.id,
    name: window.title,
    status,
    created_at: window.createdAt.toISOString(),
    updated_at: window.updatedAt.toISOString(),
    monitoring_at: null,
    resolved_at: null,
    impact: 'maintenance',
    shortlink: `${links.base}#maintenance-${window.id}`,
    started_at: startsAt.toISOString(),
    page_id: view.page.id,
    incident_updates: [{
      id: window.id,
      status,
      body: window.description ?? window.title,
      incident_id: window.id,
      created_at: window.updatedAt.toISOString(),
      updated_at: window.updatedAt.toISOString(),
      display_at: window.updatedAt.toISOString(),
      affected_components: [],
      deliver_notifications: true,
      custom_tweet: null,
      tweet_id: null,
    }],
    components: [],
    scheduled_for: startsAt.toISOString(),
    scheduled_until: endsAt.toISOString(),
  }
}

/** The page in the shape of Atlassian Statuspage's /api/v2/summary.json. */
export function summaryJson (view: PageView, links: PageLinks): object {
  const groups = new Map<string, ComponentView[]>()
  for (const component of view.components) {
    if (component.row.groupName !== null) groups.set(component.row.groupName, [...groups.get(component.row.groupName) ?? [], component])
  }
  const groupComponents = [...groups].map(([name, members]) => ({
    id: groupId(view.page.id, name),
    name,
    status: members.map((member) => member.status).reduce((a, b) => STATUS_ORDER.indexOf(a) >= STATUS_ORDER.indexOf(b) ? a : b),
    created_at: members[0].row.createdAt.toISOString(),
    updated_at: view.builtAt.toISOString(),
    position: members[0].row.position,
    description: null,
    showcase: false,
    start_date: null,
    group_id: null,
    page_id: view.page.id,
    group: true,
    only_show_if_degraded: false,
    components: members.map((member) => member.row.id),
  }))
  return {
    page: { id: view.page.id, name: view.page.title, url: links.base, time_zone: 'Etc/UTC', updated_at: view.builtAt.toISOString() },
    components: [...view.components.map((component) => componentOf(view, component)), ...groupComponents]
      .sort((a, b) => a.position - b.position),
    incidents: view.openReports.map((report) => incidentOf(view, report, links)),
    scheduled_maintenances: view.windows.map((window) => maintenanceOf(view, window, links, view.builtAt)),
    status: { indicator: view.indicator, description: view.description },
  }
}

const STATUS_ORDER: ComponentStatus[] = ['operational', 'under_maintenance', 'degraded_performance', 'partial_outage', 'major_outage']

/** The page's reports and their updates as an Atom feed, the newest change first. */
export function historyAtom (view: PageView, links: PageLinks): string {
  const reports = [...view.openReports, ...view.pastReports].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
  const feed = new Feed({
    title: `${view.page.title}: status history`,
    description: view.page.description ?? undefined,
    id: `${links.base}/history.atom`,
    link: links.base,
    updated: reports[0]?.updatedAt ?? view.page.createdAt,
    generator: 'Pingward',
    copyright: view.page.title,
    // RFC 4287 4.1.1: a feed needs an atom:author unless every entry has one.
    author: { name: view.page.title },
    feedLinks: { atom: `${links.base}/history.atom` },
  })
  for (const report of reports) {
    const steps = [...report.updates].reverse()
      .map((update) => `<p><strong>${escapeXmlText(STAGE_LABELS[update.status])}</strong> (${update.createdAt.toISOString()}): ${escapeXmlText(update.message)}</p>`)
    feed.addItem({
      // The library marks entry titles type="html", so the text is escaped as HTML.
      title: escapeXmlText(`${report.title} (${STAGE_LABELS[report.status]})`),
      id: `urn:uuid:${report.id}`,
      link: `${links.base}#report-${report.id}`,
      date: report.updatedAt,
      published: report.createdAt,
      content: steps.join(''),
    })
  }
  return feed.atom1()
}

export const STAGE_LABELS = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' } as const

const escapeXmlText = (text: string) => text.replace(/[&<>]/g, (c) => c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;')

/** The maintenance under way or to come as an iCalendar file: one event per window's current or next occurrence. */
export function maintenanceIcs (view: PageView, links: PageLinks): string {
  const calendar = ical({ name: `${view.page.title}: maintenance`, prodId: { company: 'Pingward', product: 'status-page' } })
  for (const window of view.windows) {
    calendar.createEvent({
      id: `${window.id}-${window.nextStartsAt!.getTime()}@pingward`,
      start: window.nextStartsAt!,
      end: window.nextEndsAt!,
      summary: window.title,
      description: window.description ?? undefined,
      url: `${links.base}#maintenance-${window.id}`,
      stamp: window.updatedAt,
    })
  }
  return calendar.toString()
}

/** The page's status as an SVG badge. */
export function pageBadge (view: PageView): string {
  return makeBadge({ label: 'status', ...INDICATOR_BADGE[view.indicator] })
}

/** A component's status as an SVG badge, or as shields.io's endpoint JSON. */
export function componentBadge (component: ComponentView, format: 'svg' | 'json'): string {
  const badge = { label: component.row.name, message: STATUS_LABELS[component.status].toLowerCase(), color: BADGE_COLORS[component.status] }
  return format === 'svg' ? makeBadge(badge) : JSON.stringify({ schemaVersion: 1, ...badge })
}

/** The page's status as shields.io's endpoint JSON. */
export function pageShields (view: PageView): string {
  return JSON.stringify({ schemaVersion: 1, label: 'status', ...INDICATOR_BADGE[view.indicator] })
}
