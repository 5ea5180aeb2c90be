// Incident routes, HTTP only: a monitor's incidents, and one incident with its timeline, acknowledged and noted
// by the people who answer it (api-contract section 13).
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyAudit, keyOwner } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { MonitorIdParams, PageQuery } from '../schemas/common.ts'
import { IncidentListEnvelope } from '../schemas/incident.ts'
import { listIncidents, toIncident } from '../repositories/incidents.ts'
import { monitorExists } from '../monitors/repository.ts'
import { monitorNotFound } from '../monitors/routes.ts'
import { presentIncidentDetail, presentNote } from './presenter.ts'
import { deliveriesOf, findIncident, maintenanceStaysOf, notesOf } from './repository.ts'
import { AcknowledgeSchema, CreateNoteSchema, IncidentDetailEnvelope, IncidentEnvelope, IncidentNoteEnvelope, IncidentParams } from './schema.ts'
import { acknowledgeIncident, addIncidentNote, type Responder } from './service.ts'

const EXAMPLE_PATH = '/api/v1/monitors/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/incidents'

const INCIDENT_NOT_FOUND = 'Incident not found'
const incidentNotFound = () => new HttpError(404, INCIDENT_NOT_FOUND)

function incidentErrors (...statuses: Parameters<typeof errorResponses>) {
  return { ...errorResponses(...statuses), 404: errorResponse(404, 'No such incident of a monitor of the caller\'s organization', INCIDENT_NOT_FOUND) }
}

const responderOf = (request: FastifyRequest): Responder => ({ orgId: confirmedOrg(request), audit: keyAudit(request) })

const incidentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/incidents', {
    schema: {
      tags: ['incidents'],
      summary: 'List incidents of a monitor',
      description: 'All incidents of the monitor, newest started first; `limit` and `before` page through them: when a page of ' +
        '`limit` is full, the answer carries `Link: <...>; rel="next"`, the URL of the next page (the same `limit`, `before` its oldest `started_at`).',
      operationId: 'listIncidents',
      params: MonitorIdParams,
      querystring: PageQuery('incidents'),
      response: {
        200: { ...IncidentListEnvelope, headers: nextPageLinkHeader('incidents', `${EXAMPLE_PATH}?limit=20&before=2026-11-21T09%3A30%3A00.000Z`, 'page full') },
        ...errorResponses(400, 404),
      },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request, reply) => {
    const { id } = request.params
    const { limit } = request.query
    if (!await monitorExists(app.db, keyOwner(request), id)) throw monitorNotFound()
    const data = await listIncidents(app.db, id, request.query)
    // Without a limit the list is whole; a full page may have older incidents after it.
    if (limit !== undefined && data.length === limit) {
      setNextPageLink(reply, `/api/v1/monitors/${id}/incidents`, { limit, before: data[limit - 1].started_at })
    }
    return { data }
  })

  app.get('/incidents/:id', {
    schema: {
      tags: ['incidents'],
      summary: 'Get an incident and its timeline',
      description: 'The incident, and what happened to it oldest first: its opening, each delivery that told of it, its ' +
        'acknowledgement, notes, maintenance and its resolution.',
      operationId: 'getIncident',
      params: IncidentParams,
      response: { 200: IncidentDetailEnvelope, ...incidentErrors(400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const found = await findIncident(app.db, confirmedOrg(request), request.params.id)
    if (!found) throw incidentNotFound()
    const [deliveries, notes, stays] = await Promise.all([
      deliveriesOf(app.db, found.incident.id), notesOf(app.db, found.incident.id), maintenanceStaysOf(app.db, found.incident),
    ])
    return { data: presentIncidentDetail(found.incident, deliveries, notes, stays) }
  })

  app.post('/incidents/:id/acknowledge', {
    schema: {
      tags: ['incidents'],
      summary: 'Acknowledge an incident',
      description: 'Says someone is on the open incident: `acknowledged_at` and `acknowledged_by` are set, `incident.acknowledged` ' +
        'goes to the channels that want it, and reminders stop. Acknowledging again answers 200 with the first acknowledgement ' +
        '(a `note` is still added). Send `{}` for no note.',
      operationId: 'acknowledgeIncident',
      params: IncidentParams,
      body: Type.Ref(AcknowledgeSchema),
      response: {
        200: IncidentEnvelope,
        ...incidentErrors(400, 403, 404, 413, 415),
        409: errorResponse(409, 'The incident is resolved: it can take notes, not an acknowledgement', 'The incident is resolved: it takes notes, not an acknowledgement'),
      },
    },
    config: { role: 'responder' },
  }, async (request) => {
    const incident = await acknowledgeIncident(app.db, responderOf(request), request.params.id, request.body.note, app.clock())
    if (!incident) throw incidentNotFound()
    return { data: toIncident(incident) }
  })

  app.post('/incidents/:id/notes', {
    schema: {
      tags: ['incidents'],
      summary: 'Add a note to an incident',
      description: 'Writes a note on the incident\'s timeline, open or resolved.',
      operationId: 'createIncidentNote',
      params: IncidentParams,
      body: Type.Ref(CreateNoteSchema),
      response: {
        201: {
          ...IncidentNoteEnvelope,
          headers: {
            location: Type.String({ description: 'The path of the incident, whose timeline holds the note', examples: ['/api/v1/incidents/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] }),
          },
        },
        ...incidentErrors(400, 403, 404, 413, 415),
      },
    },
    config: { role: 'responder' },
  }, async (request, reply) => {
    const note = await addIncidentNote(app.db, responderOf(request), request.params.id, request.body.body, app.clock())
    if (!note) throw incidentNotFound()
    reply.code(201).header('location', `/api/v1/incidents/${note.incidentId}`)
    return { data: presentNote(note) }
  })
}

export default incidentRoutes
