// What a public page shows, read in a handful of statements and computed once per snapshot: each component's status
// and its days, the open and past reports, the maintenance under way or to come.
import type { Database } from '../db/client.ts'
import { labelsMatch } from '../domain/labels.ts'
import type { ComponentStatus } from '../domain/vocabulary.ts'
import {
  dailyUptime, listComponents, openPageReports, pageMonitors, pastPageReports, upcomingWindows,
  type ComponentRow, type PageMonitor, type PageRow, type PageWindow, type ReportPosition, type ReportWithUpdates,
} from './repository.ts'
import { listLocations } from '../locations/repository.ts'
import { locationStatesOf, quorumPolicyOf, quorumVerdict } from '../locations/quorum.ts'
import { componentState, dayLevel, dayUptime, pageIndicator, type DayLevel, type DayTotals, type Indicator } from './status.ts'

const DAY_MS = 86_400_000
/** The most upcoming windows a page lists, the most open reports it reads, and the past reports per page of them. */
const SHOWN = { windows: 10, openReports: 50, pastReports: 50 } as const

export interface DayView {
  /** YYYY-MM-DD, UTC. */
  date: string
  level: DayLevel
  uptime: number | null
  downtimeMinutes: number
  maintenanceMinutes: number
  reports: string[]
}

export interface ComponentView {
  row: ComponentRow
  status: ComponentStatus
  /** The names of the locations a partial outage is seen from. */
  outageLocations: string[]
  days: DayView[]
  uptime: number | null
}

export interface PageView {
  page: PageRow
  builtAt: Date
  indicator: Indicator
  description: string
  components: ComponentView[]
  openReports: ReportWithUpdates[]
  pastReports: ReportWithUpdates[]
  /** Whether reports resolved before the last of `pastReports` are within `history_days`: the next page of them. */
  olderReports: boolean
  windows: PageWindow[]
}

/** A page of past reports, and whether older ones follow it. */
export interface PastReports { reports: ReportWithUpdates[], more: boolean }

const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS)

/** A monitor's fresh locations whose latest check failed, by code (none for a monitor checked from anywhere). */
const failingLocations = (monitor: PageMonitor, now: Date) =>
  monitor.locations.length === 0 ? [] : quorumVerdict(quorumPolicyOf(monitor), locationStatesOf(monitor.locationStates), now).failing

function monitorsOf<M extends PageMonitor> (component: ComponentRow, monitors: M[]): M[] {
  if (component.monitorId !== null) return monitors.filter((monitor) => monitor.id === component.monitorId)
  if (component.labelSelector !== null) return monitors.filter((monitor) => labelsMatch(monitor.labels, component.labelSelector!))
  return []
}

type Coverage = Pick<PageWindow, 'allMonitors' | 'monitorIds' | 'labelSelector'>

const coversPage = (window: Coverage, monitors: PageMonitor[]) => window.allMonitors
  ? monitors.length > 0
  : monitors.some((monitor) =>
    window.monitorIds.includes(monitor.id) || (window.labelSelector.length > 0 && labelsMatch(monitor.labels, window.labelSelector)))

/** Whether the window covers a monitor that one of the page's components follows. */
export async function windowCoversPage (db: Database, page: PageRow, window: Coverage): Promise<boolean> {
  const components = await listComponents(db, page.id)
  const monitors = await pageMonitors(db, page.orgId, components)
  return coversPage(window, components.flatMap((component) => monitorsOf(component, monitors)))
}

const historyStart = (page: PageRow, now: Date) => new Date(utcDay(now).getTime() - (page.historyDays - 1) * DAY_MS)

/** The past reports of the page's `history_days`, the last resolved first: the first page, or the one after `after`. */
export async function loadPastReports (db: Database, page: PageRow, now: Date, after?: ReportPosition): Promise<PastReports> {
  const rows = await pastPageReports(db, page.id, historyStart(page, now), SHOWN.pastReports + 1, after)
  return { reports: rows.slice(0, SHOWN.pastReports), more: rows.length > SHOWN.pastReports }
}

