// Dashboard monitor pages: the list, a monitor's page and its forms; a form in error is shown again with what was sent.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpError } from '../../http/error-catalog.ts'
import { LimitReachedError } from '../../domain/errors.ts'
import type { FieldError } from '../../http/validation.ts'
import { parseCreateMonitor, parseUpdateMonitor, refusal, type FormFields } from '../form-input.ts'
import { defaultMonitorValues, monitorValues, valuesSentAgain } from '../pages/monitor-form.ts'
import { editMonitorPage, monitorPage } from '../pages/monitor.ts'
import { monitorsPage } from '../pages/monitors.ts'
import { localPath, pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'
import { failingRuns, recentChecksByMonitor } from '../../repositories/check-stats.ts'
import { monitorUptimeView } from '../uptime-windows.ts'
import { listChecks, MAX_CHECKS_PER_PAGE } from '../../repositories/checks.ts'
import { listIncidents } from '../../repositories/incidents.ts'
import { presentChannel } from '../../notifications/presenter.ts'
import { listChannels as listChannelRows } from '../../notifications/service.ts'
import { listMonitors } from '../../monitors/repository.ts'
import { presentLocation } from '../../locations/presenter.ts'
import { listLocations } from '../../locations/repository.ts'
import { createOwnedMonitor, deleteMonitor, findMonitor, updateMonitor } from '../../monitors/service.ts'
import { MonitorIdParams, Timestamp } from '../../schemas/common.ts'
import { withAbsolutePingUrl } from '../../monitors/presenter.ts'
import { MONITOR_STATUSES, type MonitorStatus } from '../../domain/vocabulary.ts'
import { LABEL_SELECTOR_PATTERN } from '../../domain/labels.ts'
import { StringEnum } from '../../schemas/common.ts'

const INCIDENTS_SHOWN = 50
const listChannels = async (...args: Parameters<typeof listChannelRows>) => (await listChannelRows(...args)).map(presentChannel)

const notFound = () => new HttpError(404, 'There is no such monitor, or it is not yours.')

const ListQuery = Type.Object({
  status: Type.Optional(StringEnum(MONITOR_STATUSES)),
  // The search box sends `search=` when empty: that is no search.
  search: Type.Optional(Type.String({ maxLength: 2048, pattern: '^[^\\u0000]*$' })),
  // Likewise `label=`; anything else is the API's selector rule.
  label: Type.Optional(Type.String({ maxLength: 320, pattern: `^$|${LABEL_SELECTOR_PATTERN}` })),
  notice: Type.Optional(Type.String({ maxLength: 40 })),
})
const MonitorQuery = Type.Object({
  before: Type.Optional(Timestamp('Show checks older than this')),
  notice: Type.Optional(Type.String({ maxLength: 40 })),
})
const Form = Type.Record(Type.String(), Type.String())

interface Options {
  allowPrivateTargets: boolean
  /** PUBLIC_URL: a heartbeat's ping URL starts with it, as in the API's answers. */
  publicUrl: string
  /** MAX_MONITORS_PER_OWNER (0: no limit). */
  maxMonitors: number
}

const dashboardMonitorRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { allowPrivateTargets, publicUrl, maxMonitors }) => {
  const orgOf = (request: { session: { orgId: string } | null }) => request.session!.orgId
  // The locations a monitor may be checked from: the checkers' and the organization's agents'.
  const monitorLocations = async (orgId: string) => {
    const now = app.clock()
    return (await listLocations(app.db, orgId)).map((row) => presentLocation(row, now))
  }

  async function renderList (
    request: FastifyRequest, reply: FastifyReply,
    options: { status?: MonitorStatus, search?: string, label?: string, notice?: string, values?: FormFields, error?: FieldError, code?: number }
  ) {
    const orgId = orgOf(request)
    const search = options.search?.trim() || undefined
    const label = options.label?.trim() || undefined
    // Four queries whatever the fleet's size; the status filter is applied here, since the page counts every status.
    const [monitors, sparks, failing, channels, locations] = await Promise.all([
      listMonitors(app.db, { orgId }, { search, label: label ? [label] : undefined }), recentChecksByMonitor(app.db, orgId), failingRuns(app.db, orgId), listChannels(app.db, orgId),
      monitorLocations(orgId),
    ])
    const page = monitorsPage(pageContext(app, request, reply), {
      monitors,
      sparks,
      failing,
      filter: options.status,
      search,
      label,
      notice: options.notice,
      values: options.values ?? defaultMonitorValues(),
      error: options.error ?? null,
      channels,
      others: search || label ? await listMonitors(app.db, { orgId }) : monitors,
      locations,
    })
    return sendPage(reply, page, options.error ? options.code ?? 400 : 200)
  }

  app.get('/', { config: { role: 'viewer' }, schema: { hide: true, querystring: ListQuery } }, async (request, reply) =>
    renderList(request, reply, { status: request.query.status, search: request.query.search, label: request.query.label, notice: request.query.notice }))

  app.post('/monitors', { config: { role: 'editor' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const result = parseCreateMonitor(request.body)
    if (!result.ok) return renderList(request, reply, { values: valuesSentAgain(request.body, defaultMonitorValues()), error: result.error })
    let monitor
    try {
      monitor = await createOwnedMonitor(app.db, { orgId: orgOf(request) }, result.value, { now: app.clock(), maxMonitors, audit: sessionAudit(request), allowPrivateTargets })
    } catch (err) {
      const code = err instanceof LimitReachedError ? 409 : 400
      return renderList(request, reply, { values: valuesSentAgain(request.body, defaultMonitorValues()), error: refusal(err), code })
    }
    return seeOther(reply, `/monitors/${monitor.id}?notice=${monitor.monitor_type === 'heartbeat' ? 'heartbeat' : 'monitor'}-created`)
  })

  app.get('/monitors/:id', { config: { role: 'viewer' }, schema: { hide: true, params: MonitorIdParams, querystring: MonitorQuery } }, async (request, reply) => {
    const orgId = orgOf(request)
    const monitor = await findMonitor(app.db, { orgId }, request.params.id)
    if (!monitor) throw notFound()
    const { before } = request.query
    const [checks, incidents, uptime, channels, failing, all] = await Promise.all([
      listChecks(app.db, monitor.id, { limit: MAX_CHECKS_PER_PAGE, before }),
      listIncidents(app.db, monitor.id, { limit: INCIDENTS_SHOWN }),
      monitorUptimeView(app.db, orgId, monitor.id, app.clock()),
      listChannels(app.db, orgId),
      failingRuns(app.db, orgId, monitor.id),
      monitor.depends_on.length > 0 ? listMonitors(app.db, { orgId }) : [],
    ])
    const parents = all.filter((other) => monitor.depends_on.includes(other.id))
    const page = monitorPage(pageContext(app, request, reply), {
      monitor: withAbsolutePingUrl(monitor, publicUrl), checks, incidents, uptime, before, pageSize: MAX_CHECKS_PER_PAGE, notice: request.query.notice, channels, failing: failing.get(monitor.id), parents,
    })
    return sendPage(reply, page)
  })

  async function renderEdit (request: FastifyRequest, reply: FastifyReply, id: string, values?: FormFields, error?: FieldError) {
    const orgId = orgOf(request)
    const [monitor, channels, all, locations] = await Promise.all([
      findMonitor(app.db, { orgId }, id), listChannels(app.db, orgId), listMonitors(app.db, { orgId }), monitorLocations(orgId),
    ])
    if (!monitor) throw notFound()
    const page = editMonitorPage(pageContext(app, request, reply), {
      monitor,
      values: values ? valuesSentAgain(values, monitorValues(monitor)) : monitorValues(monitor),
      error: error ?? null,
      channels,
      others: all.filter((other) => other.id !== monitor.id),
      locations,
    })
    return sendPage(reply, page, error ? 400 : 200)
  }

  app.get('/monitors/:id/edit', { config: { role: 'editor' }, schema: { hide: true, params: MonitorIdParams } }, async (request, reply) =>
    renderEdit(request, reply, request.params.id))

  app.post('/monitors/:id/edit', { config: { role: 'editor' }, schema: { hide: true, params: MonitorIdParams, body: Form } }, async (request, reply) => {
    const orgId = orgOf(request)
    const result = parseUpdateMonitor(request.body)
    if (!result.ok) return renderEdit(request, reply, request.params.id, request.body, result.error)
    let monitor
    try {
      monitor = await updateMonitor(app.db, orgId, request.params.id, result.value, { now: app.clock(), audit: sessionAudit(request), allowPrivateTargets })
    } catch (err) {
      return renderEdit(request, reply, request.params.id, request.body, refusal(err))
    }
    if (!monitor) throw notFound()
    return seeOther(reply, `/monitors/${monitor.id}?notice=monitor-saved`)
  })

  for (const [action, isActive] of [['pause', false], ['resume', true]] as const) {
    app.post(`/monitors/:id/${action}`, { config: { role: 'editor' }, schema: { hide: true, params: MonitorIdParams, body: Form } }, async (request, reply) => {
      const monitor = await updateMonitor(app.db, orgOf(request), request.params.id, { is_active: isActive }, { now: app.clock(), audit: sessionAudit(request), allowPrivateTargets })
      if (!monitor) throw notFound()
      const back = localPath(request.body.back)
      return seeOther(reply, `${back}${back.includes('?') ? '&' : '?'}notice=monitor-${action}d`)
    })
  }

  app.post('/monitors/:id/delete', { config: { role: 'editor' }, schema: { hide: true, params: MonitorIdParams, body: Form } }, async (request, reply) => {
    if (!await deleteMonitor(app.db, orgOf(request), request.params.id, app.clock(), sessionAudit(request))) throw notFound()
    return seeOther(reply, '/?notice=monitor-deleted')
  })
}

export default dashboardMonitorRoutes
