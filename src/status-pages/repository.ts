// Status page rows: pages, components, reports and their updates, and what a public page is built from. It reads
// and writes; the rules are the service's.
import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import { labelsMatch } from '../domain/labels.ts'
import type { LocationStateRecord } from '../domain/locations.ts'
import { rowsOf, uuidArray, type Database } from '../db/client.ts'
import { incidents, maintenanceWindows, monitors, statusPageComponents, statusPages, statusReports, statusReportUpdates } from '../db/schema.ts'

export type PageRow = typeof statusPages.$inferSelect
export type PageInsert = typeof statusPages.$inferInsert
export type ComponentRow = typeof statusPageComponents.$inferSelect
export type ComponentInsert = typeof statusPageComponents.$inferInsert
export type ReportRow = typeof statusReports.$inferSelect
export type ReportInsert = typeof statusReports.$inferInsert
export type UpdateRow = typeof statusReportUpdates.$inferSelect
export type ReportWithUpdates = ReportRow & { updates: UpdateRow[] }

const ownedPage = (orgId: string, id: string) => and(eq(statusPages.id, id), eq(statusPages.orgId, orgId))

export async function listPages (db: Database, orgId: string): Promise<PageRow[]> {
  return db.select().from(statusPages).where(eq(statusPages.orgId, orgId)).orderBy(desc(statusPages.createdAt), asc(statusPages.id))
}

export async function findPage (db: Database, orgId: string, id: string, lock?: 'lock'): Promise<PageRow | undefined> {
  const query = db.select().from(statusPages).where(ownedPage(orgId, id))
  const [row] = lock ? await query.for('update') : await query
  return row
}

/** A published page by its slug, or by its verified custom domain. */
export async function findPublishedPage (db: Database, where: { slug: string } | { domain: string }): Promise<PageRow | undefined> {
  const [row] = await db.select().from(statusPages).where(and(
    eq(statusPages.published, true),
    'slug' in where ? eq(statusPages.slug, where.slug) : and(eq(statusPages.customDomain, where.domain), isNotNull(statusPages.domainVerifiedAt))
  ))
  return row
}

/** Whether `slug` or `domain` is another page's (unique on the server, whichever organization holds it). */
export async function pageTaken (db: Database, column: 'slug' | 'custom_domain', value: string, exceptId?: string): Promise<boolean> {
  const target = column === 'slug' ? statusPages.slug : statusPages.customDomain
  const [row] = await db.select({ id: statusPages.id }).from(statusPages)
    .where(and(eq(target, value), exceptId === undefined ? undefined : sql`${statusPages.id} <> ${exceptId}`))
  return row !== undefined
}

export async function insertPage (tx: Database, values: PageInsert): Promise<PageRow> {
  const [row] = await tx.insert(statusPages).values(values).returning()
  return row
}

export async function updatePage (tx: Database, id: string, changes: Partial<PageInsert>): Promise<PageRow> {
  const [row] = await tx.update(statusPages).set(changes).where(eq(statusPages.id, id)).returning()
  return row
}

/** Deletes a page; a report left on no page goes with it, the others lose it and its components. */
export async function deletePage (tx: Database, page: PageRow): Promise<void> {
  const componentIds = (await listComponents(tx, page.id)).map((component) => component.id)
  await tx.delete(statusReports).where(and(eq(statusReports.orgId, page.orgId), sql`${statusReports.statusPageIds} = array[${page.id}]::uuid[]`))
  await tx.update(statusReports).set({
    statusPageIds: sql`array_remove(${statusReports.statusPageIds}, ${page.id}::uuid)`,
    componentIds: componentIds.length === 0 ? statusReports.componentIds : sql`array(select c from unnest(${statusReports.componentIds}) c where c <> all(${uuidArray(componentIds)}))`,
  }).where(and(eq(statusReports.orgId, page.orgId), sql`${page.id}::uuid = any(${statusReports.statusPageIds})`))
  await tx.delete(statusPages).where(eq(statusPages.id, page.id))
}

export async function listComponents (db: Database, pageId: string): Promise<ComponentRow[]> {
  return db.select().from(statusPageComponents).where(eq(statusPageComponents.pageId, pageId))
    .orderBy(asc(statusPageComponents.position), asc(statusPageComponents.createdAt), asc(statusPageComponents.id))
}

