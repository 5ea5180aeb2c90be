// Monitor routes: list, read, create, update and soft-delete the caller's monitors.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedCaller, ownedRead } from '../plugins/auth.ts'
import { HttpError } from '../http/error-catalog.ts'
import { assertTargetAllowed } from '../net/target-url.ts'
import { errorResponses } from '../http/error-catalog.ts'
import { MonitorIdParams } from '../schemas/common.ts'
import {
  CreateMonitorSchema, MonitorEnvelope, MonitorListEnvelope, UpdateMonitorSchema, type NewMonitor,
} from '../schemas/monitor.ts'
import { createMonitor, deleteMonitor, findMonitor, listMonitors, updateMonitor } from '../repositories/monitors.ts'

interface MonitorRoutesOptions {
  allowPrivateTargets: boolean
}

export const monitorNotFound = () => new HttpError(404, 'Monitor not found')

const monitorRoutes: FastifyPluginAsyncTypebox<MonitorRoutesOptions> = async (app, { allowPrivateTargets }) => {
  app.get('/monitors', {
    schema: {
      tags: ['monitors'],
      summary: 'List monitors',
      description: 'The caller\'s monitors that are not deleted, newest created first.',
      operationId: 'listMonitors',
      response: { 200: MonitorListEnvelope, ...errorResponses() },
    },
    config: { keyCheckedByQuery: true },
  }, async (request) => ({ data: await listMonitors(app.db, ownedRead(request)) }))

  app.get('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Get a monitor',
      operationId: 'getMonitor',
      params: MonitorIdParams,
      response: { 200: MonitorEnvelope, ...errorResponses(400, 404) },
    },
    config: { keyCheckedByQuery: true },
  }, async (request) => {
    const monitor = await findMonitor(app.db, ownedRead(request), request.params.id)
    if (!monitor) throw monitorNotFound()
    return { data: monitor }
  })

  app.post('/monitors', {
    schema: {
      tags: ['monitors'],
      summary: 'Create a monitor',
      description: 'Answers 201 with the monitor and a `Location` header. Its first check comes within seconds.',
      operationId: 'createMonitor',
      body: CreateMonitorSchema,
      response: {
        201: { ...MonitorEnvelope, description: 'The created monitor' },
        ...errorResponses(400, 403, 413, 415),
      },
    },
  }, async (request, reply) => {
    assertTargetAllowed(request.body.url, allowPrivateTargets)
    // Validation applied the schema's defaults (useDefaults): every field is there.
    const monitor = await createMonitor(app.db, confirmedCaller(request), request.body as NewMonitor, app.clock())
    reply.code(201).header('location', `/api/v1/monitors/${monitor.id}`)
    return { data: monitor }
  })

  app.patch('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Update a monitor',
      description: 'Any subset of the writable fields; `{}` is a no-op. `is_active: false` pauses the monitor and resolves its open incident.',
      operationId: 'updateMonitor',
      params: MonitorIdParams,
      body: UpdateMonitorSchema,
      response: { 200: MonitorEnvelope, ...errorResponses(400, 403, 404, 413, 415) },
    },
  }, async (request) => {
    assertTargetAllowed(request.body.url, allowPrivateTargets)
    const monitor = await updateMonitor(app.db, confirmedCaller(request), request.params.id, request.body, app.clock())
    if (!monitor) throw monitorNotFound()
    return { data: monitor }
  })

  app.delete('/monitors/:id', {
    schema: {
      tags: ['monitors'],
      summary: 'Delete a monitor',
      description: 'Soft-deletes the monitor: it is no longer listed or checked, and every route with its id answers 404.',
      operationId: 'deleteMonitor',
      params: MonitorIdParams,
      response: { 204: Type.Null({ description: 'Deleted; no body' }), ...errorResponses(400, 403, 404, 413, 415) },
    },
  }, async (request, reply) => {
    const deleted = await deleteMonitor(app.db, confirmedCaller(request), request.params.id, app.clock())
    if (!deleted) throw monitorNotFound()
    return reply.code(204).send(null)
  })
}

export default monitorRoutes
