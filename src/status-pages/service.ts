// The rules of status pages (api-contract section 16): a slug and a custom domain are the server's once, a password
// page has a password, a component follows exactly one source, a report names its pages' components, and its status
// moves by updates. Every change is audited in its transaction.
import { randomBytes } from 'node:crypto'
import { recordChange } from '../audit/service.ts'
import { hashPassword } from '../auth/passwords.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { ConflictError, InvalidInputError, LimitReachedError } from '../domain/errors.ts'
import type { AuditAction, ComponentStatus, ReportStatus } from '../domain/vocabulary.ts'
import { presentComponent, presentPage, presentReport } from './presenter.ts'
import { tellSubscribers } from './subscribers.ts'
import {
  countComponents, deleteComponent, deletePage, deleteReport, findComponent, findIncidentFacts, findPage, findReport,
  componentsFollowing, insertComponent, insertPage, insertReport, insertUpdate, isOrgMonitor, nextPosition, pageTaken,
  unknownComponentIds, unknownPageIds, updateComponent, updatePage, updateReport,
  type ComponentInsert, type ComponentRow, type PageRow, type ReportWithUpdates,
} from './repository.ts'
import {
  STATUS_PAGE_LIMITS, type ComponentChanges, type NewComponent, type NewReport, type NewStatusPage, type ReportChanges,
  type ReportDraft, type StatusPageChanges,
} from './schema.ts'

/** Who changes a page or report: a member of the organization, as the audit log names them. */
export interface Publisher { orgId: string, audit: AuditContext }

const PAGE_FIELDS = ['slug', 'title', 'description', 'homepage_url', 'published', 'access', 'history_days', 'custom_domain'] as const
const COMPONENT_FIELDS = ['name', 'description', 'group', 'position', 'monitor_id', 'label_selector', 'manual_status'] as const
const REPORT_FIELDS = ['status_page_ids', 'title', 'status', 'impact', 'component_ids', 'resolved_at'] as const

const newDomainToken = () => randomBytes(16).toString('base64url')

/** A slug or custom domain that is another page's; `field` names which, so that a form shows it by that field. */
export class PageValueTakenError extends ConflictError {
  readonly field: 'slug' | 'custom_domain'
  constructor (field: 'slug' | 'custom_domain', message: string) {
    super(message)
    this.field = field
  }
}

async function assertFree (db: Database, page: { slug: string, customDomain: string | null }, exceptId?: string): Promise<void> {
  if (await pageTaken(db, 'slug', page.slug, exceptId)) throw new PageValueTakenError('slug', `slug "${page.slug}" is taken by another status page`)
  if (page.customDomain !== null && await pageTaken(db, 'custom_domain', page.customDomain, exceptId)) {
    throw new PageValueTakenError('custom_domain', `custom_domain "${page.customDomain}" is another status page's`)
  }
}

/** This server's own host names (its dashboard's and API's) are never a page's custom domain. */
function assertNotServerHost (domain: string | null | undefined, serverHosts: ReadonlySet<string>): void {
  if (domain && serverHosts.has(domain)) throw new InvalidInputError('custom_domain', `custom_domain must not be this server's own host name (${domain})`)
}

export async function createPage (db: Database, who: Publisher, input: NewStatusPage, now: Date, serverHosts: ReadonlySet<string> = new Set()): Promise<PageRow> {
  assertNotServerHost(input.custom_domain, serverHosts)
  const access = input.access ?? 'public'
  if (access === 'password' && input.password === undefined) throw new InvalidInputError('password', 'password is required when access is password')
  const values = {
    orgId: who.orgId,
    slug: input.slug,
    title: input.title,
    description: input.description ?? null,
    homepageUrl: input.homepage_url ?? null,
    published: input.published ?? false,
    access,
    passwordHash: input.password === undefined ? null : await hashPassword(input.password),
    historyDays: input.history_days ?? 90,
    customDomain: input.custom_domain ?? null,
    domainToken: newDomainToken(),
    createdAt: now,
    updatedAt: now,
  }
  return atomically(db, async (tx) => {
    await assertFree(tx, values)
    const row = await insertPage(tx, values)
    await auditPage(tx, who, 'status_page.created', null, row, now)
    return row
  })
}

