// The OpenAPI document: committed copy in sync with the routes, valid, complete, served, and the typed client made from it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import SwaggerParser from '@apidevtools/swagger-parser'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import t from 'tap'
import { renderOpenApi } from '../../src/app.ts'
import { OPENAPI_PATH } from '../../src/plugins/openapi.ts'
import { buildTestApp } from '../helper.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const COMMITTED_PATH = 'openapi/openapi.json'
const CLIENT_TYPES_PATH = 'test/client/pingward-api.d.ts'
const GENERATED_PATH = 'test-output/generated/pingward-api.d.ts'
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: unknown[]
  responses: Record<string, { description?: string }>
}

const committedText = readFileSync(`${ROOT}${COMMITTED_PATH}`, 'utf8')
const committed = JSON.parse(committedText) as OpenAPI3
// What the routes produce now, rendered exactly as `npm run openapi` does.
const rendered = await renderOpenApi()
const current = JSON.parse(rendered) as OpenAPI3

function operations (doc: OpenAPI3): Array<{ name: string, path: string, op: Operation }> {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) => METHODS
    .filter((method) => (item as Record<string, unknown>)[method])
    .map((method) => ({ name: `${method.toUpperCase()} ${path}`, path, op: (item as Record<string, Operation>)[method] })))
}

t.test(`${COMMITTED_PATH} is what the routes produce now`, async (t) => {
  t.same(committed, current, `${COMMITTED_PATH} is out of date: run \`npm run openapi\` and commit the result`)
  t.equal(committedText, rendered, `${COMMITTED_PATH} is not formatted as \`npm run openapi\` writes it: run it`)
})

t.test('the document is valid OpenAPI 3.1', async (t) => {
  t.equal(current.openapi, '3.1.0')
  // validate() dereferences in place: give it a copy.
  const api = await SwaggerParser.validate(structuredClone(current) as never)
  t.equal(api.info.title, 'Pingward API')
})

// A subscriber's steps, from a mail's link in a browser: they answer pages, not a copy to revalidate.
const SUBSCRIPTION = /^(GET|HEAD|POST) \/status\/\{slug\}\/(subscribe|subscription|unsubscribe)/
// Answers a person reads in a browser: the password form again, a subscriber's link that is no more, a bad history link.
const HTML_ERRORS = new Set([
  'POST /status/{slug} 401', 'GET /status/{slug}/history 400', 'GET /status/{slug}/subscription 404', 'POST /status/{slug}/subscription/confirm 404', 'POST /status/{slug}/unsubscribe 404',
])

