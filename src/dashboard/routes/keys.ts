// Settings, then API Keys: list the signed-in user's keys, create one (shown once), delete (revoke) one.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpError } from '../../http/error-catalog.ts'
import { parseCreateKey, type FormFields } from '../form-input.ts'
import type { FieldError } from '../../http/validation.ts'
import { keysPage } from '../pages/keys.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'
import { isWellFormedKey, keyPrefix } from '../../auth/keys.ts'
import { COOKIE_OPTIONS } from '../session.ts'
import { listApiKeys } from '../../repositories/api-keys.ts'
import { makeApiKey, revokeApiKey } from '../../services/api-keys.ts'
import { Uuid } from '../../schemas/common.ts'

const KeyIdParams = Type.Object({ id: Uuid('Id of the API key') }, { additionalProperties: false })
const Form = Type.Record(Type.String(), Type.String())
const KEYS_PATH = '/settings/api-keys'
const NEW_KEY_COOKIE = 'pw_new_key'
/** The new key's cookie: only this page's path, and never sent along from another site. */
const NEW_KEY_OPTIONS = { ...COOKIE_OPTIONS, path: KEYS_PATH, sameSite: 'strict' } as const

const dashboardKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  async function render (
    request: FastifyRequest, reply: FastifyReply,
    options: { values?: FormFields, error?: FieldError, shown?: string, notice?: string, status?: number }
  ) {
    const keys = await listApiKeys(app.db, request.session!.userId, request.session!.orgId)
    // Shown only when it is a well-formed key of one of this user's keys, with that key's prefix.
    const [id, key] = options.shown?.split('.') ?? []
    const record = key && isWellFormedKey(key) ? keys.find((k) => k.id === id && k.prefix === keyPrefix(key)) : undefined
    const page = keysPage(pageContext(app, request, reply), {
      keys,
      created: record && { key, record },
      values: options.values ?? {},
      error: options.error ?? null,
      notice: options.notice,
    })
    return sendPage(reply, page, options.status)
  }

  app.get('/settings', { config: { role: 'viewer' }, schema: { hide: true } }, async (_request, reply) => seeOther(reply, '/settings/api-keys'))

  app.get('/settings/api-keys', {
    config: { role: 'viewer' },
    schema: { hide: true, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) },
  }, async (request, reply) => {
    const shown = request.cookies[NEW_KEY_COOKIE]
    if (shown !== undefined) reply.clearCookie(NEW_KEY_COOKIE, NEW_KEY_OPTIONS)
    return render(request, reply, { notice: request.query.notice, shown })
  })

  app.post('/settings/api-keys', { config: { role: 'viewer' }, schema: { hide: true, body: Form } }, async (request, reply) => {
    const result = parseCreateKey(request.body)
    if (!result.ok) return render(request, reply, { values: request.body, error: result.error, status: 400 })
    const { name, scope, expires_in_days: days } = result.value
    const now = app.clock()
    const created = await makeApiKey(app.db, {
      userId: request.session!.userId,
      orgId: request.session!.orgId,
      name,
      scope,
      expiresAt: days ? new Date(now.getTime() + days * 86_400_000) : null,
    }, now, sessionAudit(request))
    // Post/redirect/get, so a reload makes no second key: the key rides in a short-lived cookie; only its hash is stored.
    reply.setCookie(NEW_KEY_COOKIE, `${created.record.id}.${created.key}`, { ...NEW_KEY_OPTIONS, maxAge: 300 })
    return seeOther(reply, KEYS_PATH)
  })

  app.post('/settings/api-keys/:id/delete', { config: { role: 'viewer' }, schema: { hide: true, params: KeyIdParams, body: Form } }, async (request, reply) => {
    if (!await revokeApiKey(app.db, request.params.id, { userId: request.session!.userId, now: app.clock(), audit: sessionAudit(request) })) {
      throw new HttpError(404, 'There is no such API key, or it is not yours.')
    }
    return seeOther(reply, '/settings/api-keys?notice=key-deleted')
  })
}

export default dashboardKeyRoutes
