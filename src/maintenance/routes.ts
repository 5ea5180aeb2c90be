// Maintenance window routes, HTTP only (api-contract section 14): the organization's windows, and starting or ending
// an occurrence now, for deploy scripts.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyAudit } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { presentWindow } from './presenter.ts'
import { findWindow, listWindows } from './repository.ts'
import {
  CreateMaintenanceWindowSchema, MaintenanceWindowEnvelope, MaintenanceWindowListEnvelope, MaintenanceWindowParams, StartMaintenanceSchema,
  UpdateMaintenanceWindowSchema,
} from './schema.ts'
import { changeWindow, createWindow, endWindow, removeWindow, startWindow, type Maintainer } from './service.ts'

const NOT_FOUND = 'Maintenance window not found'
const windowNotFound = () => new HttpError(404, NOT_FOUND)

function windowErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such maintenance window of the caller\'s organization', NOT_FOUND)
  return responses
}

const maintainerOf = (request: FastifyRequest): Maintainer => ({ orgId: confirmedOrg(request), audit: keyAudit(request) })

const maintenanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/maintenance-windows', {
    schema: {
      tags: ['maintenance'],
      summary: 'List maintenance windows',
      description: 'The organization\'s maintenance windows, the next to start first, then those with no occurrence left.',
      operationId: 'listMaintenanceWindows',
      response: { 200: MaintenanceWindowListEnvelope, ...windowErrors() },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    return { data: (await listWindows(app.db, confirmedOrg(request))).map(presentWindow) }
  })

  app.post('/maintenance-windows', {
    schema: {
      tags: ['maintenance'],
      summary: 'Create a maintenance window',
      description: 'A one-off window (`rrule` null) or a recurring one. Without `starts_at` it starts now, so a deploy script ' +
        'makes and starts one in one call. While an occurrence is under way the monitors it covers are in maintenance: in `mute` ' +
        'mode their checks run and nothing is told; in `pause` mode no checks run. Either way the time counts neither as up nor down.',
      operationId: 'createMaintenanceWindow',
      body: Type.Ref(CreateMaintenanceWindowSchema),
      response: {
        201: {
          ...MaintenanceWindowEnvelope,
          headers: { location: Type.String({ description: 'The path of the new window', examples: ['/api/v1/maintenance-windows/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] }) },
        },
        ...windowErrors(400, 403, 413, 415),
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const row = await createWindow(app.db, maintainerOf(request), request.body, app.clock())
    reply.code(201).header('location', `/api/v1/maintenance-windows/${row.id}`)
    return { data: presentWindow(row) }
  })

  app.get('/maintenance-windows/:id', {
    schema: {
      tags: ['maintenance'],
      summary: 'Get a maintenance window',
      description: 'The window, its state and its occurrence under way or next.',
      operationId: 'getMaintenanceWindow',
      params: MaintenanceWindowParams,
      response: { 200: MaintenanceWindowEnvelope, ...windowErrors(400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const row = await findWindow(app.db, confirmedOrg(request), request.params.id)
    if (!row) throw windowNotFound()
    return { data: presentWindow(row) }
  })

  app.patch('/maintenance-windows/:id', {
    schema: {
      tags: ['maintenance'],
      summary: 'Update a maintenance window',
      description: 'Changes the fields given. A change of `starts_at`, `ends_at`, `rrule` or `timezone` recomputes the next ' +
        'occurrence (one under way that no longer holds now ends now); `state: cancelled` turns the window off, `scheduled` back on.',
      operationId: 'updateMaintenanceWindow',
      params: MaintenanceWindowParams,
      body: Type.Ref(UpdateMaintenanceWindowSchema),
      response: { 200: MaintenanceWindowEnvelope, ...windowErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await changeWindow(app.db, maintainerOf(request), request.params.id, request.body, app.clock())
    if (!row) throw windowNotFound()
    return { data: presentWindow(row) }
  })

  app.delete('/maintenance-windows/:id', {
    schema: {
      tags: ['maintenance'],
      summary: 'Delete a maintenance window',
      description: 'An occurrence under way ends first (`maintenance.ended` is sent).',
      operationId: 'deleteMaintenanceWindow',
      params: MaintenanceWindowParams,
      response: { 204: Type.Null({ description: 'Deleted; no body' }), ...windowErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    if (!await removeWindow(app.db, maintainerOf(request), request.params.id, app.clock())) throw windowNotFound()
    return reply.code(204).send(null)
  })

  app.post('/maintenance-windows/:id/start', {
    schema: {
      tags: ['maintenance'],
      summary: 'Start a maintenance window now',
      description: 'Begins an occurrence now, lasting `duration_minutes` (or as long as the first occurrence); on a window ' +
        'under way, sets its end that far from now. A recurring window\'s rule goes on after it. Send `{}` for the default length.',
      operationId: 'startMaintenanceWindow',
      params: MaintenanceWindowParams,
      body: Type.Ref(StartMaintenanceSchema),
      response: {
        200: MaintenanceWindowEnvelope,
        ...windowErrors(400, 403, 404, 413, 415),
        409: errorResponse(409, 'The window is cancelled', 'The window is cancelled: set its state to scheduled before starting it'),
      },
    },
    config: { role: 'responder' },
  }, async (request) => {
    const row = await startWindow(app.db, maintainerOf(request), request.params.id, request.body.duration_minutes, app.clock())
    if (!row) throw windowNotFound()
    return { data: presentWindow(row) }
  })

  app.post('/maintenance-windows/:id/end', {
    schema: {
      tags: ['maintenance'],
      summary: 'End a maintenance window now',
      description: 'Ends the occurrence under way now: its monitors leave maintenance, and an incident that opened inside and is ' +
        'still open is told then. A recurring window goes on to its next occurrence.',
      operationId: 'endMaintenanceWindow',
      params: MaintenanceWindowParams,
      response: {
        200: MaintenanceWindowEnvelope,
        ...windowErrors(400, 403, 404, 413, 415),
        409: errorResponse(409, 'No occurrence of the window is under way', 'The window is not under way: there is nothing to end'),
      },
    },
    config: { role: 'responder' },
  }, async (request) => {
    const row = await endWindow(app.db, maintainerOf(request), request.params.id, app.clock())
    if (!row) throw windowNotFound()
    return { data: presentWindow(row) }
  })
}

export default maintenanceRoutes
