// Sending dashboard pages: the page context of a request, HTML replies, safe redirects. (A large page, the
// monitors page of a big fleet, is gzipped by @fastify/compress when the browser accepts it: plugin.ts.)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SafeHtml } from './html.ts'
import type { PageContext } from './pages/layout.ts'

export function pageContext (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): PageContext {
  return {
    email: request.session?.email ?? null,
    csrfToken: app.sessions.csrfToken(request, reply),
    now: app.clock(),
  }
}

/** Sends the page as HTML. */
export function sendPage (reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value)
}

/**
 * A path on this site to go back to after a form, or the fallback: never another origin (no open redirect),
 * and always a valid Location header. Browsers send `next`/`back` percent-encoded already, so any other
 * character (non-ASCII, DEL, U+2028, a space) is percent-encoded as UTF-8 here: Node refuses to write a
 * header holding a character outside Latin-1, which was a 500. Control characters and a lone surrogate
 * (which has no UTF-8) give the fallback: browsers drop tabs and newlines, so `/\t/x` would become `//x`.
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
