// The agents' routes (api-contract section 17), under /api/v1/agent/: a location's agent token, never an API key.
// The token is looked up on every request before the body is read (no cache), so a rotated or deleted one is a 401 at once.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { presentHello } from './presenter.ts'
import type { LocationRow } from './repository.ts'
import { AgentHelloEnvelope, AgentHelloSchema } from './schema.ts'
import { agentOfToken, greetAgent } from './service.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The agent location whose token the request carries; set for every route of this scope before its body is read. */
    agent: LocationRow | null
  }
}

const bearerToken = (request: FastifyRequest) => /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1]

function agentErrors (...statuses: Parameters<typeof errorResponses>) {
  return { ...errorResponses(...statuses), 401: errorResponse(401, 'Missing, unknown, rotated or deleted agent token; an API key is not one (`Unauthorized`)') }
}

const agentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('agent', null)
  app.addHook('preParsing', async (request) => {
    request.agent = await agentOfToken(app.db, bearerToken(request)) ?? null
    if (!request.agent) throw new HttpError(401)
  })

  app.post('/agent/hello', {
    schema: {
      tags: ['agents'],
      summary: 'Say hello as an agent',
      description: 'An agent calls it when it starts and after a lost connection: the server records when it was seen and the ' +
        'version it runs, and answers with its location and the server\'s time, by which the agent schedules.',
      operationId: 'agentHello',
      security: [{ agentToken: [] }],
      body: Type.Ref(AgentHelloSchema),
      response: { 200: AgentHelloEnvelope, ...agentErrors(400, 413, 415) },
    },
  }, async (request) => {
    const now = app.clock()
    const seen = await greetAgent(app.db, request.agent!, request.body.version, now)
    if (!seen) throw new HttpError(401)
    return { data: presentHello(seen, now) }
  })
}

export default agentRoutes