/** An "Older reports" link's cursor: where its page of past reports ends. */
export const reportCursor = (report: ReportWithUpdates) => Buffer.from(`${report.resolvedAt!.getTime()}/${report.id}`).toString('base64url')

/** The position a cursor names; undefined when it is not one this server made. */
export function reportPosition (cursor: string): ReportPosition | undefined {
  const match = /^(\d{1,13})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(Buffer.from(cursor, 'base64url').toString())
  // Base64 decoding skips what it cannot read, so the cursor must encode to itself.
  if (!match || Buffer.from(`${match[1]}/${match[2]}`).toString('base64url') !== cursor) return undefined
  return { resolvedAt: new Date(Number(match[1])), id: match[2] }
}

/** Reads and computes the page's view at `now`. */
export async function loadPageView (db: Database, page: PageRow, now: Date): Promise<PageView> {
  const today = utcDay(now)
  const from = historyStart(page, now)
  const components = await listComponents(db, page.id)
  const [pageMonitorRows, locationRows] = await Promise.all([pageMonitors(db, page.orgId, components), listLocations(db, page.orgId)])
  const names = new Map(locationRows.map((location) => [location.code, location.name]))
  const allMonitors = pageMonitorRows.map((monitor) => ({ ...monitor, failingLocations: failingLocations(monitor, now).map((code) => names.get(code) ?? code) }))
  const followed = components.map((component) => monitorsOf(component, allMonitors))
  const pageMonitorList = [...new Map(followed.flat().map((monitor) => [monitor.id, monitor])).values()]
  const [uptimeRows, openReports, past, windows] = await Promise.all([
    dailyUptime(db, pageMonitorList.map((monitor) => monitor.id), from, today),
    openPageReports(db, page.id, SHOWN.openReports),
    loadPastReports(db, page, now),
    upcomingWindows(db, page.orgId),
  ])
  const totals = new Map<string, DayTotals>()
  for (const row of uptimeRows) totals.set(`${row.monitorId}/${row.day}`, row)
  const reports = [...openReports, ...past.reports]
  const dates = Array.from({ length: page.historyDays }, (_, i) => new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10))

  const views = components.map((component, index): ComponentView => {
    const monitors = followed[index]
    const newestOpen = openReports.find((report) => report.componentIds.includes(component.id))
    const { status, outageLocations } = componentState({
      manualStatus: component.manualStatus, monitors, reportImpact: newestOpen?.impact ?? null, selector: component.labelSelector !== null,
    })
    const named = reports.filter((report) => report.componentIds.includes(component.id))
    let tracked = 0
    let down = 0
    const days = dates.map((date): DayView => {
      const day: DayTotals = { trackedMs: 0, downtimeMs: 0, maintenanceMs: 0 }
      let seen = false
      for (const monitor of monitors) {
        const row = totals.get(`${monitor.id}/${date}`)
        if (!row) continue
        seen = true
        day.trackedMs += row.trackedMs
        day.downtimeMs += row.downtimeMs
        day.maintenanceMs += row.maintenanceMs
      }
      tracked += day.trackedMs
      down += day.downtimeMs
      const start = Date.parse(`${date}T00:00:00.000Z`)
      const touching = named.filter((report) => report.createdAt.getTime() < start + DAY_MS && (report.resolvedAt === null || report.resolvedAt.getTime() >= start))
      return {
        date,
        level: seen ? dayLevel(day) : 'none',
        uptime: seen ? dayUptime(day) : null,
        downtimeMinutes: Math.round(day.downtimeMs / 60_000),
        maintenanceMinutes: Math.round(day.maintenanceMs / 60_000),
        reports: touching.map((report) => report.title),
      }
    })
    return { row: component, status, outageLocations, days, uptime: tracked === 0 ? null : Math.floor(10_000 * (tracked - down) / tracked) / 100 }
  })
  const { indicator, description } = pageIndicator(views.map((view) => view.status), openReports.map((report) => report.impact))
  return {
    page,
    builtAt: now,
    indicator,
    description,
    components: views,
    openReports,
    pastReports: past.reports,
    olderReports: past.more,
    windows: windows.filter((window) => coversPage(window, pageMonitorList)).slice(0, SHOWN.windows),
  }
}
