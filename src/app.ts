// The composition root: buildApp puts the API's plugins, routes and dashboard together (not listening).
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { dnsServers, emailConfigured, loadConfig, parseWindowMs, type Config } from './runtime/config.ts'
import { systemClock, type Clock } from './runtime/clock.ts'
import { logSerializers } from './runtime/log-redaction.ts'
import type { DatabaseHandle } from './db/client.ts'
import { createValidatorCompiler, schemaErrorFormatter } from './http/validation.ts'
import { createSerializerCompiler } from './http/serialization.ts'
import { OneLineRequestLog } from './http/request-log.ts'
import { useJsonBodyParser } from './http/json-body.ts'
import { trustProxyOption } from './http/trust-proxy.ts'
import dbPlugin from './plugins/db.ts'
import backgroundWritesPlugin from './plugins/background-writes.ts'
import changesPlugin from './plugins/changes.ts'
import metricsPlugin from './plugins/metrics.ts'
import errorsPlugin, { clientErrorHandler, frameworkErrors, setNotFoundHandler } from './plugins/errors.ts'
import organizationRoutes from './organizations/routes.ts'
import auditRoutes from './audit/routes.ts'
import { AuditEventSchema } from './audit/schema.ts'
import {
  AcceptInvitationSchema, CreatedInvitationSchema, CreateInvitationSchema, InvitationSchema, MemberSchema, OrganizationSchema,
  UpdateMemberSchema, UpdateOrganizationSchema,
} from './organizations/schema.ts'
import authPlugin, { assertRouteRole } from './plugins/auth.ts'
import rateLimitPlugin from './plugins/rate-limit.ts'
import signInThrottlePlugin from './plugins/sign-in-throttle.ts'
import schemasPlugin from './plugins/schemas.ts'
import openapiPlugin from './plugins/openapi.ts'
import apiResponsesPlugin from './plugins/api-responses.ts'
import healthRoutes from './routes/health.ts'
import pingRoutes from './routes/pings.ts'
import metricsRoutes from './routes/metrics.ts'
import monitorRoutes from './monitors/routes.ts'
import checkRoutes from './routes/checks.ts'
import incidentRoutes from './incidents/routes.ts'
import maintenanceRoutes from './maintenance/routes.ts'
import locationRoutes from './locations/routes.ts'
import agentRoutes from './locations/agent-routes.ts'
import uptimeRoutes from './routes/uptime.ts'
import statusPageRoutes from './status-pages/routes.ts'
import publicStatusRoutes from './status-pages/public-routes.ts'
import subscriberRoutes, { SubscribeSchema } from './status-pages/subscriber-routes.ts'
import { RedisSnapshotStore } from './status-pages/shared-snapshots.ts'
import { PageSnapshots, SNAPSHOT_TIMING } from './status-pages/snapshots.ts'
import { CustomDomainHosts } from './status-pages/domain-hosts.ts'
import {
  ComponentSchema, CreateComponentSchema, CreateReportSchema, CreateStatusPageSchema, PostReportUpdateSchema, ReportDraftSchema,
  ReportUpdateSchema, StatusPageSchema, StatusReportSchema, UpdateComponentSchema, UpdateReportSchema, UpdateStatusPageSchema,
} from './status-pages/schema.ts'
import notificationRoutes from './notifications/routes.ts'
import dashboardPlugin from './dashboard/plugin.ts'
import { ErrorSchema } from './schemas/common.ts'
import { CheckSchema } from './schemas/check.ts'
import { IncidentSchema } from './schemas/incident.ts'
import { AcknowledgeSchema, CreateNoteSchema, IncidentDetailSchema, IncidentNoteSchema } from './incidents/schema.ts'
import {
  CreateMaintenanceWindowSchema, MaintenanceWindowSchema, StartMaintenanceSchema, UpdateMaintenanceWindowSchema,
} from './maintenance/schema.ts'
import {
  AgentAssignmentSchema, AgentHelloReplySchema, AgentHelloSchema, AgentResultSchema, AgentResultsReplySchema, AgentResultsSchema, CreateLocationSchema,
  LocationSchema, LocationWithTokenSchema,
} from './locations/schema.ts'
import { UptimeReportSchema } from './schemas/uptime.ts'
import { NotificationEventSchema } from './schemas/notification-event.ts'
import { CreateMonitorSchema, MonitorListItemSchema, MonitorSchema, UpdateMonitorSchema } from './monitors/schema.ts'
import {
  CreateChannelSchema, DeliveryDetailSchema, DeliverySchema, NotificationChannelSchema, NotificationChannelWithSecretSchema,
  UpdateChannelSchema,
} from './notifications/schema.ts'