t.test('every operation is documented: id, summary, tag, its success and its error statuses, each described', async (t) => {
  const ops = operations(current)
  const heads = ops.filter((o) => o.name.startsWith('HEAD ')).map((o) => o.name)
  t.same(heads.sort(), ops.filter((o) => o.name.startsWith('GET ')).map((o) => o.name.replace('GET', 'HEAD')).sort(), 'each GET has its HEAD')
  t.same(ops.map((o) => o.name).filter((name) => !heads.includes(name)).sort(), [
    'DELETE /api/v1/locations/{code}',
    'DELETE /api/v1/maintenance-windows/{id}',
    'DELETE /api/v1/monitors/{id}',
    'DELETE /api/v1/notification-channels/{id}',
    'DELETE /api/v1/organization',
    'DELETE /api/v1/organization/invitations/{id}',
    'DELETE /api/v1/organization/members/{user_id}',
    'DELETE /api/v1/status-pages/{id}',
    'DELETE /api/v1/status-pages/{id}/components/{component_id}',
    'DELETE /api/v1/status-reports/{id}',
    'GET /api/v1/agent/assignments',
    'GET /api/v1/audit-events',
    'GET /api/v1/deliveries/{id}',
    'GET /api/v1/incidents/{id}',
    'GET /api/v1/incidents/{id}/status-report-draft',
    'GET /api/v1/locations',
    'GET /api/v1/locations/{code}',
    'GET /api/v1/maintenance-windows',
    'GET /api/v1/maintenance-windows/{id}',
    'GET /api/v1/monitors',
    'GET /api/v1/monitors/{id}',
    'GET /api/v1/monitors/{id}/checks',
    'GET /api/v1/monitors/{id}/incidents',
    'GET /api/v1/monitors/{id}/uptime',
    'GET /api/v1/notification-channels',
    'GET /api/v1/notification-channels/{id}',
    'GET /api/v1/notification-channels/{id}/deliveries',
    'GET /api/v1/openapi.json',
    'GET /api/v1/organization',
    'GET /api/v1/organization/invitations',
    'GET /api/v1/organization/members',
    'GET /api/v1/status-pages',
    'GET /api/v1/status-pages/{id}',
    'GET /api/v1/status-pages/{id}/components',
    'GET /api/v1/status-pages/{id}/components/{component_id}',
    'GET /api/v1/status-reports',
    'GET /api/v1/status-reports/{id}',
    'GET /healthz',
    'GET /metrics',
    'GET /ping/{token}',
    'GET /ping/{token}/fail',
    'GET /readyz',
    'GET /status-domains/check',
    'GET /status/{slug}',
    'GET /status/{slug}/api/v2/status.json',
    'GET /status/{slug}/api/v2/summary.json',
    'GET /status/{slug}/badge.json',
    'GET /status/{slug}/badge.svg',
    'GET /status/{slug}/components/{component_id}/badge.json',
    'GET /status/{slug}/components/{component_id}/badge.svg',
    'GET /status/{slug}/history',
    'GET /status/{slug}/history.atom',
    'GET /status/{slug}/maintenance.ics',
    'GET /status/{slug}/subscription',
    'GET /status/{slug}/summary.json',
    'PATCH /api/v1/maintenance-windows/{id}',
    'PATCH /api/v1/monitors/{id}',
    'PATCH /api/v1/notification-channels/{id}',
    'PATCH /api/v1/organization',
    'PATCH /api/v1/organization/members/{user_id}',
    'PATCH /api/v1/status-pages/{id}',
    'PATCH /api/v1/status-pages/{id}/components/{component_id}',
    'PATCH /api/v1/status-reports/{id}',
    'POST /api/v1/agent/hello',
    'POST /api/v1/agent/results',
    'POST /api/v1/deliveries/{id}/retry',
    'POST /api/v1/incidents/{id}/acknowledge',
    'POST /api/v1/incidents/{id}/notes',
    'POST /api/v1/invitations/accept',
    'POST /api/v1/locations',
    'POST /api/v1/locations/{code}/rotate-token',
    'POST /api/v1/maintenance-windows',
    'POST /api/v1/maintenance-windows/{id}/end',
    'POST /api/v1/maintenance-windows/{id}/start',
    'POST /api/v1/monitors',
    'POST /api/v1/notification-channels',
    'POST /api/v1/notification-channels/{id}/rotate-secret',
    'POST /api/v1/notification-channels/{id}/test',
    'POST /api/v1/organization/invitations',
    'POST /api/v1/status-pages',
    'POST /api/v1/status-pages/{id}/components',
    'POST /api/v1/status-pages/{id}/verify-domain',
    'POST /api/v1/status-reports',
    'POST /api/v1/status-reports/{id}/updates',
    'POST /ping/{token}',
    'POST /ping/{token}/fail',
    'POST /status/{slug}',
    'POST /status/{slug}/subscribe',
    'POST /status/{slug}/subscription/confirm',
    'POST /status/{slug}/unsubscribe',
  ], 'the documented operations')
  const success: Record<string, string> = {
    'POST /api/v1/monitors': '201',
    'DELETE /api/v1/monitors/{id}': '204',
    'POST /api/v1/notification-channels': '201',
    'DELETE /api/v1/notification-channels/{id}': '204',
    'DELETE /api/v1/organization': '204',
    'DELETE /api/v1/organization/members/{user_id}': '204',
    'DELETE /api/v1/organization/invitations/{id}': '204',
    'POST /api/v1/organization/invitations': '201',
    'POST /api/v1/deliveries/{id}/retry': '202',
    'POST /api/v1/incidents/{id}/notes': '201',
    'POST /api/v1/maintenance-windows': '201',
    'POST /api/v1/status-pages': '201',
    'DELETE /api/v1/status-pages/{id}': '204',
    'POST /api/v1/status-pages/{id}/components': '201',
    'DELETE /api/v1/status-pages/{id}/components/{component_id}': '204',
    'POST /api/v1/status-reports': '201',
    'DELETE /api/v1/status-reports/{id}': '204',
    'POST /api/v1/status-reports/{id}/updates': '201',
    'POST /status/{slug}': '303',
    'DELETE /api/v1/maintenance-windows/{id}': '204',
    'POST /api/v1/locations': '201',
    'DELETE /api/v1/locations/{code}': '204',
  }
  const tagNames = new Set((current.tags ?? []).map((tag) => tag.name))
  const ids = new Set<string>()
  for (const { name, path, op } of ops) {
    t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${name}: operationId`)
    t.notOk(ids.has(op.operationId!), `${name}: operationId is unique`)
    ids.add(op.operationId!)
    t.ok(op.summary?.trim(), `${name}: summary`)
    t.ok(op.tags?.length && op.tags.every((tag) => tagNames.has(tag)), `${name}: tags, each declared at the top`)
    const statuses = Object.keys(op.responses)
    t.ok(statuses.includes(success[name] ?? '200'), `${name}: declares ${success[name] ?? '200'}`)
    for (const [status, response] of Object.entries(op.responses)) {
      t.ok(response.description?.trim(), `${name} ${status}: has a description`)
    }
    if (name.startsWith('HEAD ')) {
      const get = (current.paths![path] as Record<string, Operation>).get
      t.same(statuses, Object.keys(get.responses), `${name}: the GET's statuses`)
      t.notOk(Object.values(op.responses).some((response) => 'content' in response), `${name}: no bodies`)
    }
    if (path === OPENAPI_PATH) {
      // The document itself: no key, no rate limit.
      t.same(op.security, [], `${name}: no key needed`)
      t.same(statuses, ['200', '400'], `${name}: answers 200 (400: a malformed request)`)
    } else if (path.startsWith('/api/v1/agent/')) {
      // An agent's route: its location's agent token, not an API key; never a 403 (a token is its location's, whole).
      t.same(op.security, [{ agentToken: [] }], `${name}: the agent token`)
      // A read is conditional (304); a write takes a JSON body (413, 415).
      const own = name.startsWith('POST ') ? ['413', '415'] : ['304']
      t.same(statuses.sort(), ['200', '400', '401', ...own, '429', '500', '503'].sort(), `${name}: its statuses`)
    } else if (path.startsWith('/api/v1/')) {
      // Routes behind the key: unauthorized, rate limited, crashed and unavailable are all possible.
      for (const status of ['401', '429', '500', '503']) t.ok(statuses.includes(status), `${name}: declares ${status}`)
      t.notOk(op.security, `${name}: uses the document-wide bearer security`)
      if (/\{(id|user_id|code)\}/.test(path)) {
        t.ok(statuses.includes('400') && statuses.includes('404'), `${name}: a bad id is 400, an unknown one 404`)
      }
    } else if (path.startsWith('/ping/')) {
      // A heartbeat's ping URL: no key (the token is the credential), its own rate limit, any body (no 415).
      t.same(op.security, [], `${name}: no key needed`)
      t.same(statuses.sort(), ['200', '400', '404', '409', '413', '429', '500', '503'], `${name}: its statuses`)
    } else if (path.startsWith('/status/')) {
      // A public status page and its twins: no key, the API's rate limit for unknown slugs only, and a copy to revalidate.
      t.same(op.security, [], `${name}: no key needed`)
      const expected = SUBSCRIPTION.test(name)
        ? (name.startsWith('POST') ? ['200', ...name.endsWith('/subscribe') ? ['202'] : [], '400', '401', '404', '413', '429', '500', '503'] : ['200', '400', '401', '404', '429', '500', '503'])
        : name.startsWith('POST') ? ['303', '400', '401', '404', '413', '429', '500', '503'] : ['200', '304', '400', '401', '404', '429', '500', '503']
      t.same(statuses.sort(), expected, `${name}: its statuses`)
    } else if (path === '/status-domains/check') {
      // A TLS proxy's question before a certificate on demand: no key, no rate limit, answered from memory for unknown names.
      t.same(op.security, [], `${name}: no key needed`)
      t.same(statuses.sort(), ['200', '400', '404', '500', '503'], `${name}: its statuses`)
    } else if (path === '/metrics') {
      // Not an API key: the server's METRICS_TOKEN; off (404) without one.
      t.same(op.security, [{ metricsToken: [] }], `${name}: the metrics token`)
      t.same(statuses.sort(), ['200', '400', '401', '404'], `${name}: answers 200, 401 or 404 (400: a malformed request)`)
    } else {
      // The probes need no key and are not rate limited: no 401 or 429, and 503 when not ready (400: a malformed request).
      t.same(op.security, [], `${name}: no key needed`)
      t.same(statuses.sort(), ['200', '400', '503'], `${name}: answers 200 or 503`)
    }
    const bodyWrites = path.startsWith('/api/') && !path.startsWith('/api/v1/agent/') && (name.startsWith('POST') || name.startsWith('PATCH'))
    if (bodyWrites) {
      for (const status of ['400', '403', '413', '415']) t.ok(statuses.includes(status), `${name}: declares ${status}`)
    }
  }
  t.same(current.security, [{ bearerAuth: [] }])
  t.match(current.components?.securitySchemes?.bearerAuth, { type: 'http', scheme: 'bearer' })
  t.match(current.components?.securitySchemes?.agentToken, { type: 'http', scheme: 'bearer' })
  t.same(Object.keys(current.components?.schemas ?? {}).sort(), [
    'AcceptInvitationRequest', 'AcknowledgeIncidentRequest', 'AgentAssignment', 'AgentHello', 'AgentHelloRequest', 'AgentResult',
    'AgentResultsReceipt', 'AgentResultsRequest', 'ApiError', 'AuditEvent', 'Check', 'CreateDiscordChannel', 'CreateDnsMonitor',
    'CreateEmailChannel', 'CreateHeartbeatMonitor', 'CreateIncidentNoteRequest', 'CreateInvitationRequest', 'CreateLocationRequest', 'CreateMaintenanceWindowRequest',
    'CreateMonitorRequest', 'CreateNotificationChannelRequest', 'CreateNtfyChannel', 'CreatePagerdutyChannel', 'CreateSiteMonitor',
    'CreateSlackChannel', 'CreateStatusPageComponentRequest', 'CreateStatusPageRequest', 'CreateStatusReportRequest', 'CreateTcpMonitor',
    'CreateTeamsChannel', 'CreateTelegramChannel', 'CreateWebhookChannel', 'CreatedInvitation', 'Delivery', 'DeliveryDetail', 'Incident',
    'IncidentDetail', 'IncidentNote', 'Invitation', 'Location', 'LocationWithToken', 'MaintenanceWindow', 'Member', 'Monitor', 'MonitorListItem', 'NotificationChannel',
    'NotificationChannelWithSecret', 'NotificationEvent', 'Organization', 'PostStatusReportUpdateRequest', 'StartMaintenanceRequest', 'StatusPage',
    'StatusPageComponent', 'StatusReport', 'StatusReportDraft', 'StatusReportUpdate', 'SubscribeRequest', 'UpdateMaintenanceWindowRequest', 'UpdateMemberRequest',
    'UpdateMonitorRequest', 'UpdateNotificationChannelRequest', 'UpdateOrganizationRequest', 'UpdateStatusPageComponentRequest',
    'UpdateStatusPageRequest', 'UpdateStatusReportRequest', 'UptimeReport',
  ], 'components are named after the schemas (ApiError: `Error` would shadow the language\'s own in a generated SDK)')
  const create = (current.components!.schemas as Record<string, any>).CreateNotificationChannelRequest
  t.equal(create.discriminator.mapping.webhook, '#/components/schemas/CreateWebhookChannel', 'each channel type\'s body is named')
  const monitorCreate = (current.components!.schemas as Record<string, any>).CreateMonitorRequest
  t.same(monitorCreate.anyOf.map((variant: { $ref: string }) => variant.$ref.split('/').pop()),
    ['CreateSiteMonitor', 'CreateTcpMonitor', 'CreateDnsMonitor', 'CreateHeartbeatMonitor'], 'each kind of monitor\'s body is named')
  t.notOk(monitorCreate.required, 'monitor_type may be left out (site)')
})

