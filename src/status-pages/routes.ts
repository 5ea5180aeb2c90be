// Status page routes, HTTP only (api-contract section 16): the organization's pages and their components, its status
// reports and their updates, a report drafted from an incident, and a custom domain's check. The public pages are
// public-routes.ts's.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyAudit } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { presentComponent, presentPage, presentReport } from './presenter.ts'
import type { CustomDomainHosts } from './domain-hosts.ts'
import { verifyDomain } from './domains.ts'
import { findComponent, findPage, findReport, listComponents, listPages, listReports } from './repository.ts'
import {
  ComponentEnvelope, ComponentListEnvelope, ComponentParams, CreateComponentSchema, CreateReportSchema, CreateStatusPageSchema,
  DraftEnvelope, IncidentParams, PageParams, PostReportUpdateSchema, ReportEnvelope, ReportListEnvelope, ReportListQuery, ReportParams,
  StatusPageEnvelope, StatusPageListEnvelope, UpdateComponentSchema, UpdateReportSchema, UpdateStatusPageSchema,
} from './schema.ts'
import {
  addComponent, changeComponent, changePage, changeReport, createPage, createReport, draftReport, postUpdate, removeComponent,
  removePage, removeReport, type Publisher,
} from './service.ts'
import type { PageSnapshots } from './snapshots.ts'

const NOT_FOUND = { page: 'Status page not found', component: 'Component not found', report: 'Status report not found', incident: 'Incident not found' } as const
const notFound = (what: keyof typeof NOT_FOUND) => new HttpError(404, NOT_FOUND[what])

function errorsOf (what: keyof typeof NOT_FOUND, ...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, `No such ${what} of the caller's organization`, NOT_FOUND[what])
  return responses
}

const TAKEN = errorResponse(409, 'The slug or custom domain is another status page\'s', 'slug "acme" is taken by another status page')
const deleted = Type.Null({ description: 'Deleted; no body' })
const locationHeader = (example: string) => ({ location: Type.String({ description: 'The path of the new resource', examples: [example] }) })

/** `dnsServers`: the resolvers a custom domain's TXT record is asked of (DNS_SERVERS); unset, the system's. */
interface StatusPageRoutesOptions { snapshots: PageSnapshots, customDomains: CustomDomainHosts, dnsServers?: string[] }

