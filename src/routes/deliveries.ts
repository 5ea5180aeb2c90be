// Delivery routes: one delivery of the caller's with its attempts, and a retry of it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { confirmedCaller } from '../plugins/auth.ts'
import { errorResponse, errorResponses, HttpError } from '../http/error-catalog.ts'
import { DeliveryEnvelope, DeliveryIdParams } from '../schemas/delivery.ts'
import { findDelivery, retryDelivery } from '../repositories/deliveries.ts'

const NOT_FOUND = 'Delivery not found'
const deliveryNotFound = () => new HttpError(404, NOT_FOUND)

function deliveryErrors (...statuses: Parameters<typeof errorResponses>) {
  const responses = errorResponses(...statuses)
  if (responses[404]) responses[404] = errorResponse(404, 'No such delivery for this caller', NOT_FOUND)
  return responses
}

const deliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/deliveries/:id', {
    schema: {
      tags: ['notifications'],
      summary: 'Get a delivery',
      description: 'One delivery of the caller\'s channels, with every attempt in `attempt_log`.',
      operationId: 'getDelivery',
      params: DeliveryIdParams,
      response: { 200: DeliveryEnvelope, ...deliveryErrors(400, 404) },
    },
  }, async (request) => {
    const delivery = await findDelivery(app.db, confirmedCaller(request), request.params.id)
    if (!delivery) throw deliveryNotFound()
    return { data: delivery }
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
  }, async (request, reply) => {
    const delivery = await retryDelivery(app.db, confirmedCaller(request), request.params.id, app.clock())
    if (!delivery) throw deliveryNotFound()
    return reply.code(202).send({ data: delivery })
  })
}

export default deliveryRoutes