export interface BuildAppOptions {
  config: Config
  clock?: Clock
  /** Use this open database instead of opening one from the config (the caller closes it). */
  database?: DatabaseHandle
  /** Pino logger options, or false for none; by default pino's, at LOG_LEVEL, to stdout. */
  logger?: boolean | object
}

const BODY_LIMIT = 1024 * 1024

/** Every $id schema routes refer to (bodies too, so the document names them); the validator compiler gets it too. */
export const SHARED_SCHEMAS = [
  ErrorSchema, MonitorSchema, MonitorListItemSchema, CheckSchema, IncidentSchema,
  NotificationChannelSchema, NotificationChannelWithSecretSchema, DeliverySchema, DeliveryDetailSchema, NotificationEventSchema,
  CreateMonitorSchema, UpdateMonitorSchema, CreateChannelSchema, UpdateChannelSchema, UptimeReportSchema,
  OrganizationSchema, UpdateOrganizationSchema, MemberSchema, UpdateMemberSchema, InvitationSchema, CreatedInvitationSchema,
  CreateInvitationSchema, AcceptInvitationSchema, AuditEventSchema, IncidentDetailSchema, IncidentNoteSchema, AcknowledgeSchema, CreateNoteSchema,
  MaintenanceWindowSchema, CreateMaintenanceWindowSchema, UpdateMaintenanceWindowSchema, StartMaintenanceSchema,
  StatusPageSchema, CreateStatusPageSchema, UpdateStatusPageSchema, ComponentSchema, CreateComponentSchema, UpdateComponentSchema,
  ReportUpdateSchema, StatusReportSchema, CreateReportSchema, UpdateReportSchema, PostReportUpdateSchema, ReportDraftSchema, SubscribeSchema,
  LocationSchema, LocationWithTokenSchema, CreateLocationSchema, AgentHelloSchema, AgentHelloReplySchema,
  AgentAssignmentSchema, AgentResultSchema, AgentResultsSchema, AgentResultsReplySchema,
]

