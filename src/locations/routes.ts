// Location routes, HTTP only (api-contract section 17): the built-in locations and the organization's agents, and
// an admin's agent locations made, re-keyed and deleted.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyAudit } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { presentLocation, presentLocationWithToken } from './presenter.ts'
import { findLocation, listLocations } from './repository.ts'
import { CreateLocationSchema, LocationEnvelope, LocationListEnvelope, LocationParams, LocationWithTokenEnvelope } from './schema.ts'
import { createAgentLocation, removeAgentLocation, rotateAgentToken, type LocationAdmin } from './service.ts'

const NOT_FOUND = 'Location not found'
const locationNotFound = () => new HttpError(404, NOT_FOUND)

function locationErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such location: neither a built-in one nor one of the caller\'s organization', NOT_FOUND)
  return responses
}

const builtinRefused = (what: string, example: string) => errorResponse(409, `The location is built in (a checker process): ${what}`, example)

const adminOf = (request: FastifyRequest): LocationAdmin => ({ orgId: confirmedOrg(request), audit: keyAudit(request) })

const locationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/locations', {
    schema: {
      tags: ['locations'],
      summary: 'List locations',
      description: 'Where checks can run from: the installation\'s built-in locations (checker processes, by their ' +
        '`CHECKER_LOCATION`), then the organization\'s agent locations, each by code, with when each was last seen and whether it is online.',
      operationId: 'listLocations',
      response: { 200: LocationListEnvelope, ...locationErrors() },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const now = app.clock()
    return { data: (await listLocations(app.db, confirmedOrg(request))).map((row) => presentLocation(row, now)) }
  })

  app.get('/locations/:code', {
    schema: {
      tags: ['locations'],
      summary: 'Get a location',
      description: 'The organization\'s agent location of that code, else the built-in one.',
      operationId: 'getLocation',
      params: LocationParams,
      response: { 200: LocationEnvelope, ...locationErrors(400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const row = await findLocation(app.db, confirmedOrg(request), request.params.code)
    if (!row) throw locationNotFound()
    return { data: presentLocation(row, app.clock()) }
  })

  app.post('/locations', {
    schema: {
      tags: ['locations'],
      summary: 'Create an agent location',
      description: 'A location of the organization served by a probe agent. The answer carries its `agent_token`, shown this ' +
        'once: the agent sends it as `Authorization: Bearer pwa_...` to the `/agent/` routes.',
      operationId: 'createLocation',
      body: Type.Ref(CreateLocationSchema),
      response: {
        201: {
          ...LocationWithTokenEnvelope,
          headers: { location: Type.String({ description: 'The path of the new location', examples: ['/api/v1/locations/office-berlin'] }) },
        },
        ...locationErrors(400, 403, 413, 415),
        409: errorResponse(409, 'The code is taken: by one of the organization\'s locations, or by a built-in one',
          'The organization has a location office-berlin already: choose another code'),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    const now = app.clock()
    const { row, token } = await createAgentLocation(app.db, adminOf(request), request.body, now)
    reply.code(201).header('location', `/api/v1/locations/${row.code}`)
    return { data: presentLocationWithToken(row, token, now) }
  })

  app.delete('/locations/:code', {
    schema: {
      tags: ['locations'],
      summary: 'Delete an agent location',
      description: 'Its agent\'s token is refused from the next request on. A built-in location cannot be deleted (409): it ' +
        'belongs to the checker processes started with its code.',
      operationId: 'deleteLocation',
      params: LocationParams,
      response: {
        204: Type.Null({ description: 'Deleted; no body' }),
        ...locationErrors(400, 403, 404, 413, 415),
        409: builtinRefused('it cannot be deleted', 'default is a built-in location (a checker process started with CHECKER_LOCATION=default): it cannot be deleted'),
      },
    },
    config: { role: 'admin' },
  }, async (request, reply) => {
    if (!await removeAgentLocation(app.db, adminOf(request), request.params.code, app.clock())) throw locationNotFound()
    return reply.code(204).send(null)
  })

  app.post('/locations/:code/rotate-token', {
    schema: {
      tags: ['locations'],
      summary: 'Rotate an agent location\'s token',
      description: 'A new `agent_token`, shown this once; the old one is refused from the next request on. A built-in ' +
        'location has no token (409).',
      operationId: 'rotateLocationToken',
      params: LocationParams,
      response: {
        200: { ...LocationWithTokenEnvelope, description: 'The agent location with its new token' },
        ...locationErrors(400, 403, 404, 413, 415),
        409: builtinRefused('it has no agent token', 'default is a built-in location (a checker process started with CHECKER_LOCATION=default): it has no agent token'),
      },
    },
    config: { role: 'admin' },
  }, async (request) => {
    const now = app.clock()
    const rotated = await rotateAgentToken(app.db, adminOf(request), request.params.code, now)
    if (!rotated) throw locationNotFound()
    return { data: presentLocationWithToken(rotated.row, rotated.token, now) }
  })
}

export default locationRoutes
