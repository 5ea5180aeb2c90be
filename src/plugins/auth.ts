// API key authentication: every request's Bearer key is resolved once (onRequest, so the rate limit can
// count per key); `app.requireApiKey` then refuses requests without a valid key (401) or with too little
// scope (403). Keys seen valid are remembered, but a remembered key is never trusted alone: see below.
import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { ApiKeyGoneError } from '../domain/errors.ts'
import { HttpError } from '../http/error-catalog.ts'
import { isWellFormedKey } from '../auth/keys.ts'
import { findActiveKey, lastUseIsStale, touchApiKey, type ApiKeyPrincipal } from '../repositories/api-keys.ts'
import type { Owner } from '../repositories/owner.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The valid API key of the request, or null. */
    principal: ApiKeyPrincipal | null
    /** True once the key was found in the database during this request. */
    keyConfirmed: boolean
  }
  interface FastifyInstance {
    /** A preParsing hook for the API routes: runs after the rate limit, before the body is read. */
    requireApiKey: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyContextConfig {
    /**
     * Every read of the route goes through ownerOf(request), whose statements check that the key still
     * exists: the route needs no separate lookup of a remembered key.
     */
    keyCheckedByQuery?: boolean
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
// Enough for every key of a large deployment; past it the oldest entry goes (a lookup brings it back).
const REMEMBERED_KEYS_MAX = 10_000
const bearerKey = (request: FastifyRequest) => /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1]

export default fp(async (app) => {
  /**
   * Keys found valid, by key. A key's user, scope and expiry never change; only its deletion does, which
   * a remembered key cannot see. So a remembered key decides the rate-limit bucket and the scope, and
   * a route uses it only when its statements check the key themselves (keyCheckedByQuery, ownerOf):
   * every other route looks the key up again first. A deleted key is refused on its very next request.
   */
  const remembered = new Map<string, ApiKeyPrincipal>()

  async function lookUp (key: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
    const principal = await findActiveKey(app.db, key, now)
    if (!principal) {
      remembered.delete(key)
      return undefined
    }
    if (remembered.size >= REMEMBERED_KEYS_MAX) remembered.delete(remembered.keys().next().value!)
    remembered.set(key, principal)
    return principal
  }

  app.decorateRequest('principal', null)
  app.decorateRequest('keyConfirmed', false)

  function accept (request: FastifyRequest, principal: ApiKeyPrincipal, now: Date): void {
    request.principal = principal
    if (lastUseIsStale(principal, now)) {
      principal.lastUsedAt = now
      // Not awaited: recording the last use must not slow down or fail the request.
      app.backgroundWrites.track(touchApiKey(app.db, principal.keyId, now), 'record key use', request.log)
    }
  }

  // Callback style: a remembered key (nearly every request) is resolved without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const key = bearerKey(request)
    // Routes that need no key and are not rate limited (/healthz, /readyz) must not depend on the database.
    if (!key || request.routeOptions.config?.rateLimit === false) return done()
    const now = app.clock()
    const principal = remembered.get(key)
    if (principal) {
      if (principal.expiresAt && principal.expiresAt <= now) remembered.delete(key)
      else accept(request, principal, now)
      return done()
    }
    // Keys whose checksum fails are refused without a database round trip.
    if (!isWellFormedKey(key)) return done()
    lookUp(key, now).then((found) => {
      if (found) {
        request.keyConfirmed = true
        accept(request, found, now)
      }
      done()
    }, done)
  })

  app.decorate('requireApiKey', async (request: FastifyRequest) => {
    if (!request.principal) throw new HttpError(401)
    if (!request.keyConfirmed && !request.routeOptions.config.keyCheckedByQuery) {
      if (!await lookUp(bearerKey(request)!, app.clock())) throw new HttpError(401)
      request.keyConfirmed = true
    }
    if (request.principal.scope !== 'write' && !READ_METHODS.has(request.method)) {
      throw new HttpError(403)
    }
  })

  // A read found the key deleted: forget it, so that its next request is refused before any read.
  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof ApiKeyGoneError) remembered.delete(bearerKey(request)!)
  })
}, { name: 'auth', fastify: '5.x', dependencies: ['db', 'background-writes'] })

/** The id of the user whose key made the request (only on routes behind requireApiKey). */
export function callerId (request: FastifyRequest): string {
  return request.principal!.userId
}

/** The owner to pass to reads on keyCheckedByQuery routes: the request's key, checked by the statement. */
export function ownerOf (request: FastifyRequest): Owner {
  return { keyId: request.principal!.keyId }
}
