// The agents' routes (api-contract section 17), under /api/v1/agent/: a location's agent token, never an API key.
// The token is looked up on every request before the body is read (no cache), so a rotated or deleted one is a 401 at once.
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { createHash } from 'node:crypto'
import { pause } from '../runtime/pause.ts'
import { agentSeen, assignmentsOf, recordAgentResults } from './agent-work.ts'
import { presentAssignment, presentHello } from './presenter.ts'
import type { LocationRow } from './repository.ts'
import {
  AgentAssignmentsEnvelope, AgentAssignmentsQuery, AgentHelloEnvelope, AgentHelloSchema, AgentResultsEnvelope, AgentResultsSchema,
} from './schema.ts'
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

/** A delta reaches back this far before its `since`: a change committed just after a read may bear an earlier time. */
const DELTA_OVERLAP_MS = 60_000

const agentRoutes: FastifyPluginAsyncTypebox<{ confirmDelayMs: number }> = async (app, { confirmDelayMs }) => {
  // A closing server answers its long polls at once rather than waiting for them.
  const closing = new AbortController()
  app.addHook('preClose', async () => closing.abort())
  app.decorateRequest('agent', null)

  /** The organization's changes, heard from the change feed: `next` resolves true at the next one, false at the deadline or a close. */
  function orgChanges (orgId: string) {
    let changed = false
    let wake = new AbortController()
    const stop = app.changes.subscribe(orgId, () => {
      changed = true
      wake.abort()
    })
    return {
      stop,
      async next (leftMs: number): Promise<boolean> {
        if (!changed && leftMs > 0 && !closing.signal.aborted) await pause(leftMs, AbortSignal.any([wake.signal, closing.signal]))
        const heard = changed && !closing.signal.aborted
        changed = false
        wake = new AbortController()
        return heard
      },
    }
  }
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

  app.get('/agent/assignments', {
    schema: {
      tags: ['agents'],
      summary: 'List the agent\'s assignments',
      description: 'Every monitor the agent\'s location checks, with what its probe needs. With `If-None-Match` and `wait`, a long ' +
        'poll: the request is held while the assignments are unchanged and answered as soon as they change. With `since`, a delta: ' +
        '`data` holds only the assignments changed since then, `monitor_ids` every one. The `ETag` is that of the whole set either way.',
      operationId: 'agentAssignments',
      security: [{ agentToken: [] }],
      querystring: AgentAssignmentsQuery,
      response: { 200: AgentAssignmentsEnvelope, 304: Type.Null({ description: 'Unchanged: the assignments are those of the `ETag` sent in `If-None-Match`' }), ...agentErrors(400) },
    },
  }, async (request, reply) => {
    const wanted = request.headers['if-none-match']
    const waitUntil = Date.now() + (wanted === undefined ? 0 : request.query.wait * 1000)
    await agentSeen(app.db, request.agent!, app.clock())
    const since = request.query.since === undefined ? undefined : Date.parse(request.query.since) - DELTA_OVERLAP_MS
    // Heard from before the first read, so that no change between a read and the wait goes unnoticed.
    const changes = orgChanges(request.agent!.orgId!)
    try {
      for (let agent = request.agent!; ;) {
        const asOf = app.clock()
        const rows = await assignmentsOf(app.db, agent)
        const assignments = rows.map(presentAssignment)
        const etag = `W/"${createHash('sha256').update(JSON.stringify(assignments)).digest('base64url').slice(0, 22)}"`
        reply.header('etag', etag)
        if (wanted !== etag) {
          const data = since === undefined ? assignments : assignments.filter((_, i) => rows[i].updatedAt.getTime() >= since)
          return { data, monitor_ids: assignments.map((assignment) => assignment.monitor_id), as_of: asOf.toISOString() }
        }
        if (!await changes.next(waitUntil - Date.now())) return reply.code(304).send(null)
        // The token may have been rotated or its location deleted meanwhile: that is a change too.
        const still = await agentOfToken(app.db, bearerToken(request))
        if (!still) throw new HttpError(401)
        agent = still
      }
    } finally {
      changes.stop()
    }
  })

  app.post('/agent/results', {
    schema: {
      tags: ['agents'],
      summary: 'Post a batch of results',
      description: 'Records the agent\'s checks in one transaction. A location\'s check of a slot is recorded once, so a batch sent ' +
        'again (an answer lost on the way) changes nothing. A check older than its location\'s latest, or than the stale time, ' +
        'goes to the history without moving the monitor\'s status.',
      operationId: 'agentResults',
      security: [{ agentToken: [] }],
      body: Type.Ref(AgentResultsSchema),
      response: { 200: AgentResultsEnvelope, ...agentErrors(400, 413, 415) },
    },
  }, async (request) => {
    await agentSeen(app.db, request.agent!, app.clock())
    const receipt = await recordAgentResults(app.db, request.agent!, request.body.results, app.clock(), confirmDelayMs)
    app.metrics?.agentBatch(request.agent!.code, receipt)
    return { data: receipt }
  })
}

export default agentRoutes