export async function changePage (db: Database, who: Publisher, id: string, changes: StatusPageChanges, now: Date, serverHosts: ReadonlySet<string> = new Set()): Promise<PageRow | undefined> {
  assertNotServerHost(changes.custom_domain, serverHosts)
  const passwordHash = changes.password === undefined ? undefined : await hashPassword(changes.password)
  return atomically(db, async (tx) => {
    const before = await findPage(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    const access = changes.access ?? before.access
    const hash = passwordHash ?? before.passwordHash
    if (access === 'password' && hash === null) throw new InvalidInputError('password', 'password is required when access is password')
    const customDomain = changes.custom_domain === undefined ? before.customDomain : changes.custom_domain
    const values = {
      slug: changes.slug ?? before.slug,
      title: changes.title ?? before.title,
      description: changes.description === undefined ? before.description : changes.description,
      homepageUrl: changes.homepage_url === undefined ? before.homepageUrl : changes.homepage_url,
      published: changes.published ?? before.published,
      access,
      passwordHash: access === 'public' ? null : hash,
      historyDays: changes.history_days ?? before.historyDays,
      customDomain,
      domainVerifiedAt: customDomain === before.customDomain ? before.domainVerifiedAt : null,
      updatedAt: now,
    }
    await assertFree(tx, values, id)
    const row = await updatePage(tx, id, values)
    await auditPage(tx, who, 'status_page.updated', before, row, now)
    return row
  })
}

/** Deletes a page with its components; a report on no other page goes with it. */
export async function removePage (db: Database, who: Publisher, id: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const before = await findPage(tx, who.orgId, id, 'lock')
    if (!before) return false
    await deletePage(tx, before)
    await auditPage(tx, who, 'status_page.deleted', before, null, now)
    return true
  })
}

/** Refuses a component whose source is not exactly one live thing of the organization. */
async function assertSource (db: Database, orgId: string, component: Pick<ComponentRow, 'monitorId' | 'labelSelector' | 'manualStatus'>): Promise<void> {
  const sources = [component.monitorId, component.labelSelector, component.manualStatus].filter((source) => source !== null)
  if (sources.length !== 1) {
    throw new InvalidInputError('monitor_id', 'monitor_id, label_selector and manual_status: exactly one must be set')
  }
  if (component.monitorId !== null && !await isOrgMonitor(db, orgId, component.monitorId)) {
    throw new InvalidInputError('monitor_id', `monitor_id: ${component.monitorId} is not a monitor of this organization`)
  }
}

export async function addComponent (db: Database, who: Publisher, pageId: string, input: NewComponent, now: Date): Promise<ComponentRow | undefined> {
  return atomically(db, async (tx) => {
    const page = await findPage(tx, who.orgId, pageId, 'lock')
    if (!page) return undefined
    if (await countComponents(tx, pageId) >= STATUS_PAGE_LIMITS.components) {
      throw new LimitReachedError(`A status page holds at most ${STATUS_PAGE_LIMITS.components} components`)
    }
    const values = {
      pageId,
      name: input.name,
      description: input.description ?? null,
      groupName: input.group ?? null,
      position: input.position ?? await nextPosition(tx, pageId),
      monitorId: input.monitor_id ?? null,
      labelSelector: input.label_selector ?? null,
      manualStatus: input.manual_status ?? null,
      createdAt: now,
    } satisfies ComponentInsert
    await assertSource(tx, who.orgId, values)
    const row = await insertComponent(tx, values)
    await touchPage(tx, page.id, now)
    await auditComponent(tx, who, 'status_page_component.created', null, row, now)
    return row
  })
}