export async function findComponent (db: Database, pageId: string, id: string): Promise<ComponentRow | undefined> {
  const [row] = await db.select().from(statusPageComponents).where(and(eq(statusPageComponents.id, id), eq(statusPageComponents.pageId, pageId)))
  return row
}

export async function insertComponent (tx: Database, values: ComponentInsert): Promise<ComponentRow> {
  const [row] = await tx.insert(statusPageComponents).values(values).returning()
  return row
}

export async function updateComponent (tx: Database, id: string, changes: Partial<ComponentInsert>): Promise<ComponentRow> {
  const [row] = await tx.update(statusPageComponents).set(changes).where(eq(statusPageComponents.id, id)).returning()
  return row
}

/** Deletes a component; the reports that named it forget it. */
export async function deleteComponent (tx: Database, component: ComponentRow): Promise<void> {
  await tx.update(statusReports).set({ componentIds: sql`array_remove(${statusReports.componentIds}, ${component.id}::uuid)` })
    .where(sql`${component.id}::uuid = any(${statusReports.componentIds})`)
  await tx.delete(statusPageComponents).where(eq(statusPageComponents.id, component.id))
}

export async function nextPosition (db: Database, pageId: string): Promise<number> {
  const [row] = await db.select({ next: sql<number>`coalesce(max(${statusPageComponents.position}) + 1, 0)::int` })
    .from(statusPageComponents).where(eq(statusPageComponents.pageId, pageId))
  return row.next
}

export async function countComponents (db: Database, pageId: string): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(statusPageComponents).where(eq(statusPageComponents.pageId, pageId))
  return row.count
}

/** The ids among `ids` that are not pages of the organization. */
export async function unknownPageIds (db: Database, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return []
  const found = await db.select({ id: statusPages.id }).from(statusPages).where(and(eq(statusPages.orgId, orgId), inArray(statusPages.id, ids)))
  const known = new Set(found.map((row) => row.id))
  return ids.filter((id) => !known.has(id))
}

/** The ids among `ids` that are not components of these pages. */
export async function unknownComponentIds (db: Database, pageIds: string[], ids: string[]): Promise<string[]> {
  if (ids.length === 0 || pageIds.length === 0) return ids
  const found = await db.select({ id: statusPageComponents.id }).from(statusPageComponents)
    .where(and(inArray(statusPageComponents.pageId, pageIds), inArray(statusPageComponents.id, ids)))
  const known = new Set(found.map((row) => row.id))
  return ids.filter((id) => !known.has(id))
}

/** Whether a live monitor of the organization has this id. */
export async function isOrgMonitor (db: Database, orgId: string, id: string): Promise<boolean> {
  const [row] = await db.select({ id: monitors.id }).from(monitors).where(and(eq(monitors.id, id), eq(monitors.orgId, orgId), isNull(monitors.deletedAt)))
  return row !== undefined
}

async function withUpdates (db: Database, reports: ReportRow[]): Promise<ReportWithUpdates[]> {
  if (reports.length === 0) return []
  const updates = await db.select().from(statusReportUpdates).where(inArray(statusReportUpdates.reportId, reports.map((report) => report.id)))
    .orderBy(asc(statusReportUpdates.createdAt), asc(statusReportUpdates.id))
  return reports.map((report) => ({ ...report, updates: updates.filter((update) => update.reportId === report.id) }))
}

export interface ReportFilter { pageId?: string, open?: boolean, before?: Date, limit: number }

/** The organization's reports, newest first, with their updates. */
export async function listReports (db: Database, orgId: string, filter: ReportFilter): Promise<ReportWithUpdates[]> {
  const rows = await db.select().from(statusReports).where(and(
    eq(statusReports.orgId, orgId),
    filter.pageId === undefined ? undefined : sql`${filter.pageId}::uuid = any(${statusReports.statusPageIds})`,
    filter.open === undefined ? undefined : filter.open ? isNull(statusReports.resolvedAt) : isNotNull(statusReports.resolvedAt),
    filter.before === undefined ? undefined : lt(statusReports.createdAt, filter.before)
  )).orderBy(desc(statusReports.createdAt), desc(statusReports.id)).limit(filter.limit)
  return withUpdates(db, rows)
}

export async function findReport (db: Database, orgId: string, id: string, lock?: 'lock'): Promise<ReportWithUpdates | undefined> {
  const query = db.select().from(statusReports).where(and(eq(statusReports.id, id), eq(statusReports.orgId, orgId)))
  const [row] = lock ? await query.for('update') : await query
  return row && (await withUpdates(db, [row]))[0]
}

