// Subscriptions to a public status page (api-contract section 16), no key: subscribe (a confirmation mail: double
// opt-in), also on the page's custom domain, the manage page a mail links to (Confirm, Unsubscribe: a GET changes
// nothing, as mail scanners follow links), and RFC 8058's one-click unsubscribe. Only when SMTP_URL is set.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponse, HttpError } from '../http/error-catalog.ts'
import { customDomainOf, ON_CUSTOM_DOMAIN, type CustomDomainHosts } from './domain-hosts.ts'
import { renderNotice } from './public-page.ts'
import { addressBudget, hasPasswordCookie } from './public-routes.ts'
import type { PageKey, PageSnapshots, Snapshot } from './snapshots.ts'
import { findSubscriberByToken } from './subscriber-repository.ts'
import { confirm, subscribe, unsubscribe } from './subscribers.ts'

const EMAIL_MAX = 254
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/

export const SubscribeSchema = Type.Object({
  email: Type.String({ maxLength: EMAIL_MAX, pattern: EMAIL.source, 'x-error-message': 'must be an email address', description: 'Where the news go, once confirmed', examples: ['reader@example.com'] }),
}, {
  $id: 'SubscribeRequest',
  title: 'SubscribeRequest',
  additionalProperties: false,
  description: 'A subscription to ask for; also taken as a form (`application/x-www-form-urlencoded`, field `email`), as the page\'s form sends it',
  examples: [{ email: 'reader@example.com' }],
})

const SlugParams = Type.Object({ slug: Type.String({ maxLength: 63, description: 'The page\'s slug', examples: ['acme'] }) }, { additionalProperties: false })
const TokenQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 64, description: 'The subscriber\'s token, from a mail\'s link' })),
}, { additionalProperties: false })

const html = (description: string) => ({ description, content: { 'text/html; charset=utf-8': { schema: Type.String() } } })
const OFF = 'This page takes no subscriptions'
const GONE = 'This link is not valid, or the subscription was cancelled'
const ERRORS = {
  400: errorResponse(400, 'The email address or the body is not valid', 'body/email must be an email address'),
  401: errorResponse(401, 'A `password` page, and no cookie of its password', 'Unauthorized'),
  404: errorResponse(404, 'No published page has this slug, or it takes no subscriptions (no SMTP server), or the token is unknown', 'Status page not found'),
  413: errorResponse(413),
  429: errorResponse(429, 'Too many subscriptions asked from this address', 'Rate limit exceeded'),
  500: errorResponse(500),
  503: errorResponse(503, 'The database cannot be reached', 'Service unavailable'),
}
const HEADERS = { 'cache-control': 'no-store', 'content-security-policy': 'default-src \'none\'; style-src \'unsafe-inline\'; form-action \'self\'; base-uri \'none\'', 'referrer-policy': 'no-referrer' }

interface SubscriberRoutesOptions { snapshots: PageSnapshots, customDomains: CustomDomainHosts, enabled: boolean }