/** Changes a component; giving one source clears the others. */
export async function changeComponent (db: Database, who: Publisher, pageId: string, id: string, changes: ComponentChanges, now: Date): Promise<ComponentRow | undefined> {
  return atomically(db, async (tx) => {
    const page = await findPage(tx, who.orgId, pageId, 'lock')
    const before = page && await findComponent(tx, pageId, id)
    if (!before) return undefined
    const newSource = changes.monitor_id !== undefined || changes.label_selector !== undefined || changes.manual_status !== undefined
    const values = {
      name: changes.name ?? before.name,
      description: changes.description === undefined ? before.description : changes.description,
      groupName: changes.group === undefined ? before.groupName : changes.group,
      position: changes.position ?? before.position,
      monitorId: changes.monitor_id ?? (newSource ? null : before.monitorId),
      labelSelector: changes.label_selector ?? (newSource ? null : before.labelSelector),
      manualStatus: (changes.manual_status ?? (newSource ? null : before.manualStatus)) as ComponentStatus | null,
    }
    await assertSource(tx, who.orgId, values)
    const row = await updateComponent(tx, id, values)
    await touchPage(tx, page.id, now)
    await auditComponent(tx, who, 'status_page_component.updated', before, row, now)
    return row
  })
}

export async function removeComponent (db: Database, who: Publisher, pageId: string, id: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const page = await findPage(tx, who.orgId, pageId, 'lock')
    const before = page && await findComponent(tx, pageId, id)
    if (!before) return false
    await deleteComponent(tx, before)
    await touchPage(tx, page.id, now)
    await auditComponent(tx, who, 'status_page_component.deleted', before, null, now)
    return true
  })
}

async function touchPage (tx: Database, id: string, now: Date): Promise<void> {
  await updatePage(tx, id, { updatedAt: now })
}

/** Refuses pages that are not the organization's, and components that are not on those pages. */
async function assertTargets (db: Database, orgId: string, pageIds: string[], componentIds: string[]): Promise<void> {
  const [unknownPage] = await unknownPageIds(db, orgId, pageIds)
  if (unknownPage !== undefined) throw new InvalidInputError('status_page_ids', `status_page_ids: ${unknownPage} is not a status page of this organization`)
  const [unknownComponent] = await unknownComponentIds(db, pageIds, componentIds)
  if (unknownComponent !== undefined) throw new InvalidInputError('component_ids', `component_ids: ${unknownComponent} is not a component of the report's pages`)
}

export async function createReport (db: Database, who: Publisher, input: NewReport, now: Date): Promise<ReportWithUpdates> {
  return atomically(db, async (tx) => {
    const status = input.status ?? 'investigating'
    const componentIds = input.component_ids ?? []
    await assertTargets(tx, who.orgId, input.status_page_ids, componentIds)
    const report = await insertReport(tx, {
      orgId: who.orgId,
      title: input.title,
      status,
      impact: input.impact ?? 'minor',
      statusPageIds: input.status_page_ids,
      componentIds,
      createdAt: now,
      updatedAt: now,
      resolvedAt: status === 'resolved' ? now : null,
    })
    const update = await insertUpdate(tx, { reportId: report.id, status, message: input.message, createdAt: now })
    await tellSubscribers(tx, report, update)
    const row = { ...report, updates: [update] }
    await auditReport(tx, who, 'status_report.created', null, row, now)
    return row
  })
}

export async function changeReport (db: Database, who: Publisher, id: string, changes: ReportChanges, now: Date): Promise<ReportWithUpdates | undefined> {
  return atomically(db, async (tx) => {
    const before = await findReport(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    const values = {
      title: changes.title ?? before.title,
      impact: changes.impact ?? before.impact,
      statusPageIds: changes.status_page_ids ?? before.statusPageIds,
      componentIds: changes.component_ids ?? before.componentIds,
      updatedAt: now,
    }
    await assertTargets(tx, who.orgId, values.statusPageIds, values.componentIds)
    const row = { ...await updateReport(tx, id, values), updates: before.updates }
    await auditReport(tx, who, 'status_report.updated', before, row, now)
    return row
  })
}

/** Adds a step to a report's timeline: its status becomes the update's; `resolved` resolves it, another status reopens it. */
export async function postUpdate (db: Database, who: Publisher, id: string, input: { status: ReportStatus, message: string }, now: Date): Promise<ReportWithUpdates | undefined> {
  return atomically(db, async (tx) => {
    const before = await findReport(tx, who.orgId, id, 'lock')
    if (!before) return undefined
    const update = await insertUpdate(tx, { reportId: id, status: input.status, message: input.message, createdAt: now })
    await tellSubscribers(tx, before, update)
    const resolvedAt = input.status === 'resolved' ? (before.resolvedAt ?? now) : null
    const row = { ...await updateReport(tx, id, { status: input.status, resolvedAt, updatedAt: now }), updates: [...before.updates, update] }
    await auditReport(tx, who, 'status_report.update_posted', before, row, now)
    return row
  })
}

export async function removeReport (db: Database, who: Publisher, id: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const before = await findReport(tx, who.orgId, id, 'lock')
    if (!before) return false
    await deleteReport(tx, id)
    await auditReport(tx, who, 'status_report.deleted', before, null, now)
    return true
  })
}

