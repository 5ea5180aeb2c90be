// Pure: what a public page says of a component, of a day and of the whole page (api-contract section 16), in the
// words of Atlassian Statuspage, whose summary.json the page also serves.
import type { ComponentStatus, ReportImpact } from '../domain/vocabulary.ts'

/** A report's impact as the status of a component it names; `none` leaves the component as its monitors say. */
const IMPACT_STATUS: Record<ReportImpact, ComponentStatus | null> = {
  none: null, minor: 'degraded_performance', major: 'partial_outage', critical: 'major_outage',
}

export const STATUS_LABELS: Record<ComponentStatus, string> = {
  operational: 'Operational',
  under_maintenance: 'Under maintenance',
  degraded_performance: 'Degraded performance',
  partial_outage: 'Partial outage',
  major_outage: 'Major outage',
}

/** What a component follows, as the page's statement read it. */
export interface ComponentFacts {
  manualStatus: ComponentStatus | null
  /** `failingLocations`: the names of the monitor's fresh locations whose latest check failed. */
  monitors: Array<{ status: string, inMaintenance: boolean, failingLocations: string[] }>
  /** The impact of the newest open report that names it. */
  reportImpact: ReportImpact | null
  /** Whether it follows a label selector: some of its monitors down is a partial outage. */
  selector: boolean
}

/** What a component shows: its status, and the locations a partial outage of its monitors is seen from (none otherwise). */
export interface ComponentState { status: ComponentStatus, outageLocations: string[] }

/** Under maintenance if its monitors are in a window, else the newest open report's impact, else its monitors' or its manual status. */
export function componentState (facts: ComponentFacts): ComponentState {
  const only = (status: ComponentStatus): ComponentState => ({ status, outageLocations: [] })
  if (facts.monitors.length > 0 && facts.monitors.every((monitor) => monitor.inMaintenance)) return only('under_maintenance')
  const reported = facts.reportImpact === null ? null : IMPACT_STATUS[facts.reportImpact]
  if (reported !== null) return only(reported)
  if (facts.manualStatus !== null) return only(facts.manualStatus)
  const watched = facts.monitors.filter((monitor) => !monitor.inMaintenance)
  const partial: ComponentState = { status: 'partial_outage', outageLocations: [...new Set(watched.flatMap((monitor) => monitor.failingLocations))].sort() }
  const down = watched.filter((monitor) => monitor.status === 'down').length
  if (down > 0) return facts.selector && down < watched.length ? partial : only('major_outage')
  // Failing from some of its locations, fewer than its quorum: down for the people there.
  if (watched.some((monitor) => monitor.status === 'degraded' && monitor.failingLocations.length > 0)) return partial
  if (watched.some((monitor) => monitor.status === 'degraded')) return only('degraded_performance')
  return only('operational')
}

export type Indicator = 'none' | 'minor' | 'major' | 'critical' | 'maintenance'

const INDICATOR_OF: Record<ComponentStatus, Indicator> = {
  operational: 'none', under_maintenance: 'maintenance', degraded_performance: 'minor', partial_outage: 'major', major_outage: 'critical',
}
const IMPACT_INDICATOR: Record<ReportImpact, Indicator> = { none: 'none', minor: 'minor', major: 'major', critical: 'critical' }
const INDICATOR_ORDER: Indicator[] = ['none', 'maintenance', 'minor', 'major', 'critical']

const INDICATOR_DESCRIPTIONS: Record<Indicator, string> = {
  none: 'All Systems Operational',
  maintenance: 'Service Under Maintenance',
  minor: 'Partially Degraded Service',
  major: 'Partial System Outage',
  critical: 'Major System Outage',
}

/** The page's overall indicator: its worst component, or the worst impact of its open reports if worse. */
export function pageIndicator (statuses: ComponentStatus[], openImpacts: ReportImpact[]): { indicator: Indicator, description: string } {
  let indicator: Indicator = 'none'
  for (const candidate of [...statuses.map((status) => INDICATOR_OF[status]), ...openImpacts.map((impact) => IMPACT_INDICATOR[impact])]) {
    if (INDICATOR_ORDER.indexOf(candidate) > INDICATOR_ORDER.indexOf(indicator)) indicator = candidate
  }
  return { indicator, description: INDICATOR_DESCRIPTIONS[indicator] }
}

/** A day of a component's bar: how much of it was watched, down and in maintenance. */
export interface DayTotals { trackedMs: number, downtimeMs: number, maintenanceMs: number }
export type DayLevel = 'none' | 'operational' | 'degraded' | 'outage' | 'maintenance'

/** A day's level: no data, all up, up at least 99%, less, or only maintenance. */
export function dayLevel (day: DayTotals | undefined): DayLevel {
  if (!day || (day.trackedMs === 0 && day.maintenanceMs === 0)) return 'none'
  if (day.trackedMs === 0) return 'maintenance'
  if (day.downtimeMs === 0) return 'operational'
  return day.downtimeMs / day.trackedMs <= 0.01 ? 'degraded' : 'outage'
}

/** The share of a day's watched time that was up, as a percentage with two decimals; null without data. */
export function dayUptime (day: DayTotals | undefined): number | null {
  if (!day || day.trackedMs === 0) return null
  return Math.floor(10_000 * (day.trackedMs - day.downtimeMs) / day.trackedMs) / 100
}