t.test('for SDK generators: servers, named request bodies, every response header declared, an error example per status', async (t) => {
  t.same(current.servers?.map((server) => server.url), ['http://localhost:3000', '/'],
    'first the default PUBLIC_URL (generators take it as their base URL), then the instance serving the document')
  const bodies: Record<string, string> = {
    'POST /api/v1/monitors': 'CreateMonitorRequest',
    'PATCH /api/v1/monitors/{id}': 'UpdateMonitorRequest',
    'POST /api/v1/notification-channels': 'CreateNotificationChannelRequest',
    'PATCH /api/v1/notification-channels/{id}': 'UpdateNotificationChannelRequest',
    'PATCH /api/v1/organization': 'UpdateOrganizationRequest',
    'PATCH /api/v1/organization/members/{user_id}': 'UpdateMemberRequest',
    'POST /api/v1/organization/invitations': 'CreateInvitationRequest',
    'POST /api/v1/invitations/accept': 'AcceptInvitationRequest',
    'POST /api/v1/incidents/{id}/acknowledge': 'AcknowledgeIncidentRequest',
    'POST /api/v1/incidents/{id}/notes': 'CreateIncidentNoteRequest',
    'POST /api/v1/maintenance-windows': 'CreateMaintenanceWindowRequest',
    'PATCH /api/v1/maintenance-windows/{id}': 'UpdateMaintenanceWindowRequest',
    'POST /api/v1/maintenance-windows/{id}/start': 'StartMaintenanceRequest',
    'POST /api/v1/locations': 'CreateLocationRequest',
    'POST /api/v1/agent/hello': 'AgentHelloRequest',
    'POST /api/v1/agent/results': 'AgentResultsRequest',
    'POST /status/{slug}/subscribe': 'SubscribeRequest',
    'POST /api/v1/status-pages': 'CreateStatusPageRequest',
    'PATCH /api/v1/status-pages/{id}': 'UpdateStatusPageRequest',
    'POST /api/v1/status-pages/{id}/components': 'CreateStatusPageComponentRequest',
    'PATCH /api/v1/status-pages/{id}/components/{component_id}': 'UpdateStatusPageComponentRequest',
    'POST /api/v1/status-reports': 'CreateStatusReportRequest',
    'PATCH /api/v1/status-reports/{id}': 'UpdateStatusReportRequest',
    'POST /api/v1/status-reports/{id}/updates': 'PostStatusReportUpdateRequest',
  }
  const ops = operations(current) as Array<{ name: string, path: string, op: Operation & Record<string, any> }>
  for (const { name, path, op } of ops) {
    if (op.requestBody) {
      t.same(op.requestBody.content['application/json'].schema, { $ref: `#/components/schemas/${bodies[name]}` }, `${name}: a named body`)
    }
    const examples = new Map<string, string>()
    for (const [status, response] of Object.entries(op.responses) as Array<[string, Record<string, any>]>) {
      const headers = response.headers ?? {}
      // Each header named as registered, as OWASP's ruleset looks for them (HTTP itself ignores the case).
      t.same(headers['X-Request-Id'], { $ref: '#/components/headers/RequestId' }, `${name} ${status}: X-Request-Id`)
      if (path.startsWith('/api/') && path !== OPENAPI_PATH) {
        for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          t.ok(headers[header], `${name} ${status}: ${header}`)
        }
      }
      if (status === '429') t.ok(headers['Retry-After'], `${name} 429: Retry-After`)
      if (status === '401') t.ok(headers['WWW-Authenticate'], `${name} 401: WWW-Authenticate`)
      if (status === '201') t.ok(headers.Location?.description, `${name} 201: Location`)
      if (status === '200' && path.startsWith('/api/v1/') && path !== OPENAPI_PATH && /^(GET|HEAD) /.test(name)) t.ok(headers.ETag, `${name} 200: ETag`)
      t.same(Object.keys(headers).filter((header) => header === header.toLowerCase()), [], `${name} ${status}: no header named in lowercase`)
      if (name.startsWith('HEAD ')) continue
      // The password form answers a wrong password with the form again.
      if (Number(status) >= 400 && !HTML_ERRORS.has(`${name} ${status}`)) {
        const media = response.content?.['application/json']
        t.same(media?.schema, { $ref: '#/components/schemas/ApiError' }, `${name} ${status}: an ApiError`)
        t.type(media?.example?.error, 'string', `${name} ${status}: an example`)
        examples.set(status, media?.example?.error)
      }
    }
    t.equal(new Set(examples.values()).size, examples.size, `${name}: each error status has its own example`)
  }
  const components = current.components as Record<string, any>
  for (const [name, header] of Object.entries(components.headers)) {
    t.ok((header as { description?: string }).description, `components.headers.${name} is described`)
  }
  const deliveries = (current.paths!['/api/v1/notification-channels/{id}/deliveries'] as Record<string, any>).get
  t.ok(deliveries.responses['200'].headers.Link, 'Link')
  const create = (current.paths!['/api/v1/monitors'] as Record<string, any>).post
  t.match(create.parameters, [{ in: 'header', name: 'Idempotency-Key', required: false }], 'the Idempotency-Key header')
  t.ok(create.responses['201'].headers['Idempotent-Replayed'], 'Idempotent-Replayed')
  t.ok(create.responses['409'] && create.responses['422'], 'its refusals')
})

