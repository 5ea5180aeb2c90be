// Dashboard incident pages: one incident with its timeline; Acknowledge and notes for responders and up.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpError } from '../../http/error-catalog.ts'
import { bodyValidator, type FieldError } from '../../http/validation.ts'
import { presentIncidentDetail } from '../../incidents/presenter.ts'
import { deliveriesOf, findIncident, maintenanceStaysOf, notesOf } from '../../incidents/repository.ts'
import { CreateNoteSchema, IncidentParams } from '../../incidents/schema.ts'
import { acknowledgeIncident, addIncidentNote, type Responder } from '../../incidents/service.ts'
import { ConflictError } from '../../domain/errors.ts'
import { incidentPage } from '../pages/incident.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'

const Form = Type.Record(Type.String(), Type.String())
const checkNote = bodyValidator<{ body: string }>(CreateNoteSchema)
const notFound = () => new HttpError(404, 'There is no such incident, or it is not in this organization.')

const dashboardIncidentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const responderOf = (request: FastifyRequest): Responder => ({ orgId: request.session!.orgId, audit: sessionAudit(request) })

  async function render (request: FastifyRequest, reply: FastifyReply, id: string, options: { note?: string, error?: FieldError, notice?: string, status?: number } = {}) {
    const found = await findIncident(app.db, request.session!.orgId, id)
    if (!found) throw notFound()
    const [deliveries, notes, stays] = await Promise.all([deliveriesOf(app.db, id), notesOf(app.db, id), maintenanceStaysOf(app.db, found.incident)])
    const page = incidentPage(pageContext(app, request, reply), {
      incident: presentIncidentDetail(found.incident, deliveries, notes, stays),
      monitor: { id: found.monitor.id, name: found.monitor.name },
      note: options.note ?? '',
      error: options.error ?? null,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  app.get('/incidents/:id', {
    config: { role: 'viewer' },
    schema: { hide: true, params: IncidentParams, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
  }, async (request, reply) => render(request, reply, request.params.id, { notice: request.query.notice }))

  app.post('/incidents/:id/acknowledge', { config: { role: 'responder' }, schema: { hide: true, params: IncidentParams, body: Form } }, async (request, reply) => {
    try {
      if (!await acknowledgeIncident(app.db, responderOf(request), request.params.id, undefined, app.clock())) throw notFound()
    } catch (err) {
      if (err instanceof ConflictError) return render(request, reply, request.params.id, { status: 409, notice: 'incident-resolved' })
      throw err
    }
    return seeOther(reply, `/incidents/${request.params.id}?notice=incident-acknowledged`)
  })

  app.post('/incidents/:id/notes', { config: { role: 'responder' }, schema: { hide: true, params: IncidentParams, body: Form } }, async (request, reply) => {
    const input = checkNote({ body: request.body.body ?? '' })
    if (!input.ok) return render(request, reply, request.params.id, { note: request.body.body, error: input.error, status: 400 })
    if (!await addIncidentNote(app.db, responderOf(request), request.params.id, input.value.body, app.clock())) throw notFound()
    return seeOther(reply, `/incidents/${request.params.id}?notice=note-added`)
  })
}

export default dashboardIncidentRoutes
