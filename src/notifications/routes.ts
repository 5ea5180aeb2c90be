// The notification API, HTTP only: the caller's channels, a test event, a webhook's secret rotation, a channel's
// deliveries, one delivery and its retry. The service decides; the presenter shapes the answer.
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedOrg, keyAudit } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { nextPageLinkHeader, setNextPageLink } from '../http/paging.ts'
import { bodyValidator } from '../http/validation.ts'
import { CHANNEL_TYPES, type ChannelType } from '../domain/vocabulary.ts'
import { ConfigSchema, emailConfigured, type Config } from '../runtime/config.ts'
import { limitMessage } from '../services/owner-limits.ts'
import { deliveryOptionsFromConfig, type DeliveryOptions } from './deliver.ts'
import { presentChannel, presentChannelWithSecret, presentDelivery, presentDeliveryDetail } from './presenter.ts'
import {
  CHANNEL_CONFIG_SCHEMAS, ChannelEnvelope, ChannelIdParams, ChannelListEnvelope, ChannelWithSecretEnvelope, CreateChannelSchema,
  DeliveryEnvelope, DeliveryIdParams, DeliveryListEnvelope, DeliveryListQuery, UpdateChannelSchema, type NewChannel,
} from './schema.ts'
import {
  createChannel, deleteChannel, findChannel, findDelivery, listChannelDeliveries, listChannels, retryDelivery, rotateSecret,
  sendTestEvent, updateChannel,
} from './service.ts'

interface NotificationRoutesOptions {
  config: Config
}

const NOT_FOUND = 'Notification channel not found'
const channelNotFound = () => new HttpError(404, NOT_FOUND)
const DELIVERY_NOT_FOUND = 'Delivery not found'
const deliveryNotFound = () => new HttpError(404, DELIVERY_NOT_FOUND)

function channelErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such notification channel for this caller', NOT_FOUND)
  return responses
}

function deliveryErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such delivery for this caller', DELIVERY_NOT_FOUND)
  return responses
}

// An update's merged config is checked as the type's config, with the messages of the body's validation.
const configValidators = Object.fromEntries(CHANNEL_TYPES.map((type) =>
  [type, bodyValidator(Type.Object({ config: CHANNEL_CONFIG_SCHEMAS[type] }))])) as Record<ChannelType, ReturnType<typeof bodyValidator>>

function checkConfig (type: ChannelType, config: Record<string, unknown>): void {
  const result = configValidators[type]({ config })
  if (!result.ok) throw new HttpError(400, result.error.message)
}