t.test('the webhook payload is in the document\'s top-level webhooks, with its signature headers', async (t) => {
  const post = (current.webhooks?.notificationEvent as Record<string, any> | undefined)?.post
  t.ok(post, 'webhooks.notificationEvent.post')
  t.same(post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/NotificationEvent' })
  t.same(post.parameters.map((p: { in: string, name: string, required: boolean }) => [p.in, p.name, p.required]),
    [['header', 'webhook-id', true], ['header', 'webhook-timestamp', true], ['header', 'webhook-signature', true]])
  t.ok(post.tags.every((tag: string) => (current.tags ?? []).some((declared) => declared.name === tag)), 'its tag is declared')
  const event = current.components!.schemas!.NotificationEvent as Record<string, any>
  t.same(Object.keys(event.properties.data.properties), ['monitor', 'incident', 'check', 'maintenance_window', 'dashboard_url', 'silent_locations', 'dependents_down', 'acknowledge_url'])
  const deliveries = (current.paths!['/api/v1/notification-channels/{id}/deliveries'] as Record<string, any>).get
  t.ok(deliveries.responses['200'].headers.Link.description, 'the delivery list declares its Link header')
})

t.test('the service serves the committed document and Swagger UI, without a key', async (t) => {
  const { app } = await buildTestApp(t)
  const served = await app.inject({ url: OPENAPI_PATH })
  t.equal(served.statusCode, 200)
  t.match(served.headers['content-type'], /^application\/json/)
  t.same(served.json(), committed, `the served document equals ${COMMITTED_PATH}`)

  const docs = await app.inject({ url: '/docs' })
  t.equal(docs.statusCode, 200)
  t.match(docs.headers['content-type'], /^text\/html/)
  t.match(docs.body, /<html[\s\S]*swagger-ui/i)
  const config = await app.inject({ url: '/docs/json' })
  t.equal(config.statusCode, 200, 'Swagger UI reads the same document')
  t.same(config.json(), committed)
})

t.test('a request body\'s defaults are in its descriptions, so that generators keep those fields optional', async (t) => {
  const schemas = current.components!.schemas as Record<string, { properties?: Record<string, { default?: unknown, description?: string }> }>
  const requestBodies = Object.keys(schemas).filter((name) => /^(Create|Update)/.test(name))
  t.ok(requestBodies.length > 10, 'the bodies and their variants')
  for (const name of requestBodies) {
    for (const [field, property] of Object.entries(schemas[name].properties ?? {})) {
      t.equal(property.default, undefined, `${name}.${field}: no \`default\``)
    }
  }
  t.match(schemas.CreateSiteMonitor.properties!.interval_minutes.description, /\(default `5`\)$/)
  t.match(schemas.CreateSiteMonitor.properties!.monitor_type.description, /\(default `site`\)$/)
  t.match(schemas.CreateWebhookChannel.properties!.events.description, /\(default `\["incident.opened","incident.resolved"\]`\)$/)
  // openapi-typescript's defaults (defaultNonNullable) make a named schema's defaulted field required: nothing is left to.
  const withDefaults = astToString(await openapiTS(structuredClone(current)))
  t.equal(withDefaults, astToString(await openapiTS(structuredClone(current), { defaultNonNullable: false })))
})

t.test('the served document\'s first server is PUBLIC_URL', async (t) => {
  const { app } = await buildTestApp(t, { env: { PUBLIC_URL: 'https://pingward.example.com/' } })
  const served = (await app.inject({ url: OPENAPI_PATH })).json()
  t.same(served.servers.map((server: { url: string }) => server.url), ['https://pingward.example.com', '/'])
  t.same({ ...served, servers: committed.servers }, committed, 'the rest as committed')
})

t.test(`${CLIENT_TYPES_PATH} is what openapi-typescript makes of the document now`, async (t) => {
  // With openapi-typescript's default options, as a user runs it.
  const generated = COMMENT_HEADER + astToString(await openapiTS(structuredClone(current)))
  mkdirSync(`${ROOT}test-output/generated`, { recursive: true })
  writeFileSync(`${ROOT}${GENERATED_PATH}`, generated)
  t.match(generated, /export interface paths \{\n[\s\S]*?\n {4}"\/healthz"/)
  t.match(generated, /export interface components \{/)
  t.match(generated, /createMonitor: \{/)
  let committedTypes = ''
  try {
    committedTypes = readFileSync(`${ROOT}${CLIENT_TYPES_PATH}`, 'utf8')
  } catch {}
  const inSync = committedTypes === generated
  if (!inSync) {
    const [old, fresh] = [committedTypes.split('\n'), generated.split('\n')]
    const at = Array.from({ length: Math.max(old.length, fresh.length) }, (_, i) => i).find((i) => old[i] !== fresh[i])! + 1
    t.comment(`${CLIENT_TYPES_PATH} differs from the fresh generation from line ${at}. Update it with:\n` +
      `  cp ${GENERATED_PATH} ${CLIENT_TYPES_PATH}\n` +
      '(this test has just written the fresh file), then run `npx tsc --noEmit` and test/client/client.test.ts.')
  }
  t.ok(inSync, `${CLIENT_TYPES_PATH} is in sync with the document (if not: cp ${GENERATED_PATH} ${CLIENT_TYPES_PATH})`)
})
