// Settings, then Notifications: the signed-in user's channels, their forms and each one's delivery log.
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LimitReachedError } from '../../domain/errors.ts'
import { CHANNEL_TYPES, DELIVERY_STATUSES, type ChannelType } from '../../domain/vocabulary.ts'
import { HttpError } from '../../http/error-catalog.ts'
import type { FieldError } from '../../http/validation.ts'
import { deliveryOptionsFromConfig, type DeliveryOptions } from '../../notifications/deliver.ts'
import { presentChannel, presentChannelWithSecret, presentDelivery, presentDeliveryDetail } from '../../notifications/presenter.ts'
import { ChannelIdParams, DELIVERY_PAGE_DEFAULT, DeliveryIdParams, type NotificationChannel } from '../../notifications/schema.ts'
import {
  attemptLogs, createChannel, deleteChannel, findChannel, findDelivery, listChannelDeliveries, listChannels, retryDelivery,
  rotateSecret, sendTestEvent, updateChannel,
} from '../../notifications/service.ts'
import { emailConfigured, type Config } from '../../runtime/config.ts'
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.ts'
import { channelConfigCheck, channelValues, parseCreateChannel, parseUpdateChannel } from '../channel-input.ts'
import { refusal, type FormFields } from '../form-input.ts'
import { channelPage } from '../pages/channel.ts'
import { editChannelPage, newChannelPage, newChannelValues } from '../pages/channel-form.ts'
import { channelsPage } from '../pages/channels.ts'
import { pageContext, seeOther, sendPage, sessionAudit } from '../respond.ts'
import { COOKIE_OPTIONS } from '../session.ts'

const PATH = '/settings/notifications'
const NEW_SECRET_COOKIE = 'pw_new_secret'
/** A new signing secret's cookie: only these pages' path, and never sent along from another site. */
const NEW_SECRET_OPTIONS = { ...COOKIE_OPTIONS, path: PATH, sameSite: 'strict' } as const

const Notice = Type.Optional(Type.String({ maxLength: 40 }))
const Form = Type.Record(Type.String(), Type.String())
const NewChannelForm = Type.Object({ type: StringEnum(CHANNEL_TYPES) }, { additionalProperties: Type.String() })
const ChannelQuery = Type.Object({
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  before: Type.Optional(Timestamp('Show deliveries older than this')),
  tested: Type.Optional(Uuid('The test delivery whose outcome to show')),
  notice: Notice,
})

const notFound = () => new HttpError(404, 'There is no such notification channel, or it is not yours.')

const dashboardNotificationRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const allowPrivateTargets = config.ALLOW_PRIVATE_TARGETS
  const orgOf = (request: FastifyRequest) => request.session!.orgId
  // The sender of Send test, made on its first use (its connections close with the app).
  let deliveryOptions: DeliveryOptions | undefined
  const testDeliveryOptions = () => (deliveryOptions ??= { ...deliveryOptionsFromConfig(config, app.log), clock: app.clock })
  app.addHook('onClose', async () => { await deliveryOptions?.transport.close() })

  async function ownChannel (request: FastifyRequest, id: string) {
    const row = await findChannel(app.db, orgOf(request), id)
    if (!row) throw notFound()
    return row
  }

  function renderNew (request: FastifyRequest, reply: FastifyReply, type: ChannelType, values: FormFields, error: FieldError | null, code = 400) {
    return sendPage(reply, newChannelPage(pageContext(app, request, reply), { type, values, error }), error ? code : 200)
  }

  function renderEdit (request: FastifyRequest, reply: FastifyReply, channel: NotificationChannel, values: FormFields, error: FieldError | null) {
    return sendPage(reply, editChannelPage(pageContext(app, request, reply), { channel, values, error }), error ? 400 : 200)
  }

  /** Post/redirect/get with a new signing secret: it rides to the channel's page in a short-lived cookie. */
  function showSecret (reply: FastifyReply, channel: { id: string, secret?: string }, location: string) {
    if (channel.secret) reply.setCookie(NEW_SECRET_COOKIE, `${channel.id}.${channel.secret}`, { ...NEW_SECRET_OPTIONS, maxAge: 300 })
    return seeOther(reply, location)
  }

  app.get(PATH, { config: { role: 'viewer' }, schema: { hide: true, querystring: Type.Object({ notice: Notice }) } }, async (request, reply) => {
    const channels = (await listChannels(app.db, orgOf(request))).map(presentChannel)
    const page = channelsPage(pageContext(app, request, reply), { channels, emailReady: emailConfigured(config), notice: request.query.notice })
    return sendPage(reply, page)
  })

  app.get(`${PATH}/new`, {
    config: { role: 'editor' },
    schema: { hide: true, querystring: Type.Object({ type: StringEnum(CHANNEL_TYPES) }) },
  }, async (request, reply) => renderNew(request, reply, request.query.type, newChannelValues(), null))

  app.post(PATH, { config: { role: 'editor' }, schema: { hide: true, body: NewChannelForm } }, async (request, reply) => {
    const { type } = request.body
    const result = parseCreateChannel(type, request.body, allowPrivateTargets)
    if (!result.ok) return renderNew(request, reply, type, request.body, result.error)
    let row
    try {
      row = await createChannel(app.db, orgOf(request), result.value, {
        allowPrivateTargets, emailConfigured: emailConfigured(config), maxChannels: config.MAX_CHANNELS_PER_OWNER, now: app.clock(), audit: sessionAudit(request),
      })
    } catch (err) {
      return renderNew(request, reply, type, request.body, refusal(err), err instanceof LimitReachedError ? 409 : 400)
    }
    return showSecret(reply, presentChannelWithSecret(row), `${PATH}/${row.id}?notice=channel-created`)
  })

  app.get(`${PATH}/:id`, { config: { role: 'viewer' }, schema: { hide: true, params: ChannelIdParams, querystring: ChannelQuery } }, async (request, reply) => {
    const orgId = orgOf(request)
    const row = await ownChannel(request, request.params.id)
    const { status, before, tested } = request.query
    // Shown only when it is this channel's signing secret as it is now.
    const flash = request.cookies[NEW_SECRET_COOKIE]
    if (flash !== undefined) reply.clearCookie(NEW_SECRET_COOKIE, NEW_SECRET_OPTIONS)
    const [flashId, secret] = flash?.split('.') ?? []
    const [page, test] = await Promise.all([
      listChannelDeliveries(app.db, orgId, row.id, { status, before, limit: DELIVERY_PAGE_DEFAULT }),
      tested ? findDelivery(app.db, orgId, tested) : undefined,
    ])
    const deliveries = (page?.deliveries ?? []).map(presentDelivery)
    const attempts = await attemptLogs(app.db, orgId, deliveries.map((d) => d.id))
    return sendPage(reply, channelPage(pageContext(app, request, reply), {
      channel: presentChannel(row),
      secret: flashId === row.id && secret && secret === row.secret ? secret : undefined,
      tested: test?.channelId === row.id ? presentDeliveryDetail(test) : undefined,
      deliveries,
      attempts,
      status,
      before,
      nextBefore: page?.nextBefore,
      notice: request.query.notice,
    }))
  })

  app.get(`${PATH}/:id/edit`, { config: { role: 'editor' }, schema: { hide: true, params: ChannelIdParams } }, async (request, reply) => {
    const channel = presentChannel(await ownChannel(request, request.params.id))
    return renderEdit(request, reply, channel, channelValues(channel), null)
  })

  app.post(`${PATH}/:id/edit`, { config: { role: 'editor' }, schema: { hide: true, params: ChannelIdParams, body: Form } }, async (request, reply) => {
    const channel = presentChannel(await ownChannel(request, request.params.id))
    const result = parseUpdateChannel(channel, request.body)
    if (!result.ok) return renderEdit(request, reply, channel, request.body, result.error)
    let updated
    try {
      updated = await updateChannel(app.db, orgOf(request), channel.id, result.value, {
        allowPrivateTargets, now: app.clock(), audit: sessionAudit(request), checkConfig: channelConfigCheck(allowPrivateTargets),
      })
    } catch (err) {
      return renderEdit(request, reply, channel, request.body, refusal(err))
    }
    if (!updated) throw notFound()
    return seeOther(reply, `${PATH}/${channel.id}?notice=channel-saved`)
  })

  app.post(`${PATH}/:id/test`, { config: { role: 'editor' }, schema: { hide: true, params: ChannelIdParams, body: Form } }, async (request, reply) => {
    const delivery = await sendTestEvent(app.db, orgOf(request), request.params.id, app.clock(), testDeliveryOptions(), sessionAudit(request))
    if (!delivery) throw notFound()
    return seeOther(reply, `${PATH}/${request.params.id}?tested=${delivery.id}#test-result`)
  })

  app.post(`${PATH}/:id/rotate-secret`, { config: { role: 'editor' }, schema: { hide: true, params: ChannelIdParams, body: Form } }, async (request, reply) => {
    const row = await rotateSecret(app.db, orgOf(request), request.params.id, app.clock(), sessionAudit(request))
    if (!row) throw notFound()
    return showSecret(reply, presentChannelWithSecret(row), `${PATH}/${row.id}`)
  })

  app.post(`${PATH}/:id/delete`, { config: { role: 'editor' }, schema: { hide: true, params: ChannelIdParams, body: Form } }, async (request, reply) => {
    if (!await deleteChannel(app.db, orgOf(request), request.params.id, app.clock(), sessionAudit(request))) throw notFound()
    return seeOther(reply, `${PATH}?notice=channel-deleted`)
  })

  app.post(`${PATH}/deliveries/:id/retry`, { config: { role: 'editor' }, schema: { hide: true, params: DeliveryIdParams, body: Form } }, async (request, reply) => {
    const delivery = await retryDelivery(app.db, orgOf(request), request.params.id, app.clock(), sessionAudit(request))
    if (!delivery) throw new HttpError(404, 'There is no such delivery, or it is not yours.')
    return seeOther(reply, `${PATH}/${delivery.channelId}?notice=delivery-retried#delivery-${delivery.id}`)
  })
}

export default dashboardNotificationRoutes
