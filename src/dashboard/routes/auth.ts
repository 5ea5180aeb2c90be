// Dashboard sign-in, sign-out and setup link; an attempt is counted before its password is checked, so guesses cannot outrun it.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { signInPage, setupPage } from '../pages/auth.ts'
import { errorPage } from '../pages/layout.ts'
import { localPath, pageContext, seeOther, sendPage } from '../respond.ts'
import { hashPassword, passwordProblem, verifyDecoy, verifyPassword } from '../../auth/passwords.ts'
import { anyUserHasPassword, findUserByEmail } from '../../repositories/users.ts'
import { setupTokenUser, useSetupToken } from '../../services/setup-links.ts'

type Form = Record<string, string | undefined>

const normalEmail = (text: string | undefined) => (text ?? '').trim().toLowerCase().slice(0, 320)

const dashboardAuthRoutes: FastifyPluginAsync<{ adminEmail: string }> = async (app, { adminEmail }) => {
  const publicRoute = { schema: { hide: true }, config: { dashboardPublic: true } }

  async function renderSignIn (request: FastifyRequest, reply: FastifyReply, options: {
    email: string, next: string, error?: string, notice?: string, status?: number
  }) {
    const firstRun = !await anyUserHasPassword(app.db)
    const page = signInPage(pageContext(app, request, reply), { ...options, firstRunEmail: firstRun ? adminEmail : undefined })
    return sendPage(reply, page, options.status)
  }

  app.get<{ Querystring: Form }>('/sign-in', publicRoute, async (request, reply) => {
    const next = localPath(request.query.next)
    if (request.session) return seeOther(reply, next)
    return renderSignIn(request, reply, { email: '', next, notice: request.query.notice })
  })

  app.post<{ Body: Form }>('/sign-in', publicRoute, async (request, reply) => {
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
    const user = await setupTokenUser(app.db, request.query.token, app.clock())
    const context = pageContext(app, request, reply)
    if (!user) return sendPage(reply, errorPage(context, 404, invalidLink), 404)
    return sendPage(reply, setupPage(context, { email: user.email, token: request.query.token!, error: null }))
  })

  app.post<{ Body: Form }>('/setup', publicRoute, async (request, reply) => {
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
}

export default dashboardAuthRoutes
