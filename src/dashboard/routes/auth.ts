// Dashboard sign-in, sign-out and setup link; an attempt is counted before its password is checked, so guesses cannot outrun it.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { signInPage, setupPage } from '../pages/auth.ts'
import { errorPage } from '../pages/layout.ts'
import { localPath, pageContext, seeOther, sendPage } from '../respond.ts'
import { hashPassword, passwordProblem, verifyDecoy, verifyPassword } from '../../auth/passwords.ts'
import { anyUserHasPassword, findUserByEmail } from '../../repositories/users.ts'
import { setupTokenUser, useSetupToken } from '../../services/setup-links.ts'
import { oidcClient, OidcSignInError, type PendingSignIn } from '../../auth/oidc.ts'
import { signInWithOidc } from '../../services/oidc-sign-in.ts'
import { oidcRoleMap, type Config } from '../../runtime/config.ts'
import { COOKIE_OPTIONS } from '../session.ts'

type Form = Record<string, string | undefined>

const normalEmail = (text: string | undefined) => (text ?? '').trim().toLowerCase().slice(0, 320)

// The OpenID Connect sign-in's state, nonce and PKCE verifier, between leaving for the provider and coming back.
const OIDC_COOKIE = 'pw_oidc'
const OIDC_COOKIE_OPTIONS = { ...COOKIE_OPTIONS, path: '/sign-in/oidc', maxAge: 600 }
const PASSWORDS_OFF = 'This server signs in through its identity provider only.'

const dashboardAuthRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  const publicRoute = { schema: { hide: true }, config: { dashboardPublic: true } }
  const oidc = config.OIDC_ISSUER_URL === undefined
    ? undefined
    : oidcClient({
      issuerUrl: config.OIDC_ISSUER_URL,
      clientId: config.OIDC_CLIENT_ID!,
      clientSecret: config.OIDC_CLIENT_SECRET!,
      redirectUri: `${config.PUBLIC_URL}/sign-in/oidc/callback`,
      roleClaim: config.OIDC_ROLE_CLAIM,
    })
  const roleMap = oidcRoleMap(config.OIDC_ROLE_MAP ?? '')
  const signInOptions = { passwords: config.PASSWORD_SIGN_IN, provider: oidc && config.OIDC_PROVIDER_NAME }
  const refusePasswords = (request: FastifyRequest, reply: FastifyReply) =>
    sendPage(reply, errorPage(pageContext(app, request, reply), 404, PASSWORDS_OFF), 404)

  async function renderSignIn (request: FastifyRequest, reply: FastifyReply, options: {
    email: string, next: string, error?: string, notice?: string, status?: number
  }) {
    const firstRun = config.PASSWORD_SIGN_IN && !await anyUserHasPassword(app.db)
    const page = signInPage(pageContext(app, request, reply), { ...options, ...signInOptions, firstRunEmail: firstRun ? config.ADMIN_EMAIL : undefined })
    return sendPage(reply, page, options.status)
  }

  app.get<{ Querystring: Form }>('/sign-in', publicRoute, async (request, reply) => {
    const next = localPath(request.query.next)
    if (request.session) return seeOther(reply, next)
    return renderSignIn(request, reply, { email: '', next, notice: request.query.notice })
  })

  app.post<{ Body: Form }>('/sign-in', publicRoute, async (request, reply) => {
    if (!config.PASSWORD_SIGN_IN) return refusePasswords(request, reply)
    const email = normalEmail(request.body.email)
    const password = request.body.password ?? ''
    const next = localPath(request.body.next)
    const attempt = await app.signInThrottle.reserve(email, request.ip, request.log)
    if (!attempt.allowed) {
      const minutes = Math.max(1, Math.ceil(attempt.retryAfterMs / 60_000))
      return renderSignIn(request, reply, {
        email, next, status: 429, error: `Too many failed sign-ins. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
      })
    }
    const user = email ? await findUserByEmail(app.db, email) : undefined
    // The same work whether or not the email is known, so the answer's timing does not tell.
    const ok = user?.passwordHash ? await verifyPassword(password, user.passwordHash) : await verifyDecoy(password)
    if (!user || !ok) {
      request.log.info({ email }, 'dashboard sign-in failed')
      return renderSignIn(request, reply, { email, next, status: 400, error: 'The email or password is incorrect.' })
    }
    await attempt.succeeded()
    await app.sessions.start(reply, user.id)
    return seeOther(reply, next)
  })

  app.post('/sign-out', { config: { role: 'viewer' }, schema: { hide: true } }, async (request, reply) => {
    await app.sessions.end(request, reply)
    return seeOther(reply, '/sign-in?notice=signed-out')
  })

  const invalidLink = 'This setup link is not valid: it has been used, the password is already set, or it is more ' +
    'than 24 hours old. Set a password with: npm run -s cli -- users password EMAIL'

  app.get<{ Querystring: Form }>('/setup', publicRoute, async (request, reply) => {
    if (!config.PASSWORD_SIGN_IN) return refusePasswords(request, reply)
    const user = await setupTokenUser(app.db, request.query.token, app.clock())
    const context = pageContext(app, request, reply)
    if (!user) return sendPage(reply, errorPage(context, 404, invalidLink), 404)
    return sendPage(reply, setupPage(context, { email: user.email, token: request.query.token!, error: null }))
  })

  app.post<{ Body: Form }>('/setup', publicRoute, async (request, reply) => {
    if (!config.PASSWORD_SIGN_IN) return refusePasswords(request, reply)
    const { token, password = '', confirm = '' } = request.body
    const user = await setupTokenUser(app.db, token, app.clock())
    if (!user) return sendPage(reply, errorPage(pageContext(app, request, reply), 404, invalidLink), 404)
    const problem = passwordProblem(password)
    const error = problem
      ? { field: 'password', message: `body/password ${problem}` }
      : password !== confirm ? { field: 'confirm', message: 'body/confirm: the two passwords differ' } : null
    if (error) {
      return sendPage(reply, setupPage(pageContext(app, request, reply), { email: user.email, token: token!, error }), 400)
    }
    // Taken with the password's change: a link used meanwhile (another tab, another instance) sets nothing.
    if (!await useSetupToken(app.db, token, await hashPassword(password), app.clock())) {
      return sendPage(reply, errorPage(pageContext(app, request, reply), 404, invalidLink), 404)
    }
    await app.sessions.start(reply, user.id)
    return seeOther(reply, '/?notice=password-set')
  })

  if (!oidc) return

  app.get<{ Querystring: Form }>('/sign-in/oidc', publicRoute, async (request, reply) => {
    const { url, pending } = await oidc.start(localPath(request.query.next))
    reply.setCookie(OIDC_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), OIDC_COOKIE_OPTIONS)
    return seeOther(reply, url.href)
  })

  app.get('/sign-in/oidc/callback', publicRoute, async (request, reply) => {
    const refuse = (status: number, message: string) => sendPage(reply, errorPage(pageContext(app, request, reply), status, message), status)
    const pending = pendingSignIn(request.cookies[OIDC_COOKIE])
    reply.clearCookie(OIDC_COOKIE, OIDC_COOKIE_OPTIONS)
    if (!pending) return refuse(400, 'This sign-in has expired or was started in another browser. Sign in again.')
    let identity
    try {
      // The URL the provider sent the browser to, as PUBLIC_URL names it (a proxy may have rewritten the request's).
      identity = await oidc.finish(new URL(`${config.PUBLIC_URL}${request.url}`), pending)
    } catch (err) {
      if (!(err instanceof OidcSignInError)) throw err
      request.log.warn({ err: err.cause ?? err }, 'OpenID Connect sign-in refused')
      return refuse(400, `${err.message} Sign in again.`)
    }
    const outcome = await signInWithOidc(app.db, identity, { roleMap, orgSlug: config.OIDC_ORGANIZATION!, now: app.clock() })
    if (outcome.kind === 'no-organization') {
      request.log.error({ slug: config.OIDC_ORGANIZATION }, 'OIDC_ORGANIZATION names no organization')
      return refuse(503, 'Sign-in through the identity provider is not set up on this server yet (OIDC_ORGANIZATION).')
    }
    if (outcome.kind === 'no-role') {
      request.log.info({ email: identity.email, values: identity.claimValues }, 'OpenID Connect sign-in without a role')
      return refuse(403, `${identity.email} has no role in Pingward: none of its ${config.OIDC_ROLE_CLAIM} is given one. Ask an administrator.`)
    }
    await app.sessions.start(reply, outcome.userId, outcome.orgId)
    return seeOther(reply, pending.next)
  })
}

/** The kept state of a sign-in, or undefined when the cookie is missing or not one this server set. */
function pendingSignIn (cookie: string | undefined): PendingSignIn | undefined {
  if (cookie === undefined) return undefined
  try {
    const value = JSON.parse(Buffer.from(cookie, 'base64url').toString()) as Partial<PendingSignIn>
    const fields = [value.state, value.nonce, value.verifier, value.next]
    return fields.every((field) => typeof field === 'string') ? { ...value as PendingSignIn, next: localPath(value.next) } : undefined
  } catch {
    return undefined
  }
}

export default dashboardAuthRoutes
