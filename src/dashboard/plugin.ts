// The dashboard at /: server-rendered pages for a signed-in user, in one encapsulated context that alone reads
// cookies and HTML forms, checks CSRF and answers errors with HTML pages. The folder's rules: README.md.
import fp from 'fastify-plugin'
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify'
import fastifyCompress from '@fastify/compress'
import fastifyCookie from '@fastify/cookie'
import fastifyFormbody from '@fastify/formbody'
import fastifyHelmet from '@fastify/helmet'
import { includesRole } from '../domain/roles.ts'
import { describeError, HttpError } from '../http/error-catalog.ts'
import { dnsServers, emailConfigured, type Config } from '../runtime/config.ts'
import type { CustomDomainHosts } from '../status-pages/domain-hosts.ts'
import type { PageSnapshots } from '../status-pages/snapshots.ts'
import { ASSETS, type Asset } from './assets.ts'
import { HELMET_OPTIONS, pageHeaders } from './page-headers.ts'
import { errorPage } from './pages/layout.ts'
import { pageContext, seeOther, sendPage } from './respond.ts'
import authRoutes from './routes/auth.ts'
import eventRoutes from './routes/events.ts'
import keyRoutes from './routes/keys.ts'
import monitorRoutes from './routes/monitors.ts'
import notificationRoutes from './routes/notifications.ts'
import organizationRoutes from './routes/organization.ts'
import auditRoutes from './routes/audit-log.ts'
import incidentRoutes from './routes/incidents.ts'
import maintenanceRoutes from './routes/maintenance.ts'
import locationRoutes from './routes/locations.ts'
import statusPageRoutes from './routes/status-pages.ts'
import acknowledgeRoutes from './routes/acknowledge.ts'
import sessionPlugin, { CSRF_FIELD } from './session.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A dashboard route open without signing in (sign-in, setup, assets). */
    dashboardPublic?: boolean
  }
}

interface DashboardOptions {
  allowPrivateTargets: boolean
  /** For notifications: whether email channels can be made, and how Send test sends. */
  config: Config
  /** The Host router's custom domains: status pages refuse the server's own names and refresh it on their writes. */
  customDomains: CustomDomainHosts
  /** The public pages' snapshots: a status page changed here is served changed at its next request. */
  snapshots: PageSnapshots
}

const pages: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  await app.register(fastifyCookie)
  // Forms only; a repeated field keeps its last value (a string, never an array).
  app.removeContentTypeParser('application/json')
  await app.register(fastifyFormbody, { parser: (body) => Object.fromEntries(new URLSearchParams(body)) })
  await app.register(fastifyHelmet, HELMET_OPTIONS)
  app.addHook('onRequest', pageHeaders)
  // A small page goes as it is, since compressing it would cost more time than it saves.
  await app.register(fastifyCompress, { encodings: ['gzip'], threshold: 16 * 1024, globalDecompression: false })

  // Pages show keys, monitors and tokens: never kept by a browser or proxy cache (assets say otherwise).
  app.addHook('onRequest', async (_request, reply) => { reply.header('cache-control', 'no-store') })
  // After the rate limit and the body, before validation: error pages of a signed-in user keep the navigation.
  app.addHook('preValidation', async (request) => { await app.sessions.load(request) })
  // Every page but the public ones declares the least role that may use it, as the API's routes do.
  app.addHook('onRoute', (route) => {
    const { dashboardPublic, role } = route.config ?? {}
    if (!dashboardPublic && role === undefined) throw new Error(`dashboard ${String(route.method)} ${route.url} declares no role (config.role)`)
  })
  app.addHook('preHandler', async (request, reply) => {
    const { dashboardPublic, role } = request.routeOptions.config
    if (!dashboardPublic && !request.session) {
      const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : ''
      return seeOther(reply, `/sign-in${back}`)
    }
    if (!dashboardPublic && !includesRole(request.session!.role, role!)) {
      throw new HttpError(403, `Your role in this organization (${request.session!.role}) does not allow this: it takes ${role} or higher.`)
    }
    if (request.method === 'POST') {
      const body = request.body as Record<string, string | undefined> | undefined
      app.sessions.checkCsrf(request, body?.[CSRF_FIELD])
    }
  })

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const { status, message } = describeError(error, request, 'page')
    return sendPage(reply, errorPage(pageContext(app, request, reply), status, message), status)
  })

  const sendAsset = (reply: FastifyReply, asset: Asset, cacheControl: string) =>
    reply.type(asset.type).header('cache-control', cacheControl).header('etag', `"${asset.version}"`).send(asset.body)
  app.get<{ Params: { file: string } }>('/assets/:file', {
    schema: { hide: true },
    config: { dashboardPublic: true, rateLimit: false },
  }, async (request, reply) => {
    const asset = ASSETS.get(request.params.file)
    if (!asset) throw new HttpError(404, 'There is no such file.')
    const versioned = (request.query as Record<string, string>).v === asset.version
    return sendAsset(reply, asset, versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
  })
  // Browsers ask for it on any page, the API's and /docs included, whatever the page links.
  app.get('/favicon.ico', { schema: { hide: true }, config: { dashboardPublic: true, rateLimit: false } }, async (_request, reply) =>
    sendAsset(reply, ASSETS.get('favicon.ico')!, 'public, max-age=86400'))

  await app.register(authRoutes, { config: options.config })
  await app.register(monitorRoutes, {
    allowPrivateTargets: options.allowPrivateTargets, publicUrl: options.config.PUBLIC_URL, maxMonitors: options.config.MAX_MONITORS_PER_OWNER,
  })
  await app.register(keyRoutes)
  await app.register(notificationRoutes, { config: options.config })
  await app.register(organizationRoutes, { config: options.config })
  await app.register(auditRoutes)
  await app.register(incidentRoutes)
  await app.register(maintenanceRoutes)
  await app.register(locationRoutes)
  await app.register(statusPageRoutes, {
    customDomains: options.customDomains, snapshots: options.snapshots, dnsServers: dnsServers(options.config), subscriptions: emailConfigured(options.config),
  })
  await app.register(acknowledgeRoutes)
  await app.register(eventRoutes)
}

/** The session plugin at the app's level (app.sessions), and the pages in a context of their own. */
export default fp<DashboardOptions>(async (app, options) => {
  await app.register(sessionPlugin)
  await app.register(pages, options)
}, { name: 'dashboard', fastify: '5.x', dependencies: ['db', 'background-writes', 'rate-limit', 'sign-in-throttle', 'changes'] })
