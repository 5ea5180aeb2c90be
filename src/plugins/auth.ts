// API key authentication: every request's Bearer key is resolved once (onRequest, so the rate limit can
// count per key); `requireApiKey` then refuses requests without a valid key (401) or with too little scope (403).
import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { HttpError } from '../errors.ts'
import { isWellFormedKey } from '../keys.ts'
import { findActiveKey, lastUseIsStale, touchApiKey, type ApiKeyPrincipal } from '../repositories/api-keys.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The valid API key of the request, or null. */
    principal: ApiKeyPrincipal | null
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export default fp(async (app) => {
  app.decorateRequest('principal', null)

  app.addHook('onRequest', async (request) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')
    // Keys whose checksum fails are refused without a database round trip.
    if (!match || !isWellFormedKey(match[1])) return
    // Routes that need no key and are not rate limited (/healthz, /readyz) must not depend on the database.
    if (request.routeOptions.config?.rateLimit === false) return
    const now = app.clock()
    const principal = await findActiveKey(app.db, match[1], now)
    if (!principal) return
    request.principal = principal
    if (lastUseIsStale(principal, now)) {
      // Not awaited: recording the last use must not slow down or fail the request.
      touchApiKey(app.db, principal.keyId, now).catch((err) => request.log.warn({ err }, 'could not record key use'))
    }
  })
}, { name: 'auth', fastify: '5.x', dependencies: ['db'] })

/** A preParsing hook for the API routes: runs after the rate limit, before the body is read. */
export async function requireApiKey (request: FastifyRequest): Promise<void> {
  if (!request.principal) throw new HttpError(401, 'Unauthorized')
  if (request.principal.scope !== 'write' && !READ_METHODS.has(request.method)) {
    throw new HttpError(403, 'API key does not have access to this resource')
  }
}

/** The id of the user whose key made the request (only on routes behind requireApiKey). */
export function callerId (request: FastifyRequest): string {
  return request.principal!.userId
}