/** A report body filled in from an incident: the components that follow its monitor and their pages. Nothing is stored. */
export async function draftReport (db: Database, orgId: string, incidentId: string): Promise<ReportDraft | undefined> {
  const incident = await findIncidentFacts(db, orgId, incidentId)
  if (!incident) return undefined
  const components = await componentsFollowing(db, orgId, { id: incident.monitorId, labels: incident.labels })
  const down = incident.kind === 'down'
  const since = incident.startedAt.toISOString().replace(/:\d\d\.\d{3}Z$/, ' UTC').replace('T', ' ')
  const names = components.length > 0 ? [...new Set(components.map((component) => component.name))].join(', ') : incident.monitorName
  return {
    status_page_ids: [...new Set(components.map((component) => component.pageId))],
    title: down ? `${names} unavailable` : `${names} degraded`,
    status: incident.status === 'resolved' ? 'resolved' : 'investigating',
    impact: down ? 'major' : 'minor',
    component_ids: components.map((component) => component.id),
    message: `We are investigating ${down ? 'an outage' : 'degraded performance'} of ${names} since ${since}.`,
  }
}

async function auditPage (tx: Database, who: Publisher, action: AuditAction, before: PageRow | null, after: PageRow | null, now: Date): Promise<void> {
  const passwordChanged = before !== null && after !== null && before.passwordHash !== after.passwordHash
  const shown = (row: PageRow | null) => row && { ...presentPage(row), password: row.passwordHash === null ? null : '…' }
  await recordChange(tx, who.audit, {
    orgId: who.orgId,
    action,
    entityId: (after ?? before)!.id,
    before: shown(before),
    after: passwordChanged ? { ...shown(after), password: '… (changed)' } : shown(after),
    fields: [...PAGE_FIELDS, 'password'],
    at: now,
  })
}

async function auditComponent (tx: Database, who: Publisher, action: AuditAction, before: ComponentRow | null, after: ComponentRow | null, now: Date): Promise<void> {
  const row = (after ?? before)!
  await recordChange(tx, who.audit, {
    orgId: who.orgId,
    action,
    entityId: row.id,
    before: before && { ...presentComponent(before), status_page_id: before.pageId },
    after: after && { ...presentComponent(after), status_page_id: after.pageId },
    fields: [...COMPONENT_FIELDS, 'status_page_id'],
    at: now,
  })
}

async function auditReport (tx: Database, who: Publisher, action: AuditAction, before: ReportWithUpdates | null, after: ReportWithUpdates | null, now: Date): Promise<void> {
  const posted = action === 'status_report.update_posted' && after !== null ? after.updates.at(-1) : undefined
  await recordChange(tx, who.audit, {
    orgId: who.orgId,
    action,
    entityId: (after ?? before)!.id,
    before: before && presentReport(before),
    after: after && { ...presentReport(after), message: posted?.message ?? (action === 'status_report.created' ? after.updates[0].message : null) },
    fields: action === 'status_report.update_posted' ? ['status', 'resolved_at', 'message'] : [...REPORT_FIELDS, ...(action === 'status_report.created' ? ['message'] : [])],
    at: now,
  })
}
