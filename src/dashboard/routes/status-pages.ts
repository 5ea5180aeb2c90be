// Dashboard status pages and reports through the feature's service and presenters: viewers read, responders post updates, editors the rest.
// A page's custom domain is refused, verified and routed as the API's is.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ConflictError, LimitReachedError } from '../../domain/errors.ts'
import { includesRole } from '../../domain/roles.ts'
import { HttpError } from '../../http/error-catalog.ts'
import type { Validated } from '../../http/validation.ts'
import { listMonitors } from '../../monitors/repository.ts'
import { Uuid } from '../../schemas/common.ts'
import type { CustomDomainHosts } from '../../status-pages/domain-hosts.ts'
import type { PageSnapshots } from '../../status-pages/snapshots.ts'
import { verifyDomain } from '../../status-pages/domains.ts'
import { presentComponent, presentPage, presentReport } from '../../status-pages/presenter.ts'
import { findPage, listComponents, listPages, listReports } from '../../status-pages/repository.ts'
import { ComponentParams, PageParams, ReportParams, type ReportDraft } from '../../status-pages/schema.ts'
import {
  addComponent, changeComponent, changePage, changeReport, createPage, createReport, draftReport, PageValueTakenError, postUpdate,
  removeComponent, removePage, removeReport, type Publisher,
} from '../../status-pages/service.ts'
import { countSubscribers } from '../../status-pages/subscriber-repository.ts'
import {
  parseChangeReport, parseComponentStatus, parseCreatePage, parseCreateReport, parseNewComponent, parsePageSettings, parseReportUpdate,
  refusal, reportComponentFieldName, reportPageFieldName, type FormFields,
} from '../form-input.ts'
import { statusPagePage } from '../pages/status-page.ts'
import { statusPagesPage, type SentForm } from '../pages/status-pages.ts'
import { statusReportsPage } from '../pages/status-reports.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'

const Form = Type.Record(Type.String(), Type.String())
const Notice = Type.Optional(Type.String({ maxLength: 40 }))
/** How many open and resolved reports the reports page lists, newest first. */
const SHOWN = { open: 100, resolved: 20 }
const NOT_FOUND = {
  page: 'There is no such status page, or it is not in this organization.',
  component: 'There is no such component on this status page.',
  report: 'There is no such status report, or it is not in this organization.',
  incident: 'There is no such incident, or it is not in this organization.',
} as const
const notFound = (what: keyof typeof NOT_FOUND) => new HttpError(404, NOT_FOUND[what])

/** A report draft as the report form's fields. */
function draftValues (draft: ReportDraft): FormFields {
  const ticked = [...draft.status_page_ids.map(reportPageFieldName), ...draft.component_ids.map(reportComponentFieldName)]
  return { title: draft.title, status: draft.status, impact: draft.impact, message: draft.message, ...Object.fromEntries(ticked.map((name) => [name, 'on'])) }
}

interface Shown { sent?: SentForm, notice?: string, status?: number }

/**
 * `customDomains`: the Host router's domains and the server's own names; `dnsServers`: the resolvers a TXT record is
 * asked of (DNS_SERVERS), unset the system's; `subscriptions`: whether pages take subscribers (SMTP_URL is set).
 */
interface StatusPageOptions { customDomains: CustomDomainHosts, snapshots: PageSnapshots, dnsServers?: string[], subscriptions: boolean }

