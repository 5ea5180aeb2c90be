// Sending dashboard pages: the page context of a request, HTML replies, safe redirects.
import type { AuditContext } from '../domain/audit.ts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SafeHtml } from '../http/html.ts'
import type { PageContext } from './pages/layout.ts'

export function pageContext (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): PageContext {
  const session = request.session
  return {
    email: session?.email ?? null,
    organization: session ? { id: session.orgId, role: session.role } : null,
    organizations: session?.organizations ?? [],
    csrfToken: app.sessions.csrfToken(request, reply),
    now: app.clock(),
  }
}

/** The audit log's actor of a change made in the dashboard: the signed-in member, and the request. */
export function sessionAudit (request: FastifyRequest): AuditContext {
  const session = request.session!
  return { actor: { type: 'user', id: session.userId, label: session.email }, requestId: request.id, ip: request.ip }
}

export function sendPage (reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value)
}

/**
 * A path on this site to return to, else the fallback. Non-ASCII is percent-encoded, as Node refuses a header outside
 * Latin-1; control characters give the fallback, as browsers drop tabs and newlines (`/\t/x` would become `//x`).
 */
export function localPath (value: string | undefined, fallback = '/'): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (!value || value.length > 2000 || !/^\/(?![/\\])/.test(value) || /[\u0000-\u001f\\]/.test(value)) return fallback
  try {
    return value.replace(/[^\x21-\x7e]/gu, encodeURIComponent)
  } catch { // URIError: a lone surrogate
    return fallback
  }
}

/** 303 See Other: after a POST the browser loads the target with GET. */
export function seeOther (reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303)
}
