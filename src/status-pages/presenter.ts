// Status page rows as the API shows them: the page (its password never), its components, reports with their timeline.
import type { ComponentRow, PageRow, ReportWithUpdates } from './repository.ts'
import type { Component, StatusPage, StatusReport } from './schema.ts'

/** What the TXT record `_pingward.<custom_domain>` must say. */
export const domainTxtRecord = (row: Pick<PageRow, 'domainToken'>) => `pingward-verification=${row.domainToken}`

export function presentPage (row: PageRow): StatusPage {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    homepage_url: row.homepageUrl,
    published: row.published,
    access: row.access,
    history_days: row.historyDays,
    custom_domain: row.customDomain,
    domain_verified: row.customDomain !== null && row.domainVerifiedAt !== null,
    domain_txt_record: domainTxtRecord(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

export function presentComponent (row: ComponentRow): Component {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    group: row.groupName,
    position: row.position,
    monitor_id: row.monitorId,
    label_selector: row.labelSelector,
    manual_status: row.manualStatus,
  }
}

export function presentReport (row: ReportWithUpdates): StatusReport {
  return {
    id: row.id,
    status_page_ids: row.statusPageIds,
    title: row.title,
    status: row.status,
    impact: row.impact,
    component_ids: row.componentIds,
    updates: row.updates.map((update) => ({ id: update.id, status: update.status, message: update.message, created_at: update.createdAt.toISOString() })),
    created_at: row.createdAt.toISOString(),
    resolved_at: row.resolvedAt?.toISOString() ?? null,
  }
}
