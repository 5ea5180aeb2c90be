// The API's keyed routes from the app's own route table, with what it takes to call each one for real: the
// document's example body and a fresh resource of the owner for its `:id`. Tests that walk every route use it.
import type { FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/client.ts'
import { upsertMember } from '../../src/organizations/repository.ts'
import { inviteMember } from '../../src/organizations/service.ts'
import { insertChecks } from '../../src/repositories/checks.ts'
import { openIncident } from '../../src/repositories/incidents.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { createUser } from '../../src/repositories/users.ts'
import { makeMonitor, type makeUser, request, testAudit, type Teardown } from '../helper.ts'
import { dnsServer, type ZoneEntry } from './dns-server.ts'
import { routeTable, type Route } from './route-table.ts'

// The API routes that need no key; every other route under /api/v1 needs one, but the agents'.
const PUBLIC = new Set(['GET /api/v1/openapi.json', 'HEAD /api/v1/openapi.json'])
// The agents' routes take a location's agent token, never an API key (test/locations/locations.test.ts).
const AGENT_PATHS = '/api/v1/agent/'

/** Whether a route (`METHOD /path`) under /api/v1 takes an API key: not the document, not the agents' routes. */
export const needsKey = (route: string): boolean => !PUBLIC.has(route) && !route.includes(` ${AGENT_PATHS}`)

export type OpenApi = {
  paths: Record<string, Record<string, { 'x-required-role'?: string, requestBody?: { content: Record<string, { example?: unknown }> } }>>
}
export type Owner = Awaited<ReturnType<typeof makeUser>>

export const openApi = async (app: FastifyInstance): Promise<OpenApi> => (await app.inject({ url: '/api/v1/openapi.json' })).json()

export const documented = (doc: OpenApi): string[] => Object.entries(doc.paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))

export const operation = (doc: OpenApi, route: Route) => doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]

/** The example the OpenAPI document gives of the route's request body, if it has one. */
export function exampleBody (doc: OpenApi, route: Route): unknown {
  return operation(doc, route)?.requestBody?.content['application/json']?.example
}

/**
 * The body to send on the route: the document's example, or where an example cannot succeed twice, a fresh one
 * (an invitation to the owner's organization for `callerEmail`, to accept).
 */
export async function bodyFor (app: FastifyInstance, doc: OpenApi, route: Route, owner: Owner, callerEmail: string): Promise<object | undefined> {
  if (route.method === 'POST' && route.path === '/api/v1/invitations/accept') {
    const { token } = await inviteMember(app.db, { orgId: owner.orgId, role: 'owner', userId: owner.user.id, audit: testAudit }, { email: callerEmail, role: 'viewer' }, new Date())
    return { token }
  }
  // A slug is the server's once, and a report or component names things of the owner's.
  if (route.method === 'POST' && route.path === '/api/v1/status-pages') return { slug: `page-${++members}-${Date.now()}`, title: 'Status' }
  // A location's code is the organization's once.
  if (route.method === 'POST' && route.path === '/api/v1/locations') return { code: `loc-${++members}-${Date.now()}`, name: 'Office' }
  if (route.method === 'POST' && route.path === '/api/v1/status-pages/:id/components') return { name: 'Web', manual_status: 'operational' }
  if (route.method === 'POST' && route.path === '/api/v1/status-reports') {
    return { status_page_ids: [(await makeStatusPage(app, owner)).pageId], title: 'Errors', message: 'Looking into it.' }
  }
  return exampleBody(doc, route) as object | undefined
}

/** The records of the DNS server that the walking tests' app asks (walkedAppEnv): each page's TXT record, once made. */
const zone: Record<string, ZoneEntry> = {}

/** The environment of an app whose routes are walked: channels may send to a local receiver, and TXT records are asked of `zone`. */
export async function walkedAppEnv (t: Teardown): Promise<Record<string, string>> {
  return { ALLOW_PRIVATE_TARGETS: 'true', DNS_SERVERS: (await dnsServer(t, zone)).server }
}

/** A published status page of the owner's organization with one component; `withDomain`: a custom domain whose TXT record is published. */
async function makeStatusPage (app: FastifyInstance, owner: Owner, withDomain = false): Promise<{ pageId: string, componentId: string }> {
  const slug = `page-${++members}-${Date.now()}`
  const page = await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/status-pages', payload: { slug, title: 'Status', published: true, ...(withDomain ? { custom_domain: `${slug}.walk.test` } : {}) },
  })
  const pageId = page.json().data.id as string
  if (withDomain) zone[`_pingward.${slug}.walk.test`] = { TXT: [[page.json().data.domain_txt_record]] }
  const component = await request(app, owner.auth, { method: 'POST', url: `/api/v1/status-pages/${pageId}/components`, payload: { name: 'Web', manual_status: 'operational' } })
  return { pageId, componentId: component.json().data.id as string }
}

/** The route's URL with `target` in its path: one id per parameter, separated by spaces (a page and its component). */
export function urlOf (route: Route, target: string): string {
  const ids = target.split(' ')
  let index = 0
  return route.path.replace(/:\w+/g, () => ids[Math.min(index++, ids.length - 1)])
}

/** The routes under /api/v1 that need a key. */
export const keyedRoutes = (app: FastifyInstance): Route[] =>
  routeTable(app).filter((r) => r.path.startsWith('/api/v1/') && needsKey(`${r.method} ${r.path}`))

/** The routes in their order, but DELETE /organization, which takes everything with it, last. */
export const deletingTheOrganizationLast = (routes: Route[]): Route[] =>
  [...routes].sort((a, b) => Number(isOrganizationDelete(a)) - Number(isOrganizationDelete(b)))
