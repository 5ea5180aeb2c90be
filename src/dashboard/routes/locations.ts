// Dashboard locations: the list (viewer); an agent location added, its token rotated, the location deleted (admin),
// through the API's service and validator. A new token rides a short-lived cookie to the next page, shown once.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { isWellFormedAgentToken, keyPrefix } from '../../auth/keys.ts'
import { ConflictError } from '../../domain/errors.ts'
import { HttpError } from '../../http/error-catalog.ts'
import { bodyValidator, type FieldError } from '../../http/validation.ts'
import { presentLocation } from '../../locations/presenter.ts'
import { listLocations, locationLags, type LocationRow } from '../../locations/repository.ts'
import { CreateLocationSchema, LocationParams, type NewLocation } from '../../locations/schema.ts'
import { BuiltinLocationError, createAgentLocation, removeAgentLocation, rotateAgentToken, type LocationAdmin } from '../../locations/service.ts'
import type { FormFields } from '../form-input.ts'
import { locationsPage, type ShownToken } from '../pages/locations.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'
import { COOKIE_OPTIONS } from '../session.ts'

const Form = Type.Record(Type.String(), Type.String())
const LOCATIONS_PATH = '/locations'
const NEW_TOKEN_COOKIE = 'pw_new_agent_token'
/** The new token's cookie: only this page's path, and never sent along from another site. */
const NEW_TOKEN_OPTIONS = { ...COOKIE_OPTIONS, path: LOCATIONS_PATH, sameSite: 'strict' } as const
const validateCreate = bodyValidator<NewLocation>(CreateLocationSchema)
const notFound = () => new HttpError(404, 'There is no such location in this organization.')

/** The token of the cookie, when it is still the current token of one of these agent locations. */
function shownToken (cookie: string | undefined, rows: LocationRow[]): ShownToken | undefined {
  const [code, token] = cookie?.split('.') ?? []
  if (!token || !isWellFormedAgentToken(token)) return undefined
  const row = rows.find((r) => r.kind === 'agent' && r.code === code && r.tokenPrefix === keyPrefix(token))
  return row && { code: row.code, name: row.name, token }
}

/** The lag column reads the checks of the last 10 minutes. */
const LAG_WINDOW_MS = 10 * 60_000

const dashboardLocationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const adminOf = (request: FastifyRequest): LocationAdmin => ({ orgId: request.session!.orgId, audit: sessionAudit(request) })

  async function render (request: FastifyRequest, reply: FastifyReply, options: { values?: FormFields, error?: FieldError, notice?: string, status?: number, shown?: string } = {}) {
    const now = app.clock()
    const orgId = request.session!.orgId
    const rows = await listLocations(app.db, orgId)
    const lags = await locationLags(app.db, orgId, rows.map((row) => row.code), new Date(now.getTime() - LAG_WINDOW_MS))
    const page = locationsPage(pageContext(app, request, reply), {
      locations: rows.map((row) => ({ ...presentLocation(row, now), lag: lags.get(row.code) ?? null })),
      lagWindowMinutes: LAG_WINDOW_MS / 60_000,
      shown: shownToken(options.shown, rows),
      values: options.values ?? {},
      error: options.error ?? null,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  /** To the list, with the token in the cookie the list reads once (post/redirect/get: a reload makes no second one). */
  const showToken = (reply: FastifyReply, made: { row: LocationRow, token: string }) => {
    reply.setCookie(NEW_TOKEN_COOKIE, `${made.row.code}.${made.token}`, { ...NEW_TOKEN_OPTIONS, maxAge: 300 })
    return seeOther(reply, LOCATIONS_PATH)
  }

  app.get(LOCATIONS_PATH, {
    config: { role: 'viewer' },
    schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
  }, async (request, reply) => {
    const shown = request.cookies[NEW_TOKEN_COOKIE]
    if (shown !== undefined) reply.clearCookie(NEW_TOKEN_COOKIE, NEW_TOKEN_OPTIONS)
    return render(request, reply, { notice: request.query.notice, shown })
  })

  app.post(LOCATIONS_PATH, { config: { role: 'admin' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const input = validateCreate({ code: (request.body.code ?? '').trim(), name: request.body.name ?? '' })
    if (!input.ok) return render(request, reply, { values: request.body, error: input.error, status: 400 })
    try {
      return showToken(reply, await createAgentLocation(app.db, adminOf(request), input.value, app.clock()))
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err
      return render(request, reply, { values: request.body, error: { field: 'code', message: err.message }, status: 409 })
    }
  })

  const params = { hide: true, params: LocationParams, body: Form }
  app.post(`${LOCATIONS_PATH}/:code/rotate-token`, { config: { role: 'admin' }, schema: params }, async (request, reply) => {
    const rotated = await rotateAgentToken(app.db, adminOf(request), request.params.code, app.clock())
    if (!rotated) throw notFound()
    return showToken(reply, rotated)
  })

  app.post(`${LOCATIONS_PATH}/:code/delete`, { config: { role: 'admin' }, schema: params }, async (request, reply) => {
    try {
      if (!await removeAgentLocation(app.db, adminOf(request), request.params.code, app.clock())) throw notFound()
    } catch (err) {
      if (err instanceof BuiltinLocationError) return render(request, reply, { status: 409, notice: 'location-builtin' })
      throw err
    }
    return seeOther(reply, `${LOCATIONS_PATH}?notice=location-deleted`)
  })
}

export default dashboardLocationRoutes