export async function buildApp ({ config, clock = systemClock, database, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Every logger gets the redacting error serializer, whoever made its options.
    logger: logger === false ? false : { level: config.LOG_LEVEL, ...(typeof logger === 'object' ? logger : {}), serializers: logSerializers },
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    // The database plugin migrates before the app is ready, which can outlast Fastify's default on a small box.
    pluginTimeout: 120_000,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    logController: new OneLineRequestLog(),
    // Requests arriving during shutdown get our own 503 body (plugins/errors.ts).
    return503OnClosing: false,
    // A slow client gets 408 (slowloris). Node applies requestTimeout to a body only when headersTimeout is not
    // longer, and checks every connectionsCheckingInterval, so the interval follows the timeout.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: 60_000,
    http: {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.floor(config.REQUEST_TIMEOUT_MS / 4))),
      // Node's check answers a missing Host with an empty 400; plugins/errors.ts gives it the `{error}` body.
      requireHostHeader: false,
    },
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    schemaErrorFormatter,
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Before any route: a custom domain's Host reaches its status page's routes alone (status-pages/domain-hosts.ts).
  const customDomains = new CustomDomainHosts(config.PUBLIC_URL)
  app.addConstraintStrategy(customDomains.strategy)
  app.setValidatorCompiler(createValidatorCompiler(SHARED_SCHEMAS))
  app.setSerializerCompiler(createSerializerCompiler(SHARED_SCHEMAS))
  // Only JSON bodies are accepted: anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain')
  useJsonBodyParser(app)

  await app.register(errorsPlugin)
  await app.register(dbPlugin, { DATABASE_URL: config.DATABASE_URL, DATA_DIR: config.DATA_DIR, clock, database })
  await app.register(backgroundWritesPlugin)
  await app.register(changesPlugin)
  // Early: its request counter's hook reaches the plugins registered after it.
  await app.register(metricsPlugin, { token: config.METRICS_TOKEN })
  await app.register(authPlugin)
  await app.register(rateLimitPlugin, {
    max: config.RATE_LIMIT_MAX,
    timeWindowMs: parseWindowMs(config.RATE_LIMIT_WINDOW),
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
  })
  await app.register(signInThrottlePlugin, { redisUrl: config.REDIS_URL, redisPrefix: config.REDIS_PREFIX })
  setNotFoundHandler(app)
  await app.register(schemasPlugin, { schemas: SHARED_SCHEMAS })
  await app.register(openapiPlugin, { publicUrl: config.PUBLIC_URL })
  await app.register(healthRoutes)
  await app.register(metricsRoutes, { token: config.METRICS_TOKEN })
  // Heartbeats' ping URLs: at the root (short URLs for cron lines), no key, their own rate limit per token.
  await app.register(pingRoutes, { perMinute: config.PING_RATE_LIMIT })
  const snapshots = new PageSnapshots({
    db: app.db,
    clock: app.clock,
    publicUrl: config.PUBLIC_URL,
    subscriptions: emailConfigured(config),
    onError: (error) => app.log.warn({ err: error }, 'status page snapshot not rebuilt or not shared'),
    shared: config.REDIS_URL === undefined ? undefined : await sharedSnapshotStore(app, config.REDIS_URL, config.REDIS_PREFIX),
    onSnapshot: (source) => app.metrics?.statusSnapshot(source),
  })
  snapshots.listen(app.changes)
  app.addHook('onClose', async () => snapshots.close())
  await customDomains.start(app.db, (error) => app.log.warn({ err: error }, 'custom domains not read'))
  app.addHook('onClose', async () => customDomains.stop())
  await app.register(publicStatusRoutes, { snapshots, customDomains })
  await app.register(subscriberRoutes, { snapshots, customDomains, enabled: emailConfigured(config) })
  await app.register(async (api) => {
    // First: compression takes the routes registered after it.
    await api.register(apiResponsesPlugin, { corsOrigins: config.CORS_ORIGINS })
    api.addHook('preParsing', app.requireApiKey)
    api.addHook('onRoute', assertRouteRole)
    await api.register(monitorRoutes, { allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS, publicUrl: config.PUBLIC_URL, maxMonitors: config.MAX_MONITORS_PER_OWNER })
    await api.register(checkRoutes)
    await api.register(incidentRoutes)
    await api.register(maintenanceRoutes)
    await api.register(locationRoutes)
    await api.register(statusPageRoutes, { snapshots, customDomains, dnsServers: dnsServers(config) })
    await api.register(uptimeRoutes)
    await api.register(notificationRoutes, { config })
    await api.register(organizationRoutes, { config })
    await api.register(auditRoutes)
  }, { prefix: '/api/v1' })
  // Agents authenticate with their location's token, not an API key: a scope of their own under the same prefix.
  await app.register(agentRoutes, { prefix: '/api/v1', confirmDelayMs: config.CHECK_CONFIRM_DELAY * 1000 })
  await app.register(dashboardPlugin, { allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS, config, customDomains, snapshots })
  return app
}

/** Status page snapshots in Redis, shared by every API process; fails fast while Redis is away (each process then builds alone). */
async function sharedSnapshotStore (app: FastifyInstance, redisUrl: string, prefix: string): Promise<RedisSnapshotStore> {
  const { Redis } = await import('ioredis')
  const redis = new Redis(redisUrl, { connectTimeout: 2000, commandTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  // Its failures reach the snapshots through the commands that fail; the event itself would only print.
  redis.on('error', () => {})
  app.addHook('onClose', async () => { await redis.quit().catch(() => redis.disconnect()) })
  return new RedisSnapshotStore(redis, prefix, 2 * SNAPSHOT_TIMING.maxAgeMs)
}

/** The OpenAPI document exactly as the running service serves it (for openapi/openapi.json). */
export async function renderOpenApi (): Promise<string> {
  const app = await buildApp({ config: loadConfig({ DATA_DIR: 'memory://', CHECKER: 'off' }), logger: false })
  try {
    await app.ready()
    return JSON.stringify(app.swagger(), null, 2) + '\n'
  } finally {
    await app.close()
  }
}