export async function insertReport (tx: Database, values: ReportInsert): Promise<ReportRow> {
  const [row] = await tx.insert(statusReports).values(values).returning()
  return row
}

export async function updateReport (tx: Database, id: string, changes: Partial<ReportInsert>): Promise<ReportRow> {
  const [row] = await tx.update(statusReports).set(changes).where(eq(statusReports.id, id)).returning()
  return row
}

export async function deleteReport (tx: Database, id: string): Promise<void> {
  await tx.delete(statusReports).where(eq(statusReports.id, id))
}

export async function insertUpdate (tx: Database, values: typeof statusReportUpdates.$inferInsert): Promise<UpdateRow> {
  const [row] = await tx.insert(statusReportUpdates).values(values).returning()
  return row
}

/** The components of the organization's pages that follow this monitor, by id or by a selector that matches its labels. */
export async function componentsFollowing (db: Database, orgId: string, monitor: { id: string, labels: Record<string, string> }): Promise<ComponentRow[]> {
  const rows = await db.select({ component: statusPageComponents }).from(statusPageComponents)
    .innerJoin(statusPages, eq(statusPages.id, statusPageComponents.pageId))
    .where(and(eq(statusPages.orgId, orgId), or(eq(statusPageComponents.monitorId, monitor.id), isNotNull(statusPageComponents.labelSelector))))
    .orderBy(asc(statusPages.createdAt), asc(statusPageComponents.position))
  return rows.map((row) => row.component)
    .filter((component) => component.monitorId === monitor.id || (component.labelSelector !== null && labelsMatch(monitor.labels, component.labelSelector)))
}

/** One monitor as a public page shows it. */
export interface PageMonitor {
  id: string
  status: string
  inMaintenance: boolean
  labels: Record<string, string>
  locations: string[]
  locationQuorum: number | null
  intervalMinutes: number
  locationStates: LocationStateRecord[]
}

/** The organization's live monitors a page's components may follow: those named, and all with labels when a selector is used. */
export async function pageMonitors (db: Database, orgId: string, components: ComponentRow[]): Promise<PageMonitor[]> {
  const ids = components.flatMap((component) => component.monitorId === null ? [] : [component.monitorId])
  const selectors = components.some((component) => component.labelSelector !== null)
  if (ids.length === 0 && !selectors) return []
  return db.select({
    id: monitors.id,
    status: monitors.status,
    inMaintenance: monitors.inMaintenance,
    labels: monitors.labels,
    locations: monitors.locations,
    locationQuorum: monitors.locationQuorum,
    intervalMinutes: monitors.intervalMinutes,
    locationStates: monitors.locationStates,
  })
    .from(monitors)
    .where(and(eq(monitors.orgId, orgId), isNull(monitors.deletedAt), selectors ? undefined : inArray(monitors.id, ids)))
}

type DayTotalsRow = { monitorId: string, day: string, trackedMs: number, downtimeMs: number, maintenanceMs: number }

/**
 * dailyUptime's statement: past days from the covering index of day rows alone (drizzle/0036_rollup_day_sums.sql), one
 * row each already, so only today's hours are summed.
 */
export function dailyUptimeQuery (monitorIds: string[], from: Date, today: Date) {
  return sql`
    select monitor_id as "monitorId", ((start at time zone 'UTC')::date)::text as day,
      tracked_ms::float8 as "trackedMs", downtime_ms::float8 as "downtimeMs", maintenance_ms::float8 as "maintenanceMs"
    from monitor_rollups
    where granularity = 'day' and monitor_id = any(${uuidArray(monitorIds)})
      and start >= ${from.toISOString()}::timestamptz and start < ${today.toISOString()}::timestamptz
    union all
    select monitor_id, ${today.toISOString().slice(0, 10)}::text, sum(tracked_ms)::float8, sum(downtime_ms)::float8, sum(maintenance_ms)::float8
    from monitor_rollups
    where granularity = 'hour' and monitor_id = any(${uuidArray(monitorIds)}) and start >= ${today.toISOString()}::timestamptz
    group by monitor_id`
}

/** Per monitor and UTC day since `from`: tracked, down and maintenance milliseconds (today's from its built hours). */
export async function dailyUptime (db: Database, monitorIds: string[], from: Date, today: Date): Promise<DayTotalsRow[]> {
  if (monitorIds.length === 0) return []
  return rowsOf<DayTotalsRow>(await db.execute(dailyUptimeQuery(monitorIds, from, today)))
}

