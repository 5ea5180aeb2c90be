// Sending dashboard pages: the page context of a request, HTML replies (gzipped when large), safe redirects.
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SafeHtml } from './html.ts'
import type { PageContext } from './layout.ts'

const gzipAsync = promisify(gzip)
// Below this a page goes as it is: compressing would cost more time than it saves.
const GZIP_FROM_BYTES = 16 * 1024

export function pageContext (app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): PageContext {
  return {
    email: request.session?.email ?? null,
    csrfToken: app.sessions.csrfToken(request, reply),
    now: app.clock(),
  }
}

/** Sends the page as HTML; a large one (the monitors page of a big fleet) gzipped when the browser accepts it. */
export async function sendPage (request: FastifyRequest, reply: FastifyReply, body: SafeHtml, status = 200): Promise<FastifyReply> {
  reply.code(status).type('text/html; charset=utf-8')
  const text = body.value
  if (text.length >= GZIP_FROM_BYTES && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding')
    return reply.send(await gzipAsync(text, { level: 6 }))
  }
  return reply.send(text)
}

/** A path on this site to go back to after a form, or the fallback: never another origin (no open redirect). */
export function localPath (value: string | undefined, fallback = '/'): string {
  if (!value || value.length > 2000 || !/^\/(?![/\\])/.test(value) || /[\u0000-\u001f\\]/.test(value)) return fallback
  return value
}

/** 303 See Other: after a POST the browser loads the target with GET. */
export function seeOther (reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303)
}
