// The public pages (api-contract section 16), no key: /status/{slug} and its machine-readable twins, answered from
// snapshots (snapshots.ts) with strong ETags, 304s, pre-compressed bodies and a Cache-Control that lets a proxy serve
// stale copies. A `password` page asks for its password and remembers it in a cookie bound to the page's password.
// A custom domain serves the same routes at its root, and nothing else; a TLS proxy asks which domains those are.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { negotiate } from '@fastify/accept-negotiator'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { verifyPassword } from '../auth/passwords.ts'
import { errorResponse, HttpError } from '../http/error-catalog.ts'
import { customDomainOf, ON_CUSTOM_DOMAIN, type CustomDomainHosts } from './domain-hosts.ts'
import { renderHistory, renderNotice, renderPasswordForm } from './public-page.ts'
import type { Artifact, PageKey, PageSnapshots, Snapshot } from './snapshots.ts'
import { loadPastReports, reportPosition } from './view.ts'

const NOT_FOUND = 'Status page not found'
/** Proxies and browsers may keep a copy 30 s, serve it stale a minute while they ask again, and a day while we fail. */
const CACHE_CONTROL = 'public, max-age=30, stale-while-revalidate=60, stale-if-error=86400'
const PAGE_SECURITY = {
  'content-security-policy': 'default-src \'none\'; style-src \'unsafe-inline\'; img-src \'self\' data:; form-action \'self\'; base-uri \'none\'; frame-ancestors \'self\'',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}
const COOKIE_DAYS = 30