// Containment, which the GIN index of status_page_ids answers (`= any(...)` would scan every report).
const onPage = (pageId: string) => sql`${statusReports.statusPageIds} @> array[${pageId}]::uuid[]`

/** The page's open reports, the newest first, with their updates. */
export async function openPageReports (db: Database, pageId: string, limit: number): Promise<ReportWithUpdates[]> {
  const rows = await db.select().from(statusReports).where(and(onPage(pageId), isNull(statusReports.resolvedAt)))
    .orderBy(desc(statusReports.createdAt), desc(statusReports.id)).limit(limit)
  return withUpdates(db, rows)
}

/** Where a page of past reports ends: its last report's resolution time and id. */
export interface ReportPosition { resolvedAt: Date, id: string }

/** The page's reports resolved since `since` (and before `after`), the last resolved first, with their updates. */
export async function pastPageReports (db: Database, pageId: string, since: Date, limit: number, after?: ReportPosition): Promise<ReportWithUpdates[]> {
  const rows = await db.select().from(statusReports).where(and(
    onPage(pageId),
    sql`${statusReports.resolvedAt} >= ${since.toISOString()}::timestamptz`,
    after === undefined ? undefined : sql`(${statusReports.resolvedAt}, ${statusReports.id}) < (${after.resolvedAt.toISOString()}::timestamptz, ${after.id}::uuid)`
  )).orderBy(desc(statusReports.resolvedAt), desc(statusReports.id)).limit(limit)
  return withUpdates(db, rows)
}

export type PageWindow = Pick<typeof maintenanceWindows.$inferSelect, 'id' | 'title' | 'description' | 'monitorIds' | 'allMonitors' | 'labelSelector' | 'nextStartsAt' | 'nextEndsAt' | 'active' | 'updatedAt' | 'createdAt'>

/** The organization's windows under way or to come (not cancelled), the soonest first. */
export async function upcomingWindows (db: Database, orgId: string): Promise<PageWindow[]> {
  return db.select({
    id: maintenanceWindows.id,
    title: maintenanceWindows.title,
    description: maintenanceWindows.description,
    monitorIds: maintenanceWindows.monitorIds,
    allMonitors: maintenanceWindows.allMonitors,
    labelSelector: maintenanceWindows.labelSelector,
    nextStartsAt: maintenanceWindows.nextStartsAt,
    nextEndsAt: maintenanceWindows.nextEndsAt,
    active: maintenanceWindows.active,
    updatedAt: maintenanceWindows.updatedAt,
    createdAt: maintenanceWindows.createdAt,
  }).from(maintenanceWindows)
    .where(and(eq(maintenanceWindows.orgId, orgId), isNull(maintenanceWindows.cancelledAt), isNotNull(maintenanceWindows.nextStartsAt)))
    .orderBy(asc(maintenanceWindows.nextStartsAt))
}

/** The organization's incident with what a report drafted from it says: its monitor's name and labels. */
export async function findIncidentFacts (db: Database, orgId: string, id: string): Promise<{ kind: string, cause: string, startedAt: Date, status: string, monitorId: string, monitorName: string, labels: Record<string, string> } | undefined> {
  const [row] = await db.select({
    kind: incidents.kind,
    cause: incidents.cause,
    startedAt: incidents.startedAt,
    status: incidents.status,
    monitorId: monitors.id,
    monitorName: monitors.name,
    labels: monitors.labels,
  }).from(incidents).innerJoin(monitors, eq(monitors.id, incidents.monitorId))
    .where(and(eq(incidents.id, id), eq(monitors.orgId, orgId)))
  return row
}

/** Every custom domain a page claims, verified or not. */
export async function claimedDomains (db: Database): Promise<string[]> {
  const rows = await db.select({ domain: statusPages.customDomain }).from(statusPages).where(isNotNull(statusPages.customDomain))
  return rows.map((row) => row.domain!)
}

/** The pages whose custom domain is due a look at its TXT record: the unverified, and the verified last seen before `seenBefore`. */
export async function pagesWithDomainsDue (db: Database, seenBefore: Date): Promise<PageRow[]> {
  return db.select().from(statusPages).where(and(
    isNotNull(statusPages.customDomain),
    or(isNull(statusPages.domainVerifiedAt), lt(statusPages.domainVerifiedAt, seenBefore))
  )).orderBy(asc(statusPages.createdAt), asc(statusPages.id))
}
