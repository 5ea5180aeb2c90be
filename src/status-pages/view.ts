// What a public page shows, read in a handful of statements and computed once per snapshot: each component's status
// and its days, the open and past reports, the maintenance under way or to come.
import type { Database } from '../db/client.ts'
import { labelsMatch } from '../domain/labels.ts'
import type { ComponentStatus } from '../domain/vocabulary.ts'
import {
  dailyUptime, listComponents, pageMonitors, pageReports, upcomingWindows,
  type ComponentRow, type PageMonitor, type PageRow, type PageWindow, type ReportWithUpdates,
} from './repository.ts'
import { componentStatus, dayLevel, dayUptime, pageIndicator, type DayLevel, type DayTotals, type Indicator } from './status.ts'

const DAY_MS = 86_400_000
/** The most upcoming windows a page lists, and the most reports it reads. */
const SHOWN = { windows: 10, reports: 50 } as const

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
  windows: PageWindow[]
}

const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS)

function monitorsOf (component: ComponentRow, monitors: PageMonitor[]): PageMonitor[] {
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

/** Reads and computes the page's view at `now`. */
export async function loadPageView (db: Database, page: PageRow, now: Date): Promise<PageView> {
  const today = utcDay(now)
  const from = new Date(today.getTime() - (page.historyDays - 1) * DAY_MS)
  const components = await listComponents(db, page.id)
  const allMonitors = await pageMonitors(db, page.orgId, components)
  const followed = components.map((component) => monitorsOf(component, allMonitors))
  const pageMonitorList = [...new Map(followed.flat().map((monitor) => [monitor.id, monitor])).values()]
  const [uptimeRows, reports, windows] = await Promise.all([
    dailyUptime(db, pageMonitorList.map((monitor) => monitor.id), from, today),
    pageReports(db, page.id, from, SHOWN.reports),
    upcomingWindows(db, page.orgId),
  ])
  const totals = new Map<string, DayTotals>()
  for (const row of uptimeRows) totals.set(`${row.monitorId}/${row.day}`, row)
  const openReports = reports.filter((report) => report.resolvedAt === null)
  const dates = Array.from({ length: page.historyDays }, (_, i) => new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10))

  const views = components.map((component, index): ComponentView => {
    const monitors = followed[index]
    const newestOpen = openReports.find((report) => report.componentIds.includes(component.id))
    const status = componentStatus({ manualStatus: component.manualStatus, monitors, reportImpact: newestOpen?.impact ?? null, selector: component.labelSelector !== null })
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
    return { row: component, status, days, uptime: tracked === 0 ? null : Math.floor(10_000 * (tracked - down) / tracked) / 100 }
  })
  const { indicator, description } = pageIndicator(views.map((view) => view.status), openReports.map((report) => report.impact))
  return {
    page,
    builtAt: now,
    indicator,
    description,
    components: views,
    openReports,
    pastReports: reports.filter((report) => report.resolvedAt !== null),
    windows: windows.filter((window) => coversPage(window, pageMonitorList)).slice(0, SHOWN.windows),
  }
}