const notificationRoutes: FastifyPluginAsyncTypebox<NotificationRoutesOptions> = async (app, { config }) => {
  const allowPrivateTargets = config.ALLOW_PRIVATE_TARGETS
  // The test route's sender, made on its first use (its connections close with the app).
  let deliveryOptions: DeliveryOptions | undefined
  const testDeliveryOptions = () => (deliveryOptions ??= { ...deliveryOptionsFromConfig(config, app.log), clock: app.clock })
  app.addHook('onClose', async () => { await deliveryOptions?.transport.close() })
  app.get('/notification-channels', {
    schema: {
      tags: ['notifications'],
      summary: 'List notification channels',
      description: 'The caller\'s channels, newest created first, secrets masked.',
      operationId: 'listNotificationChannels',
      response: { 200: ChannelListEnvelope, ...channelErrors() },
    },
    config: { role: 'viewer' },
  }, async (request) => ({ data: (await listChannels(app.db, confirmedOrg(request))).map(presentChannel) }))

  app.get('/notification-channels/:id', {
    schema: {
      tags: ['notifications'],
      summary: 'Get a notification channel',
      description: 'The caller\'s channel, its secrets masked (`…` and their last 4 characters).',
      operationId: 'getNotificationChannel',
      params: ChannelIdParams,
      response: { 200: ChannelEnvelope, ...channelErrors(400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const row = await findChannel(app.db, confirmedOrg(request), request.params.id)
    if (!row) throw channelNotFound()
    return { data: presentChannel(row) }
  })

  app.post('/notification-channels', {
    schema: {
      tags: ['notifications'],
      summary: 'Create a notification channel',
      description: 'Answers 201 with the channel and a `Location` header. A webhook channel\'s answer carries its signing ' +
        'secret, `secret`, this once: keep it to verify the `webhook-signature` of its requests. Every URL of the config ' +
        'passes the target policy; secrets are masked in every answer. Email channels need the operator\'s mail server (SMTP_URL). ' +
        'A user holds at most the operator\'s MAX_CHANNELS_PER_OWNER channels: one more is refused with 409.',
      operationId: 'createNotificationChannel',
      body: Type.Ref(CreateChannelSchema),
      response: {
        201: {
          ...ChannelWithSecretEnvelope,
          description: 'The created channel, with a webhook\'s signing secret',
          headers: {
            location: Type.String({
              description: 'The path of the new channel', examples: ['/api/v1/notification-channels/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'],
            }),
          },
        },
        ...channelErrors(400, 403, 413, 415),
        409: errorResponse(409, 'The user holds as many channels as the operator allows (MAX_CHANNELS_PER_OWNER)', limitMessage('channels', ConfigSchema.properties.MAX_CHANNELS_PER_OWNER.default)),
      },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    // Validation applied the schema's defaults (useDefaults): every field is there.
    const row = await createChannel(app.db, confirmedOrg(request), request.body as NewChannel, {
      allowPrivateTargets, emailConfigured: emailConfigured(config), maxChannels: config.MAX_CHANNELS_PER_OWNER, now: app.clock(), audit: keyAudit(request),
    })
    reply.code(201).header('location', `/api/v1/notification-channels/${row.id}`)
    return { data: presentChannelWithSecret(row) }
  })

  app.patch('/notification-channels/:id', {
    schema: {
      tags: ['notifications'],
      summary: 'Update a notification channel',
      description: 'Any subset of the writable fields; `{}` is a no-op. `config` is merged over the stored one and checked as ' +
        'the type\'s config; `type` cannot change. `is_active: true` turns on a channel the service turned off (`disabled_reason`).',
      operationId: 'updateNotificationChannel',
      params: ChannelIdParams,
      body: Type.Ref(UpdateChannelSchema),
      response: { 200: ChannelEnvelope, ...channelErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await updateChannel(app.db, confirmedOrg(request), request.params.id, request.body, {
      allowPrivateTargets, now: app.clock(), audit: keyAudit(request), checkConfig,
    })
    if (!row) throw channelNotFound()
    return { data: presentChannel(row) }
  })

  app.delete('/notification-channels/:id', {
    schema: {
      tags: ['notifications'],
      summary: 'Delete a notification channel',
      description: 'Deletes the channel for good, with its deliveries (their log too) and the monitors\' opt-ins to it; ' +
        'nothing is sent to it any more.',
      operationId: 'deleteNotificationChannel',
      params: ChannelIdParams,
      response: { 204: Type.Null({ description: 'Deleted; no body' }), ...channelErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    if (!await deleteChannel(app.db, confirmedOrg(request), request.params.id, app.clock(), keyAudit(request))) throw channelNotFound()
    return reply.code(204).send(null)
  })

  app.post('/notification-channels/:id/test', {
    schema: {
      tags: ['notifications'],
      summary: 'Send a test event',
      description: 'Writes a `test` event for this channel alone (whatever its `events` and `is_active`) and makes its first ' +
        'attempt at once (at most 15 s); answers with the delivery after that attempt. A failed attempt is retried like any other ' +
        'while the channel is active.',
      operationId: 'testNotificationChannel',
      params: ChannelIdParams,
      response: { 200: { ...DeliveryEnvelope, description: 'The test delivery after its first attempt' }, ...channelErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const delivery = await sendTestEvent(app.db, confirmedOrg(request), request.params.id, app.clock(), testDeliveryOptions(), keyAudit(request))
    if (!delivery) throw channelNotFound()
    return { data: presentDeliveryDetail(delivery) }
  })

  app.post('/notification-channels/:id/rotate-secret', {
    schema: {
      tags: ['notifications'],
      summary: 'Rotate a webhook\'s signing secret',
      description: 'A new signing secret for a webhook channel, in `secret`, shown this once. For 24 hours requests are signed ' +
        'with both the new and the old secret, so receivers can switch without losing a message. Other types have no secret (400).',
      operationId: 'rotateNotificationChannelSecret',
      params: ChannelIdParams,
      response: { 200: { ...ChannelWithSecretEnvelope, description: 'The channel with its new signing secret' }, ...channelErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request) => {
    const row = await rotateSecret(app.db, confirmedOrg(request), request.params.id, app.clock(), keyAudit(request))
    if (!row) throw channelNotFound()
    return { data: presentChannelWithSecret(row) }
  })

  app.get('/notification-channels/:id/deliveries', {
    schema: {
      tags: ['notifications'],
      summary: 'List deliveries of a channel',
      description: 'The channel\'s deliveries, newest first, `limit` at a time (50 unless said). When more follow, the answer ' +
        'carries `Link: <...>; rel="next"`, the URL of the next page.',
      operationId: 'listChannelDeliveries',
      params: ChannelIdParams,
      querystring: DeliveryListQuery,
      response: {
        200: {
          ...DeliveryListEnvelope,
          headers: nextPageLinkHeader('deliveries', '/api/v1/notification-channels/3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d/deliveries?limit=50&before=2026-11-21T09%3A30%3A00.000Z'),
        },
        ...channelErrors(400, 404),
      },
    },
    config: { role: 'viewer' },
  }, async (request, reply) => {
    const { id } = request.params
    const query = { ...request.query, limit: request.query.limit! }
    const page = await listChannelDeliveries(app.db, confirmedOrg(request), id, query)
    if (!page) throw channelNotFound()
    if (page.nextBefore) {
      setNextPageLink(reply, `/api/v1/notification-channels/${id}/deliveries`, { status: query.status, limit: query.limit, before: page.nextBefore })
    }
    return { data: page.deliveries.map(presentDelivery) }
  })

  app.get('/deliveries/:id', {
    schema: {
      tags: ['notifications'],
      summary: 'Get a delivery',
      description: 'One delivery of the caller\'s channels, with every attempt in `attempt_log`.',
      operationId: 'getDelivery',
      params: DeliveryIdParams,
      response: { 200: DeliveryEnvelope, ...deliveryErrors(400, 404) },
    },
    config: { role: 'viewer' },
  }, async (request) => {
    const delivery = await findDelivery(app.db, confirmedOrg(request), request.params.id)
    if (!delivery) throw deliveryNotFound()
    return { data: presentDeliveryDetail(delivery) }
  })

  app.post('/deliveries/:id/retry', {
    schema: {
      tags: ['notifications'],
      summary: 'Retry a delivery',
      description: 'Makes the delivery due now, whatever its status (`dead` ones too; a `delivered` one is sent again), ' +
        'keeping its attempts. Answers 202 with it, `pending`: the delivery worker sends it within about a second, once its ' +
        'channel is active (a channel turned off by 410 Gone is turned on with `is_active: true`).',
      operationId: 'retryDelivery',
      params: DeliveryIdParams,
      response: { 202: { ...DeliveryEnvelope, description: 'The delivery, due now' }, ...deliveryErrors(400, 403, 404, 413, 415) },
    },
    config: { role: 'editor' },
  }, async (request, reply) => {
    const delivery = await retryDelivery(app.db, confirmedOrg(request), request.params.id, app.clock(), keyAudit(request))
    if (!delivery) throw deliveryNotFound()
    return reply.code(202).send({ data: presentDeliveryDetail(delivery) })
  })
}

export default notificationRoutes
