// Rate limit per API key (per client address without a valid key), in Redis when configured.
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { Redis } from 'ioredis'
import { HttpError } from '../http/error-catalog.ts'

interface RateLimitOptions {
  max: number
  timeWindowMs: number
  redisUrl?: string
  redisPrefix?: string
}

export default fp<RateLimitOptions>(async (app, options) => {
  let redis: Redis | undefined
  if (options.redisUrl) {
    // Loaded only when configured: most installations have no Redis.
    const { Redis } = await import('ioredis')
    redis = new Redis(options.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: true })
    app.addHook('onClose', async () => { await redis!.quit().catch(() => redis!.disconnect()) })
  }
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.timeWindowMs,
    redis,
    nameSpace: options.redisPrefix ?? 'pingward-rl:',
    // An unreachable Redis must not take the API down with it: requests pass, the error is logged.
    skipOnError: true,
    keyGenerator: (request) => request.principal ? `key:${request.principal.keyId}` : `ip:${request.ip}`,
    errorResponseBuilder: () => new HttpError(429),
  })
}, { name: 'rate-limit', fastify: '5.x', dependencies: ['auth'] })
