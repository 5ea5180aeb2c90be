// The dashboard at /: server-rendered pages over the API's repositories and rules, for a signed-in user.
// This encapsulated plugin alone parses HTML forms (the API keeps answering 415 to them), loads the session,
// checks CSRF on every POST, sets strict browser headers, and answers errors with HTML pages.
import type { FastifyError, FastifyPluginAsync } from 'fastify'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { clientErrorOf, entryOf, ERROR_CATALOG, HttpError } from '../http/error-catalog.ts'
import { ASSETS } from '../dashboard/assets.ts'
import { errorPage } from '../dashboard/layout.ts'
import { pageContext, seeOther, sendPage } from '../dashboard/respond.ts'
import { CSRF_FIELD } from '../plugins/session.ts'
import dashboardAuthRoutes from './dashboard-auth.ts'
import dashboardKeyRoutes from './dashboard-keys.ts'
import dashboardMonitorRoutes from './dashboard-monitors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A dashboard route open without signing in (sign-in, setup, assets). */
    dashboardPublic?: boolean
  }
}

export interface DashboardOptions {
  allowPrivateTargets: boolean
  adminEmail: string
}

const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  // Pages show keys, monitors and tokens: never kept by a browser or proxy cache.
  'cache-control': 'no-store',
}

const dashboardRoutes: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  // Forms only: a JSON body is no more use here than a form body is to the API.
  app.removeContentTypeParser('application/json')
  // The server's body limit (1 MiB) applies, as to JSON.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })

  app.addHook('onRequest', async (_request, reply) => { reply.headers(PAGE_HEADERS) })
  // After the rate limit and the body, before validation: error pages of a signed-in user keep the navigation.
  app.addHook('preValidation', async (request) => { await app.sessions.load(request) })
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.dashboardPublic && !request.session) {
      const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
      return seeOther(reply, `/sign-in${back}`)
    }
    if (request.method === 'POST') {
      const body = request.body as Record<string, string | undefined> | undefined
      app.sessions.checkCsrf(request, body?.[CSRF_FIELD])
    }
  })

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const known = clientErrorOf(error)
    let status: number
    let message: string
    if (known) {
      status = known.status
      message = known.message ?? entryOf(status).page
    } else if (isDatabaseUnavailable(error)) {
      status = 503
      message = ERROR_CATALOG[503].page
      request.log.warn({ err: error }, 'database unavailable')
    } else {
      status = 500
      message = `${ERROR_CATALOG[500].page} The log has the details under request id ${request.id}.`
      request.log.error({ err: error }, 'request failed')
    }
    return sendPage(request, reply, errorPage(pageContext(app, request, reply), status, message), status)
  })

  app.get<{ Params: { file: string } }>('/assets/:file', {
    schema: { hide: true },
    config: { dashboardPublic: true, rateLimit: false },
  }, async (request, reply) => {
    const asset = ASSETS.get(request.params.file)
    if (!asset) throw new HttpError(404, 'There is no such file.')
    const versioned = (request.query as Record<string, string>).v === asset.version
    return reply.type(asset.type)
      .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('etag', `"${asset.version}"`)
      .send(asset.body)
  })

  await app.register(dashboardAuthRoutes, { adminEmail: options.adminEmail })
  await app.register(dashboardMonitorRoutes, { allowPrivateTargets: options.allowPrivateTargets })
  await app.register(dashboardKeyRoutes)
}

export default dashboardRoutes