export const isOrganizationDelete = (route: Route) => route.method === 'DELETE' && route.path === '/api/v1/organization'

let members = 0

/**
 * A fresh resource of the owner's organization for a route's `:id`, by the resource the path names: a monitor, an
 * open incident, an active maintenance window, a status page with a component (both ids, for a component's routes; with
 * a custom domain whose TXT record is published, to verify) or a report, an agent location (its code), a notification
 * channel (sending to a local receiver), a delivery, an invitation or a member (a viewer, also for the paths without one); made with data for every
 * read to return.
 */
export async function makeTarget (app: FastifyInstance, owner: Owner, route: Route, receiverUrl: string): Promise<string> {
  if (route.path.startsWith('/api/v1/monitors')) {
    const id = (await makeMonitor(app, owner.auth)).id
    await insertChecks(app.db, [{ monitorId: id, isUp: false, statusCode: 500, responseTimeMs: 9, checkedAt: new Date() }])
    await openIncident(app.db, id, { cause: 'expected status 200, got 500', statusCode: 500, startedAt: new Date() })
    return id
  }
  if (route.path.startsWith('/api/v1/incidents')) {
    const monitorId = (await makeMonitor(app, owner.auth)).id
    const incident = await openIncident(app.db, monitorId, { cause: 'expected status 200, got 500', statusCode: 500, startedAt: new Date() })
    return incident!.id
  }
  if (route.path.startsWith('/api/v1/maintenance-windows')) {
    // Under way, so that it can be ended as well as started, changed and deleted.
    const window = await request(app, owner.auth, {
      method: 'POST', url: '/api/v1/maintenance-windows', payload: { title: 'Deploy', all_monitors: true, ends_at: new Date(Date.now() + 3_600_000).toISOString() },
    })
    return window.json().data.id as string
  }
  if (route.path.startsWith('/api/v1/status-pages')) {
    const { pageId, componentId } = await makeStatusPage(app, owner, route.path.endsWith('/verify-domain'))
    return route.path.includes(':component_id') ? `${pageId} ${componentId}` : pageId
  }
  if (route.path.startsWith('/api/v1/status-reports')) {
    const { pageId, componentId } = await makeStatusPage(app, owner)
    const report = await request(app, owner.auth, {
      method: 'POST', url: '/api/v1/status-reports', payload: { status_page_ids: [pageId], component_ids: [componentId], title: 'Errors', message: 'Looking into it.' },
    })
    return report.json().data.id as string
  }
  // A change, so that the log has an event to read.
  if (route.path === '/api/v1/audit-events') return (await makeMonitor(app, owner.auth)).id
  if (route.path.startsWith('/api/v1/locations')) {
    const code = `loc-${++members}-${Date.now()}`
    await request(app, owner.auth, { method: 'POST', url: '/api/v1/locations', payload: { code, name: 'Office' } })
    return code
  }
  if (route.path.startsWith('/api/v1/organization/invitations')) {
    const { invitation } = await inviteMember(app.db, { orgId: owner.orgId, role: 'owner', userId: owner.user.id, audit: testAudit }, { email: `invited${++members}@example.com`, role: 'viewer' }, new Date())
    return invitation.id
  }
  if (route.path.startsWith('/api/v1/organization') || route.path.startsWith('/api/v1/invitations')) {
    const member = await createUser(app.db, `member${++members}-${Date.now()}@example.com`)
    await upsertMember(app.db, owner.orgId, member.id, 'viewer', new Date())
    return member.id
  }
  const channel = await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: receiverUrl } },
  })
  const channelId = channel.json().data.id as string
  const at = new Date()
  const { eventId } = await enqueueEvent(app.db, {
    orgId: owner.orgId, monitorId: null, incidentId: null, channelId, at, payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
  })
  if (route.path.startsWith('/api/v1/notification-channels')) return channelId
  if (!route.path.startsWith('/api/v1/deliveries')) throw new Error(`no resource known for ${route.path}`)
  return rowsOf<{ id: string }>(await app.db.execute(sql`select id from notification_deliveries where event_id = ${eventId}`))[0].id
}

/** Everything of the owner's organization a route could change: monitors, incidents and notes, channels, maintenance windows, status pages and reports, deliveries, locations, the organization, members. */
export async function organizationState (app: FastifyInstance, orgId: string): Promise<string> {
  const rows = await Promise.all([
    sql`select * from monitors where org_id = ${orgId} order by id`,
    sql`select i.* from incidents i join monitors m on m.id = i.monitor_id where m.org_id = ${orgId} order by i.id`,
    sql`select n.* from incident_notes n join incidents i on i.id = n.incident_id join monitors m on m.id = i.monitor_id where m.org_id = ${orgId} order by n.id`,
    sql`select * from notification_channels where org_id = ${orgId} order by id`,
    sql`select * from maintenance_windows where org_id = ${orgId} order by id`,
    sql`select * from status_pages where org_id = ${orgId} order by id`,
    sql`select c.* from status_page_components c join status_pages p on p.id = c.page_id where p.org_id = ${orgId} order by c.id`,
    sql`select * from status_reports where org_id = ${orgId} order by id`,
    sql`select u.* from status_report_updates u join status_reports r on r.id = u.report_id where r.org_id = ${orgId} order by u.id`,
    sql`select d.* from notification_deliveries d join notification_channels c on c.id = d.channel_id where c.org_id = ${orgId} order by d.id`,
    sql`select * from locations where org_id = ${orgId} order by id`,
    sql`select * from organizations where id = ${orgId}`,
    sql`select * from memberships where org_id = ${orgId} order by user_id`,
    sql`select * from invitations where org_id = ${orgId} order by id`,
  ].map(async (query) => rowsOf(await app.db.execute(query))))
  return JSON.stringify(rows)
}