const subscriberRoutes: FastifyPluginAsyncTypebox<SubscriberRoutesOptions> = async (app, { snapshots, customDomains, enabled }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 8192 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
  const spendAddressBudget = addressBudget(app)
  const config = { rateLimit: false } as const

  /** The page asked for: its slug, or on a custom domain's route the domain as the page routes read it (an unverified one has no published page). */
  const keyOf = (request: FastifyRequest): PageKey | undefined => {
    const { slug } = request.params as { slug?: string }
    if (slug !== undefined) return { slug }
    return customDomains.isCustomDomain(request.hostname) ? { domain: customDomainOf(request.hostname) } : undefined
  }
  /** The page asked for: published and taking subscriptions; to subscribe, readable by the caller. */
  async function pageOf (request: FastifyRequest, subscribing: boolean): Promise<Snapshot> {
    await spendAddressBudget(request)
    const key = keyOf(request)
    const snapshot = enabled && key ? await snapshots.get(key) : undefined
    if (!snapshot) throw new HttpError(404, enabled ? 'Status page not found' : OFF)
    // A mail's links need only their token: it was mailed on the word of a reader who gave the password, maybe on another host.
    if (subscribing && snapshot.page.access === 'password' && !hasPasswordCookie(request, snapshot)) throw new HttpError(401)
    return snapshot
  }
  const notice = (reply: FastifyReply, status: number, snapshot: Snapshot, heading: string, message: string, form?: { action: string, token: string, button: string }) =>
    reply.code(status).headers(HEADERS).type('text/html; charset=utf-8').send(renderNotice(snapshot.page.title, heading, message, form))
  const tokenOf = (request: FastifyRequest) =>
    (request.query as { token?: string }).token ?? (typeof (request.body as { token?: unknown } | undefined)?.token === 'string' ? (request.body as { token: string }).token : '')

  // The custom domain's twin (routed by Host, as public-routes.ts routes the page) takes the form of the page served there.
  for (const onDomain of [false, true]) {
    app.post(onDomain ? '/subscribe' : '/status/:slug/subscribe', {
      schema: {
        tags: ['status pages (public)'],
        summary: 'Subscribe to a status page by mail',
        description: 'Sends a confirmation mail to `email` (double opt-in): its link leads to a page that confirms. The answer is the ' +
          'same whether or not the address was subscribed; a confirmation is sent again at most every 10 minutes. A form post gets an ' +
          'HTML page; JSON gets 202. Each request spends the address\'s API rate limit. Also at `/subscribe` on the page\'s verified custom domain.',
        operationId: 'subscribeToStatusPage',
        security: [],
        ...(onDomain ? { hide: true } : { params: SlugParams }),
        body: Type.Ref(SubscribeSchema),
        response: {
          200: html('The form\'s answer: check your inbox'),
          202: { description: 'The confirmation mail is on its way', type: 'null' },
          ...ERRORS,
        },
      },
      ...(onDomain ? { constraints: ON_CUSTOM_DOMAIN } : {}),
      config,
    }, async (request, reply) => {
      const snapshot = await pageOf(request, true)
      await subscribe(app.db, snapshot.page, request.body.email.trim(), app.clock())
      if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return reply.code(202).send()
      return notice(reply, 200, snapshot, 'Check your inbox', `If ${request.body.email} is yours, a mail is on its way: open its link to confirm. Nothing is sent before that.`)
    })
  }

  app.get('/status/:slug/subscription', {
    schema: {
      tags: ['status pages (public)'],
      summary: 'A subscriber\'s page',
      description: 'Where a mail\'s link leads: the subscription of `token`, with a button to confirm it (if it is not yet) and one to ' +
        'unsubscribe. Opening it changes nothing.',
      operationId: 'getStatusPageSubscription',
      security: [],
      params: SlugParams,
      querystring: TokenQuery,
      response: { 200: html('The subscriber\'s page'), 404: html(GONE), ...(({ 400: a, 401: b, 429: c, 500: d, 503: e }) => ({ 400: a, 401: b, 429: c, 500: d, 503: e }))(ERRORS) },
    },
    config,
  }, async (request, reply) => {
    const snapshot = await pageOf(request, false)
    const subscriber = await findSubscriberByToken(app.db, snapshot.page.id, tokenOf(request))
    if (!subscriber) return notice(reply, 404, snapshot, 'Subscription not found', GONE)
    const base = `/status/${snapshot.page.slug}`
    return subscriber.confirmedAt === null
      ? notice(reply, 200, snapshot, 'Confirm your subscription', `${subscriber.email} will get each report update and maintenance announcement of this page.`, { action: `${base}/subscription/confirm`, token: subscriber.token, button: 'Confirm' })
      : notice(reply, 200, snapshot, 'Your subscription', `${subscriber.email} gets each report update and maintenance announcement of this page.`, { action: `${base}/unsubscribe`, token: subscriber.token, button: 'Unsubscribe' })
  })

  app.post('/status/:slug/subscription/confirm', {
    schema: {
      tags: ['status pages (public)'],
      summary: 'Confirm a subscription',
      description: 'The subscriber\'s page\'s Confirm button (form field `token`): from now on each report update and maintenance announcement is mailed.',
      operationId: 'confirmStatusPageSubscription',
      security: [],
      params: SlugParams,
      querystring: TokenQuery,
      response: { 200: html('Confirmed'), 404: html(GONE), ...(({ 400: a, 401: b, 413: f, 429: c, 500: d, 503: e }) => ({ 400: a, 401: b, 413: f, 429: c, 500: d, 503: e }))(ERRORS) },
    },
    config,
  }, async (request, reply) => {
    const snapshot = await pageOf(request, false)
    const subscriber = await confirm(app.db, snapshot.page, tokenOf(request), app.clock())
    if (!subscriber) return notice(reply, 404, snapshot, 'Subscription not found', GONE)
    return notice(reply, 200, snapshot, 'Subscribed', `${subscriber.email} gets each report update and maintenance announcement of this page. Every mail has a link to stop.`,
      { action: `/status/${snapshot.page.slug}/unsubscribe`, token: subscriber.token, button: 'Unsubscribe' })
  })

  app.post('/status/:slug/unsubscribe', {
    schema: {
      tags: ['status pages (public)'],
      summary: 'Unsubscribe (one click)',
      description: 'RFC 8058 one-click unsubscribe: the URL of every mail\'s `List-Unsubscribe` header (the token in the query), which ' +
        'mail clients POST with the body `List-Unsubscribe=One-Click`; also the subscriber\'s page\'s button (form field `token`). ' +
        'The subscription is gone at once; an unknown token answers 404.',
      operationId: 'unsubscribeFromStatusPage',
      security: [],
      params: SlugParams,
      querystring: TokenQuery,
      response: { 200: html('Unsubscribed'), 404: html(GONE), ...(({ 400: a, 401: b, 413: f, 429: c, 500: d, 503: e }) => ({ 400: a, 401: b, 413: f, 429: c, 500: d, 503: e }))(ERRORS) },
    },
    config,
  }, async (request, reply) => {
    const snapshot = enabled ? await snapshots.get({ slug: request.params.slug }) : undefined
    if (!snapshot) throw new HttpError(404, enabled ? 'Status page not found' : OFF)
    // No cookie asked: the token is the capability, and a mail client's one-click POST carries none.
    if (!await unsubscribe(app.db, snapshot.page, tokenOf(request))) return notice(reply, 404, snapshot, 'Subscription not found', GONE)
    return notice(reply, 200, snapshot, 'Unsubscribed', 'No more mail will be sent to this address about this page.')
  })
}

export default subscriberRoutes
