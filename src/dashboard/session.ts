// Dashboard sessions: a random token in an HttpOnly cookie, its SHA-256 stored, and a CSRF token per session.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CookieSerializeOptions } from '@fastify/cookie'
import { HttpError } from '../http/error-catalog.ts'
import {
  createSession, deleteExpiredSessions, deleteSession, findSession, touchSession, type SessionRecord,
} from '../repositories/sessions.ts'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionManager
  }
  interface FastifyRequest {
    /** The signed-in dashboard session, or null (only loaded on dashboard routes). */
    session: SessionRecord | null
  }
}

const SESSION_COOKIE = 'pw_session'
/** Binds the sign-in and setup forms to the browser that loaded them (double submit). */
const ANONYMOUS_CSRF_COOKIE = 'pw_csrf'
export const CSRF_FIELD = '_csrf'
export const SESSION_TTL_MS = 14 * 86_400_000
const TOUCH_RESOLUTION_MS = 60_000

const token = () => randomBytes(32).toString('base64url')
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Every dashboard cookie; 'auto' makes it Secure over https, which behind a TRUST_PROXY proxy is its X-Forwarded-Proto. */
export const COOKIE_OPTIONS: CookieSerializeOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: 'auto' }

function sameToken (a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

interface SessionManager {
  /** Sets request.session from the cookie (null when absent, unknown or expired). */
  load: (request: FastifyRequest) => Promise<void>
  /** Signs the user in: a new session (never a reused id) and its cookie. */
  /** Signs the user in, showing `orgId` (one of theirs) or else their personal organization. */
  start: (reply: FastifyReply, userId: string, orgId?: string) => Promise<void>
  end: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  /** The CSRF token to put in a form: the session's, or before sign-in one bound to a cookie. */
  csrfToken: (request: FastifyRequest, reply: FastifyReply) => string
  /** Throws a 403 unless the form's token matches and the request comes from this origin. */
  checkCsrf: (request: FastifyRequest, submitted: string | undefined) => void
}

/** True when the Origin (else the Referer) names the host the browser used, or when the browser sent neither. */
function sameOrigin (request: FastifyRequest): boolean {
  const source = request.headers.origin ?? request.headers.referer
  if (source === undefined) return true
  try {
    // Both through URL, so that a default port written out (Host: example.com:80) compares equal.
    return new URL(source).origin === new URL(`${request.protocol}://${request.host}`).origin
  } catch {
    return false // "null" (a sandboxed or privacy-redirected form) or garbage
  }
}

export default fp(async (app) => {
  app.decorateRequest('session', null)

  const manager: SessionManager = {
    async load (request) {
      const raw = request.cookies[SESSION_COOKIE]
      if (!raw || raw.length > 100) return
      const now = app.clock()
      const session = await findSession(app.db, sha256(raw), now)
      if (!session) return
      request.session = session
      if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_RESOLUTION_MS) {
        // Not awaited: recording the visit must not slow down or fail the page.
        app.backgroundWrites.track(touchSession(app.db, session.id, now), 'record session use', request.log)
      }
    },

    async start (reply, userId, orgId) {
      const now = app.clock()
      await deleteExpiredSessions(app.db, now)
      const raw = token()
      const expiresAt = new Date(now.getTime() + SESSION_TTL_MS)
      await createSession(app.db, { id: sha256(raw), userId, orgId, csrfToken: token(), now, expiresAt })
      reply.setCookie(SESSION_COOKIE, raw, { ...COOKIE_OPTIONS, maxAge: SESSION_TTL_MS / 1000 })
      reply.clearCookie(ANONYMOUS_CSRF_COOKIE, COOKIE_OPTIONS)
    },

    async end (request, reply) {
      if (request.session) await deleteSession(app.db, request.session.id)
      request.session = null
      reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS)
    },

    csrfToken (request, reply) {
      if (request.session) return request.session.csrfToken
      const existing = request.cookies[ANONYMOUS_CSRF_COOKIE]
      if (existing && /^[\w-]{43}$/.test(existing)) return existing
      const fresh = token()
      reply.setCookie(ANONYMOUS_CSRF_COOKIE, fresh, { ...COOKIE_OPTIONS, maxAge: 86_400 })
      return fresh
    },

    checkCsrf (request, submitted) {
      const expected = request.session
        ? request.session.csrfToken
        : request.cookies[ANONYMOUS_CSRF_COOKIE]
      if (!sameToken(submitted, expected) || !sameOrigin(request)) {
        throw new HttpError(403, 'This form has expired or did not come from this site. Reload the page and try again.')
      }
    },
  }
  app.decorate('sessions', manager)
}, { name: 'session', fastify: '5.x', dependencies: ['db', 'background-writes'] })
