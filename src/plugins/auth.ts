// API key authentication: the Bearer key is resolved on request, so the rate limit counts per key, and
// `app.requireApiKey` refuses a missing or invalid key (401) or a key whose power is below the route's role (403).
import fp from 'fastify-plugin'
import type { FastifyRequest, RouteOptions } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { AuditContext } from '../domain/audit.ts'
import { ApiKeyGoneError } from '../domain/errors.ts'
import { includesRole } from '../domain/roles.ts'
import type { Role } from '../domain/vocabulary.ts'
import { HttpError } from '../http/error-catalog.ts'
import { isWellFormedKey } from '../auth/keys.ts'
import { findActiveKey, lastUseIsStale, touchApiKey, type ApiKeyPrincipal } from '../repositories/api-keys.ts'
import type { KeyOwner } from '../repositories/owner.ts'

/** What a route may know of the request's key: not its organization, which only confirmedOrg() gives. */
type RequestKey = Pick<ApiKeyPrincipal, 'keyId' | 'scope' | 'role'>

// The key as found in the database during this request (see confirmedOrg); null until then.
const confirmedKey = Symbol('confirmedKey')

declare module 'fastify' {
  interface FastifyRequest {
    principal: RequestKey | null
    [confirmedKey]: ApiKeyPrincipal | null
  }
  interface FastifyInstance {
    /** A preParsing hook for the API routes: runs after the rate limit, before the body is read. */
    requireApiKey: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyContextConfig {
    /** The least role that may call the route (api-contract section 12); every API route declares one. */
    role?: Role
    /**
     * The route's statements check the key themselves (keyOwner): a remembered key is not looked up again. Only
     * for viewer routes, since a remembered key's role may be older than its maker's last change.
     */
    keyCheckedByQuery?: true
  }
}
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
// Enough for every key of a large deployment; past it the least recently used goes (a lookup brings it back).
const REMEMBERED_KEYS_MAX = 10_000
/** Whether the request carries Authorization more than once (Node keeps only the first in `headers`). */
function hasSeveralAuthorizations (request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders
  let seen = 0
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization' && ++seen > 1) return true
  }
  return false
}
const bearerKey = (request: FastifyRequest) => /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1]

export default fp(async (app) => {
  // Keys found valid. Only a deletion changes a key, which a remembered one cannot see: routes without
  // keyCheckedByQuery look the key up again (test/routes/deleted-key.test.ts).
  const remembered = new LRUCache<string, ApiKeyPrincipal>({ max: REMEMBERED_KEYS_MAX })

  async function lookUp (request: FastifyRequest, key: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
    const principal = await findActiveKey(app.db, key, now)
    if (!principal) {
      remembered.delete(key)
      return undefined
    }
    remembered.set(key, principal)
    request[confirmedKey] = principal
    return principal
  }

  app.decorateRequest('principal', null)
  app.decorateRequest(confirmedKey, null)

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
    // Two keys are ambiguous: answering with either one would guess which the client meant.
    if (request.headers.authorization !== undefined && hasSeveralAuthorizations(request)) {
      return done(new HttpError(400, 'Bad request: more than one Authorization header'))
    }
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
    lookUp(request, key, now).then((found) => {
      if (found) accept(request, found, now)
      done()
    }, done)
  })

  app.decorate('requireApiKey', async (request: FastifyRequest) => {
    if (!request.principal) throw new HttpError(401)
    const { role, keyCheckedByQuery } = request.routeOptions.config
    if (request[confirmedKey] === null && !keyCheckedByQuery) {
      const found = await lookUp(request, bearerKey(request)!, app.clock())
      if (!found) throw new HttpError(401)
      request.principal = found
    }
    // assertRouteRole refuses such a route when the API's routes are registered; this catches one added elsewhere.
    if (role === undefined) throw new Error(`${request.routeOptions.method} ${request.routeOptions.url} declares no role`)
    // A read key changes nothing, not even what a viewer may change for itself (accepting an invitation).
    if (!includesRole(request.principal.role, role) || (request.principal.scope !== 'write' && !READ_METHODS.has(request.method))) {
      throw new HttpError(403)
    }
  })

  // A read found the key deleted: forget it, so that its next request is refused before any read.
  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof ApiKeyGoneError) remembered.delete(bearerKey(request)!)
  })
}, { name: 'auth', fastify: '5.x', dependencies: ['db', 'background-writes'] })

type RouteRequest<Config> = FastifyRequest & { routeOptions: { config: Config } }

/** The owner for a keyCheckedByQuery route, whose statements check the key themselves; a compile error elsewhere. */
export function keyOwner (request: RouteRequest<{ keyCheckedByQuery: true }>): KeyOwner {
  if (request.routeOptions.config.keyCheckedByQuery !== true) {
    throw new Error(`keyOwner() on ${request.routeOptions.method} ${request.routeOptions.url}, which is not keyCheckedByQuery`)
  }
  return { keyId: request.principal!.keyId }
}

/** The error a keyCheckedByQuery route gets for calling confirmedOrg(). */
type NotOnKeyCheckedRoutes<Config> = Config extends { keyCheckedByQuery: true }
  ? { 'a keyCheckedByQuery route works through keyOwner(request), never the caller\'s organization id': never }
  : unknown

/** The request key's organization, confirmed in the database in this request; a compile error on keyCheckedByQuery routes. */
export function confirmedOrg<Config> (request: RouteRequest<Config> & NotOnKeyCheckedRoutes<Config>): string {
  return confirmedKeyOf(request).orgId
}

/** The request's key as found in the database in this request: its organization, maker and role. */
export function confirmedKeyOf<Config> (request: RouteRequest<Config> & NotOnKeyCheckedRoutes<Config>): ApiKeyPrincipal {
  const key = request[confirmedKey]
  // The first check fails on every request, not only on those whose key happens to be remembered.
  if (request.routeOptions.config.keyCheckedByQuery || key === null) {
    throw new Error(`confirmedOrg() on ${request.routeOptions.method} ${request.routeOptions.url}, whose key is not confirmed`)
  }
  return key
}

/** The audit log's actor of a change made with the request's confirmed key, and the request. */
export function keyAudit<Config> (request: RouteRequest<Config> & NotOnKeyCheckedRoutes<Config>): AuditContext {
  const key = confirmedKeyOf(request)
  return { actor: { type: 'api_key', id: key.keyId, label: key.label }, requestId: request.id, ip: request.ip }
}

/**
 * An onRoute hook for the API's scope: every route declares its role, and a route whose statements check the key
 * (keyCheckedByQuery) is a viewer's, so that no role older than the request decides a change.
 */
export function assertRouteRole (route: RouteOptions): void {
  const { role, keyCheckedByQuery } = route.config ?? {}
  const name = `${String(route.method)} ${route.url}`
  if (role === undefined) throw new Error(`${name} declares no role (config.role)`)
  if (keyCheckedByQuery && role !== 'viewer') throw new Error(`${name} is keyCheckedByQuery with role ${role}: only viewer routes may be`)
}
