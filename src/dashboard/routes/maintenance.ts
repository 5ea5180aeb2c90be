// Dashboard maintenance: the calendar and the windows (viewer), a new window, cancel and delete (editor), start and
// end now (responder), through the API's service and validator.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ConflictError, InvalidInputError } from '../../domain/errors.ts'
import { HttpError, inputErrorMessage } from '../../http/error-catalog.ts'
import type { FieldError } from '../../http/validation.ts'
import { upcomingOccurrences } from '../../maintenance/occurrences.ts'
import { presentWindow } from '../../maintenance/presenter.ts'
import { listWindows } from '../../maintenance/repository.ts'
import { MaintenanceWindowParams } from '../../maintenance/schema.ts'
import { changeWindow, createWindow, endWindow, removeWindow, startWindow, type Maintainer } from '../../maintenance/service.ts'
import { listMonitors } from '../../monitors/repository.ts'
import { parseCreateWindow, type FormFields } from '../form-input.ts'
import { maintenancePage, type Occurrence } from '../pages/maintenance.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'

const Form = Type.Record(Type.String(), Type.String())
const DAY_MS = 86_400_000
/** How far ahead the calendar looks, and the most occurrences of one window it shows. */
const CALENDAR = { days: 30, perWindow: 31 }
const notFound = () => new HttpError(404, 'There is no such maintenance window, or it is not in this organization.')

const dashboardMaintenanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const maintainerOf = (request: FastifyRequest): Maintainer => ({ orgId: request.session!.orgId, audit: sessionAudit(request) })

  async function render (request: FastifyRequest, reply: FastifyReply, options: { values?: FormFields, error?: FieldError, notice?: string, status?: number } = {}) {
    const orgId = request.session!.orgId
    const now = app.clock()
    const [rows, monitors] = await Promise.all([listWindows(app.db, orgId), listMonitors(app.db, { orgId })])
    const until = new Date(now.getTime() + CALENDAR.days * DAY_MS)
    const upcoming: Occurrence[] = []
    for (const row of rows) {
      if (row.cancelledAt !== null || row.nextStartsAt === null || row.nextEndsAt === null) continue
      const window = presentWindow(row)
      upcoming.push({ window, startsAt: row.nextStartsAt, endsAt: row.nextEndsAt })
      const schedule = { startsAt: row.startsAt, endsAt: row.endsAt, rrule: row.rrule, timezone: row.timezone }
      for (const o of upcomingOccurrences(schedule, row.nextEndsAt, CALENDAR.perWindow)) {
        if (o.startsAt > row.nextStartsAt && o.startsAt < until) upcoming.push({ window, ...o })
      }
    }
    upcoming.sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime())
    const page = maintenancePage(pageContext(app, request, reply), {
      windows: rows.map(presentWindow),
      upcoming: upcoming.filter((o) => o.startsAt < until),
      monitors,
      values: options.values ?? {},
      error: options.error ?? null,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  /** Runs a change of one window, then back to the page with `notice`; a 409 says why on the page. */
  async function act (request: FastifyRequest, reply: FastifyReply, change: () => Promise<unknown>, notice: string, refused: string) {
    try {
      if (!await change()) throw notFound()
    } catch (err) {
      if (err instanceof ConflictError) return render(request, reply, { status: 409, notice: refused })
      throw err
    }
    return seeOther(reply, `/maintenance?notice=${notice}`)
  }

  app.get('/maintenance', {
    config: { role: 'viewer' },
    schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
  }, async (request, reply) => render(request, reply, { notice: request.query.notice }))

  app.post('/maintenance', { config: { role: 'editor' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const input = parseCreateWindow(request.body)
    if (!input.ok) return render(request, reply, { values: request.body, error: input.error, status: 400 })
    try {
      await createWindow(app.db, maintainerOf(request), input.value, app.clock())
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err
      return render(request, reply, { values: request.body, error: { field: err.field, message: inputErrorMessage(err) }, status: 400 })
    }
    return seeOther(reply, '/maintenance?notice=window-created')
  })

  const params = { hide: true, params: MaintenanceWindowParams, body: Form }
  app.post('/maintenance/:id/start', { config: { role: 'responder' }, schema: params }, async (request, reply) =>
    act(request, reply, () => startWindow(app.db, maintainerOf(request), request.params.id, undefined, app.clock()), 'window-started', 'window-cancelled-already'))
  app.post('/maintenance/:id/end', { config: { role: 'responder' }, schema: params }, async (request, reply) =>
    act(request, reply, () => endWindow(app.db, maintainerOf(request), request.params.id, app.clock()), 'window-ended', 'window-not-active'))
  app.post('/maintenance/:id/cancel', { config: { role: 'editor' }, schema: params }, async (request, reply) =>
    act(request, reply, () => changeWindow(app.db, maintainerOf(request), request.params.id, { state: 'cancelled' }, app.clock()), 'window-cancelled', 'window-not-active'))
  app.post('/maintenance/:id/delete', { config: { role: 'editor' }, schema: params }, async (request, reply) =>
    act(request, reply, () => removeWindow(app.db, maintainerOf(request), request.params.id, app.clock()), 'window-deleted', 'window-not-active'))
}

export default dashboardMaintenanceRoutes
