// Dashboard test helpers: a user signed in through the real sign-in form, and GET/POST of pages with its cookie.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { eq } from 'drizzle-orm'
import { hashPassword } from '../../src/auth/passwords.ts'
import { monitors } from '../../src/db/schema.ts'
import { createUser, setPasswordHash } from '../../src/repositories/users.ts'

export const PASSWORD = 'correct horse battery staple'

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

export const encode = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

/** The value of the first hidden CSRF field of a page. */
export function csrfOf (html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error(`no CSRF field in:\n${html.slice(0, 2000)}`)
  return match[1]
}

export function cookieOf (res: { cookies: Array<{ name: string, value: string }> }, name: string): string | undefined {
  return res.cookies.find((c) => c.name === name)?.value
}

/** A user with a password (no session yet). */
export async function makeDashboardUser (app: FastifyInstance, password = PASSWORD) {
  const user = await createUser(app.db, `dash-${randomBytes(4).toString('hex')}@example.com`)
  await setPasswordHash(app.db, user.id, await hashPassword(password))
  return user
}

/** The sign-in form's anonymous CSRF cookie and token. */
export async function signInForm (app: FastifyInstance) {
  const res = await app.inject({ url: '/sign-in' })
  const token = cookieOf(res, 'pw_csrf')!
  return { token, cookie: `pw_csrf=${token}`, csrf: csrfOf(res.body) }
}

export interface Browser {
  user: Awaited<ReturnType<typeof makeDashboardUser>>
  cookie: string
  csrf: string
  get: (url: string) => Promise<LightMyRequestResponse>
  /** POSTs the form with this session's cookie and CSRF token (unless the fields set _csrf). */
  post: (url: string, fields?: Record<string, string>, headers?: Record<string, string>) => Promise<LightMyRequestResponse>
}

/** A user signed in through POST /sign-in, like a browser. */
export async function signedIn (app: FastifyInstance): Promise<Browser> {
  const user = await makeDashboardUser(app)
  const form = await signInForm(app)
  const res = await app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { ...FORM, cookie: form.cookie },
    payload: encode({ _csrf: form.csrf, email: user.email, password: PASSWORD, next: '/' }),
  })
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`)
  const cookie = `pw_session=${cookieOf(res, 'pw_session')}`
  const home = await app.inject({ url: '/', headers: { cookie } })
  const csrf = csrfOf(home.body)
  return {
    user,
    cookie,
    csrf,
    get: (url) => app.inject({ url, headers: { cookie } }),
    post: (url, fields = {}, headers = {}) => app.inject({
      method: 'POST', url, headers: { ...FORM, cookie, ...headers }, payload: encode({ _csrf: csrf, ...fields }),
    }),
  }
}

/** A failed check's result, for recordCheck: with failure_threshold 1 it opens an incident. */
export const failedCheck = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })

/** The stored row of a monitor, secrets in clear, as the checker reads it. */
export async function storedRow (app: FastifyInstance, id: string) {
  const [row] = await app.db.select().from(monitors).where(eq(monitors.id, id))
  return row
}

/** A textarea's text as a browser would send it back: the HTML entities of html`` undone. */
export function textareaValue (body: string, id: string): string {
  const match = new RegExp(`<textarea id="${id}"[^>]*>\n([^<]*)</textarea>`).exec(body)
  if (!match) throw new Error(`no textarea ${id}`)
  return match[1].replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!)
}