const SlugParams = Type.Object({
  slug: Type.String({ maxLength: 63, description: 'The page\'s slug', examples: ['acme'] }),
}, { additionalProperties: false })
const ComponentParams = Type.Object({
  component_id: Type.String({ maxLength: 36, description: 'Id of the component', examples: ['3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] }),
}, { additionalProperties: false })
const ComponentBadgeParams = Type.Object({ ...SlugParams.properties, ...ComponentParams.properties }, { additionalProperties: false })
const DomainQuery = Type.Object({
  domain: Type.String({ maxLength: 253, description: 'The host name a client asked the proxy for', examples: ['status.acme.example'] }),
}, { additionalProperties: false })
const NOT_A_DOMAIN = 'Not a status page\'s domain'
const BEFORE_RULE = 'must be the cursor of an "Older reports" link'
const HistoryQuery = Type.Object({
  before: Type.Optional(Type.String({
    maxLength: 100,
    pattern: '^[A-Za-z0-9_-]+$',
    'x-error-message': BEFORE_RULE,
    description: 'Where the page starts: the `before` of an "Older reports" link (opaque; do not build one). Without it, the last resolved reports.',
  })),
}, { additionalProperties: false })
const HTML = 'text/html; charset=utf-8'

const ok = (type: string, description: string, schema: object = Type.String()) => ({ description, content: { [type]: { schema } } })
const PUBLIC_ERRORS = {
  304: { description: 'The copy named by `If-None-Match` is current: no body', type: 'null' },
  401: errorResponse(401, 'A `password` page, and no cookie of its password', 'Unauthorized'),
  404: errorResponse(404, 'No published page has this slug', NOT_FOUND),
  429: errorResponse(429, 'Too many requests for pages that do not exist from this address', 'Rate limit exceeded'),
  500: errorResponse(500),
  503: errorResponse(503, 'The page was never built and the database cannot be reached', 'Service unavailable'),
}

const FILES = {
  'summary.json': { summary: 'The page as Atlassian Statuspage\'s summary.json', type: 'application/json', description: 'The page in the shape of Atlassian Statuspage\'s `/api/v2/summary.json`: `page`, `status {indicator, description}`, `components` (groups as components with `group: true`), `incidents` (the open reports) and `scheduled_maintenances`, so that widgets and clients made for Statuspage read it. Also at `/status/{slug}/api/v2/summary.json`, where such clients ask.' },
  'history.atom': { summary: 'The page\'s report history as Atom', type: 'application/atom+xml', description: 'The reports of the page\'s history window and their updates, the newest change first: one entry per report.' },
  'maintenance.ics': { summary: 'The page\'s maintenance as iCalendar', type: 'text/calendar', description: 'One event per maintenance window under way or to come (its current or next occurrence), for calendar subscriptions.' },
  'badge.svg': { summary: 'The page\'s status as an SVG badge', type: 'image/svg+xml', description: 'A badge saying the page\'s overall status in words (operational, degraded, partial outage, major outage, maintenance).' },
  'badge.json': { summary: 'The page\'s status as shields.io endpoint JSON', type: 'application/json', description: '`{schemaVersion: 1, label, message, color}` for `https://img.shields.io/endpoint?url=...`.' },
} as const

/** The cookie that opens a password page: a MAC of the page's id keyed by its password's hash, so a new password closes it. */
const passwordCookie = (snapshot: Snapshot) => createHmac('sha256', snapshot.page.passwordHash ?? '').update(snapshot.page.id).digest('base64url')
const cookieName = (snapshot: Snapshot) => `pw_${snapshot.page.id.replaceAll('-', '')}`

export function hasPasswordCookie (request: FastifyRequest, snapshot: Snapshot): boolean {
  const wanted = Buffer.from(`${cookieName(snapshot)}=${passwordCookie(snapshot)}`)
  return (request.headers.cookie ?? '').split(/;\s*/).some((pair) => {
    const given = Buffer.from(pair)
    return given.length === wanted.length && timingSafeEqual(given, wanted)
  })
}

/** Whether the client's copy, named by `If-None-Match`, is the one of `etag`. */
function isCurrent (request: FastifyRequest, etag: string): boolean {
  const wanted = request.headers['if-none-match']
  return wanted !== undefined && wanted.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
}

/** Sends a file of the snapshot: 304 when the client's copy is current, else its best encoding. */
function sendFile (request: FastifyRequest, reply: FastifyReply, file: Artifact, options: { cors?: boolean, page?: boolean, private?: boolean } = {}) {
  const encoding = negotiate(request.headers['accept-encoding'] ?? '', ['br', 'gzip']) as 'br' | 'gzip' | null
  const etag = encoding === null ? file.etag : `${file.etag.slice(0, -1)}-${encoding === 'br' ? 'br' : 'gz'}"`
  reply.header('etag', etag).header('vary', 'accept-encoding').header('cache-control', options.private ? 'private, no-cache' : CACHE_CONTROL)
  if (options.cors) reply.header('access-control-allow-origin', '*')
  if (options.page) reply.headers(PAGE_SECURITY)
  if (isCurrent(request, etag)) return reply.code(304).send()
  reply.type(file.type)
  if (encoding !== null) reply.header('content-encoding', encoding)
  return reply.send(encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.body)
}

/** Where a page is asked for: under /status/{slug} (documented), or at the root of its custom domain (the same routes, hidden). */
interface Entrance {
  /** Where the page's paths start: `/status/:slug`, or the domain's root. */
  prefix: string
  /** What this entrance adds to a route's options: its params (with a component's), or the custom domain's constraint. */
  route (component: boolean): { schema: FastifySchema, constraints?: typeof ON_CUSTOM_DOMAIN }
  /** The page asked for; undefined when the request names none. */
  key (request: FastifyRequest): PageKey | undefined
  /** The page's own path: the password form's target, its cookie's path, where a redirect goes. */
  home (snapshot: Snapshot): string
}

interface PublicRoutesOptions { snapshots: PageSnapshots, customDomains: CustomDomainHosts }

/** Spends one of the address's API budget (its requests per window); past it, a 429. */
export function addressBudget (app: Pick<FastifyInstance, 'createRateLimit'>): (request: FastifyRequest) => Promise<void> {
  const limit = app.createRateLimit()
  return async (request) => {
    const state = await limit(request)
    if (!state.isAllowed && state.isExceeded) throw new HttpError(429)
  }
}

const publicStatusRoutes: FastifyPluginAsyncTypebox<PublicRoutesOptions> = async (app, { snapshots, customDomains }) => {
  // The password form's body, read as text by its own route only; the API's JSON parsers are untouched.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => done(null, body))
  // Unknown slugs spend the address's API budget: a guessing client cannot make a statement per request.
  const spendAddressBudget = addressBudget(app)

  async function snapshotOf (request: FastifyRequest, key: PageKey | undefined): Promise<Snapshot> {
    const snapshot = key && await snapshots.get(key)
    if (snapshot) return snapshot
    await spendAddressBudget(request)
    throw new HttpError(404, NOT_FOUND)
  }

  /** The snapshot of a page the caller may read: a password page needs its cookie (the HTML asks for it instead). */
  async function readable (request: FastifyRequest, key: PageKey | undefined): Promise<Snapshot> {
    const snapshot = await snapshotOf(request, key)
    if (snapshot.page.access === 'password' && !hasPasswordCookie(request, snapshot)) throw new HttpError(401)
    return snapshot
  }

  /** A password page's answer without its cookie: the form, posting to the page. */
  const askPassword = (reply: FastifyReply, snapshot: Snapshot, home: string) =>
    reply.headers(PAGE_SECURITY).header('cache-control', 'no-store').type(HTML).send(renderPasswordForm(snapshot.page.title, home, false))

  const config = { rateLimit: false } as const
  const componentIdOf = (request: FastifyRequest) => (request.params as { component_id: string }).component_id

  const bySlug: Entrance = {
    prefix: '/status/:slug',
    route: (component) => ({ schema: { params: component ? ComponentBadgeParams : SlugParams } }),
    key: (request) => ({ slug: (request.params as { slug: string }).slug }),
    home: (snapshot) => `/status/${snapshot.page.slug}`,
  }
  // Routed by Host with a router constraint (domain-hosts.ts), so that no hook or rewrite can let the dashboard through.
  const byCustomDomain: Entrance = {
    prefix: '',
    route: (component) => ({ schema: { hide: true, ...(component ? { params: ComponentParams } : {}) }, constraints: ON_CUSTOM_DOMAIN }),
    key: (request) => customDomains.isCustomDomain(request.hostname) ? { domain: customDomainOf(request.hostname) } : undefined,
    home: () => '/',
  }

  for (const entrance of [bySlug, byCustomDomain]) {
    /** The route's options: its documented schema, with what the entrance adds. */
    const options = (schema: FastifySchema, component = false) => {
      const own = entrance.route(component)
      return { schema: { ...schema, ...own.schema }, ...(own.constraints ? { constraints: own.constraints } : {}), config }
    }

    app.get(entrance.prefix || '/', options({
      tags: ['status pages (public)'],
      summary: 'A public status page',
      description: 'The page as HTML that needs no JavaScript: the overall status, open reports with their updates, maintenance under ' +
        'way or to come, each component\'s status and a bar of its last `history_days` days (each day with its text), and past ' +
        'reports. Answered from a snapshot rebuilt on change and at least every minute: a strong `ETag` (a 304 for `If-None-Match`), ' +
        '`Cache-Control` with `stale-while-revalidate` and `stale-if-error`, gzip or brotli as asked. While the database is down the ' +
        'last snapshot answers, with its "Last updated" time. A `password` page answers its password form until the password is given. ' +
        'Its verified custom domain serves this page and its twins at its root (`/`, `/summary.json`, ...).',
      operationId: 'getPublicStatusPage',
      security: [],
      response: { 200: ok(HTML, 'The page, or the password form of a `password` page'), ...PUBLIC_ERRORS },
    }), async (request, reply) => {
      const snapshot = await snapshotOf(request, entrance.key(request))
      if (snapshot.page.access === 'password' && !hasPasswordCookie(request, snapshot)) return askPassword(reply, snapshot, entrance.home(snapshot))
      return sendFile(request, reply, snapshot.files.get('index.html')!, { page: true, private: snapshot.page.access === 'password' })
    })

    app.get(`${entrance.prefix}/history`, {
      ...options({
        tags: ['status pages (public)'],
        summary: 'A status page\'s older past reports',
        description: 'The page\'s past reports (resolved within `history_days`), the last resolved first, 50 a page, as HTML that needs ' +
          'no JavaScript, with an "Older reports" link to the next page while there are more; the page itself shows the first 50 and ' +
          'links here. Read from the database when asked (each request spends the address\'s API rate limit), with a strong `ETag` and ' +
          'the page\'s `Cache-Control`. A `password` page answers its password form until the password is given.',
        operationId: 'getPublicStatusPageHistory',
        security: [],
        querystring: HistoryQuery,
        response: {
          200: ok(HTML, 'A page of past reports, or the password form of a `password` page'),
          ...PUBLIC_ERRORS,
          400: ok(HTML, '`before` is not the cursor of an "Older reports" link: a page that names it'),
        },
      }),
      // A bad `before` answers a page that names it, not the API's JSON error.
      attachValidation: true,
    }, async (request, reply) => {
      // Read from the database, not the snapshot: every request spends the address's budget.
      await spendAddressBudget(request)
      const key = entrance.key(request)
      const snapshot = key && await snapshots.get(key)
      if (!snapshot) throw new HttpError(404, NOT_FOUND)
      if (snapshot.page.access === 'password' && !hasPasswordCookie(request, snapshot)) return askPassword(reply, snapshot, entrance.home(snapshot))
      const { before } = request.query as { before?: string }
      const after = request.validationError || before === undefined ? undefined : reportPosition(before)
      if (request.validationError || (before !== undefined && !after)) {
        return reply.code(400).headers(PAGE_SECURITY).header('cache-control', 'no-store').type(HTML)
          .send(renderNotice(snapshot.page.title, 'Not a valid link', request.validationError?.message ?? `querystring/before ${BEFORE_RULE}`))
      }
      const body = renderHistory(snapshot.view, await loadPastReports(app.db, snapshot.page, app.clock(), after), snapshots.linksOf(key))
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
      reply.headers(PAGE_SECURITY).header('etag', etag).header('cache-control', snapshot.page.access === 'password' ? 'private, no-cache' : CACHE_CONTROL)
      if (isCurrent(request, etag)) return reply.code(304).send()
      return reply.type(HTML).send(body)
    })

    app.post(entrance.prefix || '/', options({
      tags: ['status pages (public)'],
      summary: 'Open a password status page',
      description: 'The password form\'s target (`application/x-www-form-urlencoded`, field `password`): the right password answers 303 to ' +
        'the page with a cookie that opens it for 30 days (until the password changes); a wrong one answers the form again with 401.',
      operationId: 'openPublicStatusPage',
      security: [],
      response: {
        303: { description: 'The password is right: go to the page (`location`), with its cookie', type: 'null' },
        401: ok(HTML, 'A wrong password: the form again'),
        404: PUBLIC_ERRORS[404],
        413: errorResponse(413),
        429: PUBLIC_ERRORS[429],
        500: errorResponse(500),
        503: PUBLIC_ERRORS[503],
      },
    }), async (request, reply) => {
      const snapshot = await snapshotOf(request, entrance.key(request))
      const home = entrance.home(snapshot)
      if (snapshot.page.access !== 'password') return reply.redirect(home, 303)
      const password = typeof request.body === 'string' ? new URLSearchParams(request.body).get('password') ?? '' : ''
      await spendAddressBudget(request)
      if (!await verifyPassword(password, snapshot.page.passwordHash!)) {
        return reply.code(401).headers(PAGE_SECURITY).header('cache-control', 'no-store').type(HTML)
          .send(renderPasswordForm(snapshot.page.title, home, true))
      }
      const secure = request.protocol === 'https' ? '; Secure' : ''
      reply.header('set-cookie', `${cookieName(snapshot)}=${passwordCookie(snapshot)}; Path=${home}; Max-Age=${COOKIE_DAYS * 86_400}; HttpOnly; SameSite=Lax${secure}`)
      return reply.redirect(home, 303)
    })

    for (const [name, file] of Object.entries(FILES)) {
      const paths = name === 'summary.json' ? [`/${name}`, '/api/v2/summary.json'] : [`/${name}`]
      for (const path of paths) {
        app.get(`${entrance.prefix}${path}`, options({
          tags: ['status pages (public)'],
          summary: file.summary,
          description: `${file.description} Answered from the page's snapshot, as the page is.`,
          operationId: `getPublicStatus${path.includes('api/v2') ? 'Statuspage' : ''}${name.replace(/(^|[.-])(\w)/g, (_, _sep, c: string) => c.toUpperCase())}`,
          security: [],
          response: { 200: ok(file.type, 'The file'), ...PUBLIC_ERRORS },
        }), async (request, reply) => {
          const snapshot = await readable(request, entrance.key(request))
          return sendFile(request, reply, snapshot.files.get(name)!, { cors: true, private: snapshot.page.access === 'password' })
        })
      }
    }

    app.get(`${entrance.prefix}/api/v2/status.json`, options({
      tags: ['status pages (public)'],
      summary: 'The page\'s status as Atlassian Statuspage\'s status.json',
      description: '`{page, status {indicator, description}}`, where clients made for Statuspage ask for it.',
      operationId: 'getPublicStatusStatuspageStatusJson',
      security: [],
      response: { 200: ok('application/json', 'The page\'s status'), ...PUBLIC_ERRORS },
    }), async (request, reply) => {
      const snapshot = await readable(request, entrance.key(request))
      return sendFile(request, reply, snapshot.files.get('status.json')!, { cors: true, private: snapshot.page.access === 'password' })
    })

    for (const format of ['svg', 'json'] as const) {
      app.get(`${entrance.prefix}/components/:component_id/badge.${format}`, options({
        tags: ['status pages (public)'],
        summary: `A component's status as ${format === 'svg' ? 'an SVG badge' : 'shields.io endpoint JSON'}`,
        description: 'The component\'s name and its status in words.',
        operationId: `getPublicComponentBadge${format === 'svg' ? 'Svg' : 'Json'}`,
        security: [],
        response: { 200: ok(format === 'svg' ? 'image/svg+xml' : 'application/json', 'The badge'), ...PUBLIC_ERRORS, 404: errorResponse(404, 'No published page has this slug, or it has no such component', NOT_FOUND) },
      }, true), async (request, reply) => {
        const snapshot = await readable(request, entrance.key(request))
        const file = snapshot.componentFile(componentIdOf(request), format)
        if (!file) throw new HttpError(404, 'Component not found')
        return sendFile(request, reply, file, { cors: true, private: snapshot.page.access === 'password' })
      })
    }
  }

  // Anything else on a custom domain, whatever its method or body: answered before the body is read.
  app.all('/*', {
    constraints: ON_CUSTOM_DOMAIN,
    schema: { hide: true },
    config,
    onRequest: async (request) => {
      await spendAddressBudget(request)
      throw new HttpError(404)
    },
  }, async () => { throw new HttpError(404) })

  app.get('/status-domains/check', {
    schema: {
      tags: ['status pages (public)'],
      summary: 'Whether a host name is a status page\'s domain',
      description: 'What a TLS proxy asks before it gets a certificate on demand (Caddy\'s `on_demand_tls` `ask`): 200, without a body, ' +
        'when `domain` is the verified custom domain of a published page; else 404. A name no page claims is answered from memory.',
      operationId: 'checkStatusPageDomain',
      security: [],
      querystring: DomainQuery,
      response: {
        200: { description: 'The verified custom domain of a published page: a certificate for it may be got', type: 'null' },
        400: errorResponse(400, 'No `domain`, or one longer than a host name', 'querystring must have required property \'domain\''),
        404: errorResponse(404, 'Not the verified custom domain of a published page', NOT_A_DOMAIN),
        500: errorResponse(500),
        503: PUBLIC_ERRORS[503],
      },
    },
    config,
  }, async (request, reply) => {
    const domain = customDomainOf(request.query.domain)
    if (!customDomains.isCustomDomain(domain) || !await snapshots.get({ domain })) throw new HttpError(404, NOT_A_DOMAIN)
    return reply.send()
  })
}

export default publicStatusRoutes