const dashboardStatusPageRoutes: FastifyPluginAsyncTypebox<StatusPageOptions> = async (app, { customDomains, snapshots, dnsServers, subscriptions }) => {
  const publisherOf = (request: FastifyRequest): Publisher => ({ orgId: request.session!.orgId, audit: sessionAudit(request) })
  // As the API's writes: this process's pages of the organization are rebuilt at their next request.
  app.addHook('onSend', async (request, reply) => {
    if (request.method !== 'GET' && reply.statusCode < 400 && request.session) snapshots.changed(request.session.orgId)
  })
  // A domain set, changed or freed here routes at once, not at the next periodic read; the write stands if the read fails.
  const domainsChanged = (request: FastifyRequest) =>
    customDomains.refresh().catch((err: unknown) => request.log.warn({ err }, 'custom domains not read'))

  async function renderList (request: FastifyRequest, reply: FastifyReply, options: Shown = {}) {
    const pages = await listPages(app.db, request.session!.orgId)
    const page = statusPagesPage(pageContext(app, request, reply), { pages: pages.map(presentPage), sent: options.sent, notice: options.notice })
    return sendPage(reply, page, options.status)
  }

  async function renderPage (request: FastifyRequest, reply: FastifyReply, id: string, options: Shown = {}) {
    const orgId = request.session!.orgId
    const row = await findPage(app.db, orgId, id)
    if (!row) throw notFound('page')
    const [components, monitors, subscribers] = await Promise.all([
      listComponents(app.db, row.id), listMonitors(app.db, { orgId }), countSubscribers(app.db, row.id),
    ])
    const page = statusPagePage(pageContext(app, request, reply), {
      page: presentPage(row),
      components: components.map(presentComponent),
      monitors,
      subscribers: { ...subscribers, enabled: subscriptions },
      sent: options.sent,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  async function renderReports (request: FastifyRequest, reply: FastifyReply, options: Shown = {}) {
    const orgId = request.session!.orgId
    const [open, resolved, pages] = await Promise.all([
      listReports(app.db, orgId, { open: true, limit: SHOWN.open }), listReports(app.db, orgId, { open: false, limit: SHOWN.resolved }), listPages(app.db, orgId),
    ])
    const components = await Promise.all(pages.map(async (row) => (await listComponents(app.db, row.id)).map((c) => ({ ...presentComponent(c), page_id: row.id }))))
    const page = statusReportsPage(pageContext(app, request, reply), {
      open: open.map(presentReport),
      resolved: resolved.map(presentReport),
      pages: pages.map(presentPage),
      components: components.flat(),
      sent: options.sent,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  /** Runs a checked form's change and goes where it says; a refusal shows the form again, by its field (a limit, a taken slug or domain: 409). */
  async function submit<T> (
    reply: FastifyReply, sent: { form: string, values: FormFields }, input: Validated<T>,
    change: (value: T) => Promise<string>, shown: (sent: SentForm, status: number) => Promise<FastifyReply>
  ) {
    if (!input.ok) return shown({ ...sent, error: input.error }, 400)
    try {
      return seeOther(reply, await change(input.value))
    } catch (err) {
      if (err instanceof PageValueTakenError) return shown({ ...sent, error: { field: err.field, message: `body/${err.message}` } }, 409)
      return shown({ ...sent, error: refusal(err) }, err instanceof LimitReachedError ? 409 : 400)
    }
  }

  app.get('/status-pages', { config: { role: 'viewer' }, schema: { hide: true, querystring: Type.Object({ notice: Notice }) } }, async (request, reply) =>
    renderList(request, reply, { notice: request.query.notice }))

  app.post('/status-pages', { config: { role: 'editor' }, schema: { hide: true, body: Form } }, async (request, reply) =>
    submit(reply, { form: 'new-page', values: request.body }, parseCreatePage(request.body), async (input) => {
      const row = await createPage(app.db, publisherOf(request), input, app.clock(), customDomains.serverHosts)
      await domainsChanged(request)
      return `/status-pages/${row.id}?notice=status-page-created`
    }, (sent, status) => renderList(request, reply, { sent, status })))

  app.get('/status-pages/:id', {
    config: { role: 'viewer' },
    schema: { hide: true, params: PageParams, querystring: Type.Object({ notice: Notice }) },
  }, async (request, reply) => renderPage(request, reply, request.params.id, { notice: request.query.notice }))

  const pageSchema = { hide: true, params: PageParams, body: Form }
  app.post('/status-pages/:id', { config: { role: 'editor' }, schema: pageSchema }, async (request, reply) =>
    submit(reply, { form: 'settings', values: request.body }, parsePageSettings(request.body), async (changes) => {
      if (!await changePage(app.db, publisherOf(request), request.params.id, changes, app.clock(), customDomains.serverHosts)) throw notFound('page')
      await domainsChanged(request)
      return `/status-pages/${request.params.id}?notice=status-page-saved`
    }, (sent, status) => renderPage(request, reply, request.params.id, { sent, status })))

  // What POST /api/v1/status-pages/{id}/verify-domain does; a record not there shows the page again with what the records say.
  app.post('/status-pages/:id/verify-domain', { config: { role: 'editor' }, schema: pageSchema }, async (request, reply) => {
    const { id } = request.params
    try {
      if (!await verifyDomain(app.db, publisherOf(request), id, dnsServers, app.clock())) throw notFound('page')
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err
      return renderPage(request, reply, id, { sent: { form: 'verify-domain', values: {}, error: { field: '', message: err.message } }, status: 409 })
    }
    return seeOther(reply, `/status-pages/${id}?notice=domain-verified`)
  })

  app.post('/status-pages/:id/delete', { config: { role: 'editor' }, schema: pageSchema }, async (request, reply) => {
    if (!await removePage(app.db, publisherOf(request), request.params.id, app.clock())) throw notFound('page')
    await domainsChanged(request)
    return seeOther(reply, '/status-pages?notice=status-page-deleted')
  })

  app.post('/status-pages/:id/components', { config: { role: 'editor' }, schema: pageSchema }, async (request, reply) =>
    submit(reply, { form: 'component', values: request.body }, parseNewComponent(request.body), async (input) => {
      if (!await addComponent(app.db, publisherOf(request), request.params.id, input, app.clock())) throw notFound('page')
      return `/status-pages/${request.params.id}?notice=component-added`
    }, (sent, status) => renderPage(request, reply, request.params.id, { sent, status })))

  const componentSchema = { hide: true, params: ComponentParams, body: Form }
  app.post('/status-pages/:id/components/:component_id', { config: { role: 'editor' }, schema: componentSchema }, async (request, reply) => {
    const { id, component_id: componentId } = request.params
    return submit(reply, { form: `component-${componentId}`, values: request.body }, parseComponentStatus(request.body), async (changes) => {
      if (!await changeComponent(app.db, publisherOf(request), id, componentId, changes, app.clock())) throw notFound('component')
      return `/status-pages/${id}?notice=component-saved`
    }, (sent, status) => renderPage(request, reply, id, { sent, status }))
  })

  app.post('/status-pages/:id/components/:component_id/delete', { config: { role: 'editor' }, schema: componentSchema }, async (request, reply) => {
    const { id, component_id: componentId } = request.params
    if (!await removeComponent(app.db, publisherOf(request), id, componentId, app.clock())) throw notFound('component')
    return seeOther(reply, `/status-pages/${id}?notice=component-deleted`)
  })

  app.get('/status-reports', {
    config: { role: 'viewer' },
    schema: { hide: true, querystring: Type.Object({ notice: Notice, incident: Type.Optional(Uuid('The incident to draft a report from')) }) },
  }, async (request, reply) => {
    const { incident, notice } = request.query
    // The report form is an editor's: only they get it filled in.
    if (incident === undefined || !includesRole(request.session!.role, 'editor')) return renderReports(request, reply, { notice })
    const draft = await draftReport(app.db, request.session!.orgId, incident)
    if (!draft) throw notFound('incident')
    return renderReports(request, reply, { notice, sent: { form: 'report', values: draftValues(draft), error: null } })
  })

  app.post('/status-reports', { config: { role: 'editor' }, schema: { hide: true, body: Form } }, async (request, reply) =>
    submit(reply, { form: 'report', values: request.body }, parseCreateReport(request.body), async (input) => {
      await createReport(app.db, publisherOf(request), input, app.clock())
      return '/status-reports?notice=report-created'
    }, (sent, status) => renderReports(request, reply, { sent, status })))

  const reportSchema = { hide: true, params: ReportParams, body: Form }
  app.post('/status-reports/:id', { config: { role: 'editor' }, schema: reportSchema }, async (request, reply) =>
    submit(reply, { form: `edit-${request.params.id}`, values: request.body }, parseChangeReport(request.body), async (changes) => {
      if (!await changeReport(app.db, publisherOf(request), request.params.id, changes, app.clock())) throw notFound('report')
      return '/status-reports?notice=report-saved'
    }, (sent, status) => renderReports(request, reply, { sent, status })))

  app.post('/status-reports/:id/updates', { config: { role: 'responder' }, schema: reportSchema }, async (request, reply) =>
    submit(reply, { form: `update-${request.params.id}`, values: request.body }, parseReportUpdate(request.body), async (input) => {
      if (!await postUpdate(app.db, publisherOf(request), request.params.id, input, app.clock())) throw notFound('report')
      return '/status-reports?notice=report-updated'
    }, (sent, status) => renderReports(request, reply, { sent, status })))

  app.post('/status-reports/:id/delete', { config: { role: 'editor' }, schema: reportSchema }, async (request, reply) => {
    if (!await removeReport(app.db, publisherOf(request), request.params.id, app.clock())) throw notFound('report')
    return seeOther(reply, '/status-reports?notice=report-deleted')
  })
}

export default dashboardStatusPageRoutes