const statusPageRoutes: FastifyPluginAsyncTypebox<StatusPageRoutesOptions> = async (app, { snapshots, customDomains, dnsServers }) => {
  const publisherOf = (request: FastifyRequest): Publisher => ({ orgId: confirmedOrg(request), audit: keyAudit(request) })
  // This process's public pages of the organization are rebuilt at their next request; other processes hear the database.
  // Before the answer leaves: a client that sends the new domain as Host right after it must find it routed.
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'GET' || reply.statusCode >= 400) return
    snapshots.changed(confirmedOrg(request))
    if (request.url.startsWith('/api/v1/status-pages')) await customDomains.refresh().catch((err: unknown) => request.log.warn({ err }, 'custom domains not read'))
  })

  app.get('/status-pages', {
    schema: {
      tags: ['status pages'],
      summary: 'List status pages',
      description: 'The organization\'s status pages, newest first.',
      operationId: 'listStatusPages',
      response: { 200: StatusPageListEnvelope, ...errorsOf('page') },
    },
    config: { role: 'viewer' },
  }, async (request) => ({ data: (await listPages(app.db, confirmedOrg(request))).map(presentPage) }))

  app.post('/status-pages', {
    schema: {
      tags: ['status pages'],
      summary: 'Create a status page',
      description: 'A page answers at `/status/{slug}` once `published`; until then it is a 404 to everyone. Give it components next.',
      operationId: 'createStatusPage',
      body: Type.Ref(CreateStatusPageSchema),
      response: {
        201: { ...StatusPageEnvelope, headers: locationHeader('/api/v1/status-pages/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d') },
        ...errorsOf('page', 400, 403, 413, 415),
        409: TAKEN,
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const row = await createPage(app.db, publisherOf(request), request.body, app.clock(), customDomains.serverHosts)
    reply.code(201).header('location', `/api/v1/status-pages/${row.id}`)
    return { data: presentPage(row) }
  })

  app.get('/status-pages/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Get a status page',
      description: 'The page; its password is never shown.',
      operationId: 'getStatusPage',
      params: PageParams,
      response: { 200: StatusPageEnvelope, ...errorsOf('page', 400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const row = await findPage(app.db, confirmedOrg(request), request.params.id)
    if (!row) throw notFound('page')
    return { data: presentPage(row) }
  })

  app.patch('/status-pages/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Update a status page',
      description: 'Changes the fields given. A new `custom_domain` is unverified until its TXT record is seen again.',
      operationId: 'updateStatusPage',
      params: PageParams,
      body: Type.Ref(UpdateStatusPageSchema),
      response: { 200: StatusPageEnvelope, ...errorsOf('page', 400, 403, 404, 413, 415), 409: TAKEN },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await changePage(app.db, publisherOf(request), request.params.id, request.body, app.clock(), customDomains.serverHosts)
    if (!row) throw notFound('page')
    return { data: presentPage(row) }
  })

  app.delete('/status-pages/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Delete a status page',
      description: 'Deletes the page and its components; a report shown on no other page is deleted with it.',
      operationId: 'deleteStatusPage',
      params: PageParams,
      response: { 204: deleted, ...errorsOf('page', 400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    if (!await removePage(app.db, publisherOf(request), request.params.id, app.clock())) throw notFound('page')
    return reply.code(204).send(null)
  })

  app.post('/status-pages/:id/verify-domain', {
    schema: {
      tags: ['status pages'],
      summary: 'Verify a status page\'s custom domain',
      description: 'Looks up the TXT records of `_pingward.<custom_domain>` now, through the server\'s resolvers (`DNS_SERVERS`). When ' +
        'one says `domain_txt_record`, the domain is verified and serves the page at `/`; when none does, the answer is 409 with what ' +
        'they say, and a domain verified before is verified no more. Every checker process also looks every minute at unverified ' +
        'domains and once a day at verified ones.',
      operationId: 'verifyStatusPageDomain',
      params: PageParams,
      response: {
        200: { ...StatusPageEnvelope, description: 'The page, its domain verified' },
        ...errorsOf('page', 400, 403, 404, 413, 415),
        409: errorResponse(409, 'The page has no `custom_domain`, or no TXT record of it says `domain_txt_record`: the message says what they say',
          'The TXT records of _pingward.status.acme.example say "v=spf1 -all", not "pingward-verification=Xq3v9mLr2Tz8Wb4Kc6Yd1N"'),
      },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await verifyDomain(app.db, publisherOf(request), request.params.id, dnsServers, app.clock())
    if (!row) throw notFound('page')
    return { data: presentPage(row) }
  })

  app.get('/status-pages/:id/components', {
    schema: {
      tags: ['status pages'],
      summary: 'List a status page\'s components',
      description: 'The page\'s components in their order (`position`, then the oldest first).',
      operationId: 'listStatusPageComponents',
      params: PageParams,
      response: { 200: ComponentListEnvelope, ...errorsOf('page', 400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const page = await findPage(app.db, confirmedOrg(request), request.params.id)
    if (!page) throw notFound('page')
    return { data: (await listComponents(app.db, page.id)).map(presentComponent) }
  })

  app.post('/status-pages/:id/components', {
    schema: {
      tags: ['status pages'],
      summary: 'Add a component to a status page',
      description: 'A component follows one monitor (`monitor_id`), the monitors a `label_selector` matches, or a `manual_status`: ' +
        'exactly one of them. Its status on the page: `under_maintenance` while its monitors are in a window, else the impact of ' +
        'the newest open report that names it, else its monitors\' (`down`: `major_outage`, some of a selector\'s down: ' +
        '`partial_outage`, `degraded`: `degraded_performance`, else `operational`).',
      operationId: 'createStatusPageComponent',
      params: PageParams,
      body: Type.Ref(CreateComponentSchema),
      response: {
        201: { ...ComponentEnvelope, headers: locationHeader('/api/v1/status-pages/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/components/9a4d3f2b-8c1e-4e7b-8c21-5d6f0a1b2c3d') },
        ...errorsOf('page', 400, 403, 404, 413, 415),
        409: errorResponse(409, 'The page holds as many components as it may', 'A status page holds at most 200 components'),
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const row = await addComponent(app.db, publisherOf(request), request.params.id, request.body, app.clock())
    if (!row) throw notFound('page')
    reply.code(201).header('location', `/api/v1/status-pages/${row.pageId}/components/${row.id}`)
    return { data: presentComponent(row) }
  })

  app.get('/status-pages/:id/components/:component_id', {
    schema: {
      tags: ['status pages'],
      summary: 'Get a component',
      description: 'One component of the page.',
      operationId: 'getStatusPageComponent',
      params: ComponentParams,
      response: { 200: ComponentEnvelope, ...errorsOf('component', 400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const page = await findPage(app.db, confirmedOrg(request), request.params.id)
    const row = page && await findComponent(app.db, page.id, request.params.component_id)
    if (!row) throw notFound('component')
    return { data: presentComponent(row) }
  })

  app.patch('/status-pages/:id/components/:component_id', {
    schema: {
      tags: ['status pages'],
      summary: 'Update a component',
      description: 'Changes the fields given; setting one of `monitor_id`, `label_selector` or `manual_status` clears the other two.',
      operationId: 'updateStatusPageComponent',
      params: ComponentParams,
      body: Type.Ref(UpdateComponentSchema),
      response: { 200: ComponentEnvelope, ...errorsOf('component', 400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await changeComponent(app.db, publisherOf(request), request.params.id, request.params.component_id, request.body, app.clock())
    if (!row) throw notFound('component')
    return { data: presentComponent(row) }
  })

  app.delete('/status-pages/:id/components/:component_id', {
    schema: {
      tags: ['status pages'],
      summary: 'Delete a component',
      description: 'Removes it from the page; the reports that named it forget it.',
      operationId: 'deleteStatusPageComponent',
      params: ComponentParams,
      response: { 204: deleted, ...errorsOf('component', 400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    if (!await removeComponent(app.db, publisherOf(request), request.params.id, request.params.component_id, app.clock())) throw notFound('component')
    return reply.code(204).send(null)
  })

  app.get('/status-reports', {
    schema: {
      tags: ['status pages'],
      summary: 'List status reports',
      description: 'The organization\'s reports with their timelines, newest first; `status_page_id` and `open` narrow them. When a page ' +
        'of `limit` is full, the answer carries `Link: <...>; rel="next"`, the URL of the next page (`before` its oldest `created_at`).',
      operationId: 'listStatusReports',
      querystring: ReportListQuery,
      response: {
        200: { ...ReportListEnvelope, headers: nextPageLinkHeader('reports', '/api/v1/status-reports?limit=50&before=2026-11-21T09%3A30%3A00.000Z', 'page full') },
        ...errorsOf('report', 400),
      },
    },
    config: { role: 'viewer' },
  }, async (request, reply) => {
    const { status_page_id: pageId, open, before } = request.query
    const limit = request.query.limit!
    const rows = await listReports(app.db, confirmedOrg(request), { pageId, open, before: before === undefined ? undefined : new Date(before), limit })
    const data = rows.map(presentReport)
    if (data.length === limit) setNextPageLink(reply, '/api/v1/status-reports', { status_page_id: pageId, open, limit, before: data[limit - 1].created_at })
    return { data }
  })

  app.get('/incidents/:id/status-report-draft', {
    schema: {
      tags: ['status pages'],
      summary: 'Draft a status report from an incident',
      description: 'A `POST /status-reports` body filled in from the incident: the components that follow its monitor, their pages, a ' +
        'title, an impact (`major` when down, `minor` when degraded) and a first message. Nothing is stored or published: edit it and send it.',
      operationId: 'draftStatusReport',
      params: IncidentParams,
      response: { 200: DraftEnvelope, ...errorsOf('incident', 400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const draft = await draftReport(app.db, confirmedOrg(request), request.params.id)
    if (!draft) throw notFound('incident')
    return { data: draft }
  })

  app.post('/status-reports', {
    schema: {
      tags: ['status pages'],
      summary: 'Create a status report',
      description: 'Shown at once on its pages (those published); its first update is made of `status` and `message`.',
      operationId: 'createStatusReport',
      body: Type.Ref(CreateReportSchema),
      response: {
        201: { ...ReportEnvelope, headers: locationHeader('/api/v1/status-reports/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d') },
        ...errorsOf('report', 400, 403, 413, 415),
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const row = await createReport(app.db, publisherOf(request), request.body, app.clock())
    reply.code(201).header('location', `/api/v1/status-reports/${row.id}`)
    return { data: presentReport(row) }
  })

  app.get('/status-reports/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Get a status report',
      description: 'The report with its timeline, oldest update first.',
      operationId: 'getStatusReport',
      params: ReportParams,
      response: { 200: ReportEnvelope, ...errorsOf('report', 400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const row = await findReport(app.db, confirmedOrg(request), request.params.id)
    if (!row) throw notFound('report')
    return { data: presentReport(row) }
  })

  app.patch('/status-reports/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Update a status report',
      description: 'Changes its title, impact, pages or components; its status moves by posting an update.',
      operationId: 'updateStatusReport',
      params: ReportParams,
      body: Type.Ref(UpdateReportSchema),
      response: { 200: ReportEnvelope, ...errorsOf('report', 400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await changeReport(app.db, publisherOf(request), request.params.id, request.body, app.clock())
    if (!row) throw notFound('report')
    return { data: presentReport(row) }
  })

  app.delete('/status-reports/:id', {
    schema: {
      tags: ['status pages'],
      summary: 'Delete a status report',
      description: 'Removes the report and its timeline from every page.',
      operationId: 'deleteStatusReport',
      params: ReportParams,
      response: { 204: deleted, ...errorsOf('report', 400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    if (!await removeReport(app.db, publisherOf(request), request.params.id, app.clock())) throw notFound('report')
    return reply.code(204).send(null)
  })

  app.post('/status-reports/:id/updates', {
    schema: {
      tags: ['status pages'],
      summary: 'Post an update to a status report',
      description: 'Adds a step to the timeline; the report takes its status. `resolved` resolves it; another status reopens a resolved one.',
      operationId: 'postStatusReportUpdate',
      params: ReportParams,
      body: Type.Ref(PostReportUpdateSchema),
      response: {
        201: { ...ReportEnvelope, description: 'The report with its new update last', headers: locationHeader('/api/v1/status-reports/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d') },
        ...errorsOf('report', 400, 403, 404, 413, 415),
      },
    },
    config: { role: 'responder' },
  }, async (request, reply) => {
    const row = await postUpdate(app.db, publisherOf(request), request.params.id, request.body, app.clock())
    if (!row) throw notFound('report')
    return reply.code(201).header('location', `/api/v1/status-reports/${row.id}`).send({ data: presentReport(row) })
  })
}

export default statusPageRoutes
