// Property-based fuzzing of every operation in openapi/openapi.json with valid and broken requests: never a
// 5xx, only statuses the document declares, every body as declared, errors `{error}`, no one else's data.
import { createHash, randomUUID } from 'node:crypto'
import t from 'tap'
import fc from 'fast-check'
import { insertChecks } from '../../src/repositories/checks.ts'
import { openIncident } from '../../src/repositories/incidents.ts'
import { deleteApiKey } from '../../src/repositories/api-keys.ts'
import { generateApiKey } from '../../src/auth/keys.ts'
import { TYPE_SPECIFIC_FIELDS } from '../../src/domain/monitor-types.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { rowsOf } from '../../src/db/client.ts'
import { sql } from 'drizzle-orm'
import { buildTestApp, makeKey, makeMember, makeMonitor, makeUser, request, testAudit } from '../helper.ts'
import { inviteMember } from '../../src/organizations/service.ts'
import { ajv, documentAjv, openapiDocument as doc } from '../support/response-validators.ts'
import { targetServer } from '../support/target-server.ts'
import { anyJson, badUuid, deref, invalidValue, oddString, validValue, type Schema } from './schema-arbitrary.ts'
import { encodePart, type FuzzCase, type Operation, rawBodies } from './fuzz-cases.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
const RUNS = Number(process.env.FUZZ_RUNS ?? 8000)
// 8,000 requests take 25-70 s (PGlite or PostgreSQL, on a busy machine): more room than the suite's 180 s.
t.setTimeout(600_000)

// GET /metrics is Prometheus text behind its own token, off unless METRICS_TOKEN is set: test/plugins/metrics.test.ts.
// A heartbeat's ping URL answers text, takes any body and is keyed by its token: test/routes/pings.test.ts.
// The document itself takes no input; a HEAD is its GET without the body (test/http/openapi.test.ts).
// A public status page answers HTML, feeds and badges from its snapshot: test/routes/status-pages.test.ts; the proxy's
// question about a custom domain takes one host name: test/status-pages/custom-domains.test.ts.
const fuzzed = (path: string) => path !== '/metrics' && !path.startsWith('/ping/') && !path.startsWith('/status') && path !== '/api/v1/openapi.json'
const operations: Operation[] = Object.entries(doc.paths as Record<string, Schema>).filter(([path]) => fuzzed(path)).flatMap(([path, item]) =>
  Object.entries(item).filter(([method]) => method !== 'head').map(([method, op]: [string, Schema]) => {
    const params = (op.parameters ?? []).map((p: Schema) => ({ ...p, schema: deref(p.schema, doc) }))
    const security = op.security ?? doc.security ?? []
    return {
      name: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      query: params.filter((p: Schema) => p.in === 'query'),
      hasId: path.includes('{'),
      body: op.requestBody ? deref(op.requestBody.content['application/json'].schema, doc) : undefined,
      example: op.requestBody?.content['application/json'].example,
      responses: Object.fromEntries(Object.entries(op.responses as Record<string, Schema>)
        .map(([status, r]) => [status, r.content ? deref(r.content['application/json'].schema, doc) : null])),
      secured: security.length > 0,
      agent: security.some((scheme: Schema) => 'agentToken' in scheme),
    }
  }))

const validators = new Map(operations.flatMap((op) => Object.entries(op.responses)
  .filter(([, schema]) => schema).map(([status, schema]) => [`${op.name} ${status}`, ajv.compile(schema!)])))

// What the document says is valid, as a client reads it (query text coerced, bodies strict). The API is
// stricter still (it refuses NUL, lone surrogates, leap seconds): only "invalid here, so never 2xx" is asserted.
const requestAjv = documentAjv()
// As the server coerces a URL's values: a single value of an array parameter is a list of one.
const queryAjv = documentAjv({ coerceTypes: 'array' })
const queryValidators = new Map(operations.flatMap((op) => op.query.map((p) =>
  [`${op.name} ${p.name}`, queryAjv.compile({ type: 'object', properties: { value: p.schema } })])))
const bodyValidators = new Map(operations.filter((op) => op.body).map((op) => [op.name, requestAjv.compile(op.body!)]))

function isValidBody (op: Operation, text: string | Buffer): boolean {
  let body: unknown
  try {
    body = JSON.parse(Buffer.isBuffer(text) ? text.toString('utf8') : text)
  } catch {
    return false
  }
  return bodyValidators.get(op.name)!(body)
}

/** One fuzz case: an operation, who calls, which id, which query and body, which Content-Type. */
const fuzzCase: fc.Arbitrary<FuzzCase> = fc.integer({ min: 0, max: operations.length - 1 }).chain((opIndex) => {
  const op = operations[opIndex]
  const queryParam = (p: Schema) => fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: validValue(p.schema).map((v) => [String(v)]), weight: 3 },
    { arbitrary: fc.oneof(invalidValue(p.schema), oddString).map((v) => [typeof v === 'string' ? v : JSON.stringify(v)]), weight: 2 },
    { arbitrary: fc.array(validValue(p.schema).map(String), { minLength: 2, maxLength: 3 }), weight: 1 }
  )
  const body = op.body
    ? fc.oneof(
      { arbitrary: validValue(op.body).map((v) => ({ text: JSON.stringify(v) })), weight: 6 },
      // An update of the fields every kind of monitor has: a valid body that fits whatever kind the picked monitor is.
      { arbitrary: validValue(commonFieldsOf(op.body)).map((v) => ({ text: JSON.stringify(v) })), weight: op.body.properties?.monitor_type ? 3 : 0 },
      // The document's example: a body that the rules beyond the schema (times in order, a known time zone) take too.
      { arbitrary: fc.constant({ text: JSON.stringify(op.example) }), weight: op.example === undefined ? 0 : 2 },
      { arbitrary: mutatedObject(op.body).map((v) => ({ text: JSON.stringify(v) })), weight: 6 },
      { arbitrary: rawBodies, weight: 2 },
      { arbitrary: fc.constant(undefined), weight: 1 }
    )
    // A body the operation does not take: ignored on GET, parsed (and maybe refused) on DELETE; never the point.
    : fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, rawBodies)
  return fc.record({
    op: fc.constant(op.name),
    // An agent's token mostly on an agent's route, and now and then on every other, which must refuse it.
    auth: fc.oneof(
      { arbitrary: fc.constant('a-write' as const), weight: op.agent ? 3 : 10 },
      { arbitrary: fc.constantFrom('a-read', 'b-write', 'b-read') as fc.Arbitrary<FuzzCase['auth']>, weight: 4 },
      { arbitrary: fc.constantFrom('none', 'unknown', 'revoked', 'expired', 'junk') as fc.Arbitrary<FuzzCase['auth']>, weight: 3 },
      { arbitrary: fc.constant('agent' as const), weight: op.agent ? 10 : 1 }
    ),
    junkAuth: fc.oneof(fc.constantFrom('Bearer', 'Bearer ', 'Basic YTpi', 'Token x', 'bearer sk_short', `Bearer ${'sk_'.padEnd(41, 'A')}`, 'Bearer \u00ff\u00fe'),
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''))),
    target: fc.oneof(
      { arbitrary: fc.constant('mine' as const), weight: 6 },
      { arbitrary: fc.constant('theirs' as const), weight: 2 },
      { arbitrary: fc.constant('unknown' as const), weight: 1 },
      { arbitrary: fc.constant('bad' as const), weight: 2 }
    ),
    pick: fc.nat(),
    unknownId: fc.uuid(),
    badId: fc.oneof({ arbitrary: badUuid.map((id) => ({ id, raw: false })), weight: 8 }, fc.constantFrom('%', '%E0%A4%A', '%zz', '%C0%AF').map((id) => ({ id, raw: true }))),
    query: fc.tuple(...op.query.map(queryParam)),
    extraQuery: fc.oneof({ arbitrary: fc.constant([]), weight: 4 }, fc.array(fc.tuple(oddString.filter((s) => s.length > 0), oddString), { maxLength: 2 })),
    body,
    contentType: fc.oneof(
      { arbitrary: fc.constant('application/json'), weight: 12 },
      fc.constantFrom(undefined, 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x', 'application/xml', 'application/json-patch+json', 'application/json; charset=latin1', '*/*', '')
    ),
  }) as fc.Arbitrary<FuzzCase>
})

/** An update body's schema with only the fields that every kind of monitor has (no kind change). */
function commonFieldsOf (schema: Schema): Schema {
  const properties = Object.entries(schema.properties ?? {}).filter(([key]) => !TYPE_SPECIFIC_FIELDS.has(key) && key !== 'monitor_type')
  return { ...schema, properties: Object.fromEntries(properties) }
}

/** An object that breaks one rule: a field wrong, a required field missing, an unknown field, or not an object. */
function mutatedObject (schema: Schema): fc.Arbitrary<unknown> {
  // One of several objects (a channel of each type, a monitor of each kind): one of them, broken.
  const variants = schema.oneOf ?? schema.anyOf
  if (variants) return fc.oneof(...(variants as Schema[]).map(mutatedObject))
  const properties = Object.entries(schema.properties ?? {}) as Array<[string, Schema]>
  const required: string[] = schema.required ?? []
  const choices: fc.Arbitrary<unknown>[] = [
    fc.tuple(validValue(schema), fc.constantFrom(...properties)).chain(([value, [key, sub]]) =>
      invalidValue(sub).map((bad) => ({ ...(value as object), [key]: bad }))),
    fc.tuple(validValue(schema), fc.oneof(fc.constantFrom('id', 'status', 'last_checked_at', 'created_at', 'user_id', 'deleted_at'), oddString), anyJson)
      .filter(([, key]) => !(key in (schema.properties ?? {})))
      .map(([value, key, extra]) => Object.defineProperty({ ...(value as object) }, key, { value: extra, enumerable: true })),
    anyJson.filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
  ]
  if (required.length > 0) {
    choices.push(fc.tuple(validValue(schema), fc.constantFrom(...required)).map(([value, key]) => {
      const copy = { ...(value as Record<string, unknown>) }
      delete copy[key]
      return copy
    }))
  }
  return fc.oneof(...choices)
}

/** What a path's `{id}` names, and how a 404 for it reads. */
type Resource = 'monitors' | 'incidents' | 'channels' | 'deliveries' | 'members' | 'invitations' | 'windows' | 'pages' | 'components' | 'reports' | 'locations'
const PREFIXES: Array<[string, Resource]> = [
  ['/api/v1/status-pages/{id}/components/', 'components'], ['/api/v1/status-pages', 'pages'], ['/api/v1/status-reports', 'reports'],
  ['/api/v1/notification-channels', 'channels'], ['/api/v1/deliveries', 'deliveries'], ['/api/v1/incidents', 'incidents'],
  ['/api/v1/maintenance-windows', 'windows'], ['/api/v1/locations', 'locations'],
  ['/api/v1/organization/members', 'members'], ['/api/v1/organization/invitations', 'invitations'],
]
const resourceOf = (path: string): Resource => PREFIXES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? 'monitors'
const NOT_FOUND: Record<Resource, string> = {
  monitors: 'Monitor not found',
  incidents: 'Incident not found',
  channels: 'Notification channel not found',
  deliveries: 'Delivery not found',
  members: 'Member not found',
  invitations: 'Invitation not found',
  windows: 'Maintenance window not found',
  pages: 'Status page not found',
  components: 'Component not found',
  reports: 'Status report not found',
  locations: 'Location not found',
}
// Where the owner reads one: members and invitations have no read of one, so their whole list.
const readUrl = (resource: Resource, id: string): string => ({
  monitors: `/api/v1/monitors/${id}`,
  incidents: `/api/v1/incidents/${id}`,
  channels: `/api/v1/notification-channels/${id}`,
  deliveries: `/api/v1/deliveries/${id}`,
  members: '/api/v1/organization/members',
  invitations: '/api/v1/organization/invitations',
  windows: `/api/v1/maintenance-windows/${id}`,
  pages: `/api/v1/status-pages/${id}`,
  components: `/api/v1/status-pages/${id.split(' ')[0]}/components`,
  reports: `/api/v1/status-reports/${id}`,
  locations: `/api/v1/locations/${id}`,
})[resource]
// A token only its link carries: no fuzzed body accepts an invitation (test/routes/invitations.test.ts does). The
// fuzzed organizations are personal ones, which go only with their users (test/routes/organization.test.ts).
// A report names pages of the caller's, which no example or random body can (test/routes/status-pages.test.ts makes them).
// A custom domain is verified by a TXT record, which no fuzzed request publishes (test/status-pages/custom-domains.test.ts does).
const NEVER_SUCCEEDS = new Set([
  'POST /api/v1/invitations/accept', 'DELETE /api/v1/organization', 'POST /api/v1/status-reports',
  'POST /api/v1/status-pages/{id}/verify-domain',
])

t.test(`fuzzing every operation of openapi/openapi.json (seed ${SEED}, ${RUNS} runs)`, async (t) => {
  t.comment(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (set them to replay or to run longer)`)
  // Private targets allowed: channels made with a local receiver's URL (the test route sends to it).
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const receiver = await targetServer(t, (_req, res) => { res.writeHead(204).end() })
  const alice = await makeUser(app)
  const aliceRead = await makeKey(app, alice.user.id, 'read')
  const bob = await makeUser(app)
  const bobRead = await makeKey(app, bob.user.id, 'read')
  const revoked = await makeKey(app, alice.user.id)
  await deleteApiKey(app.db, revoked.keyId)
  const expired = await makeKey(app, alice.user.id, 'write', new Date(Date.now() - 60_000))
  /** An agent location of the user's (its code), and its token. */
  const locationOf = async (user: typeof alice, name: string) => {
    const made = (await request(app, user.auth, { method: 'POST', url: '/api/v1/locations', payload: { code: `${name}-${randomUUID().slice(0, 8)}`, name } })).json().data
    return { code: made.code as string, token: made.agent_token as string }
  }
  // The agent the fuzzer speaks as: never among the locations it picks, so that no fuzzed delete or rotation ends it.
  const agent = await locationOf(alice, 'alice-agent')
  const keys = [alice.key, aliceRead.key, bob.key, bobRead.key, revoked.key, expired.key, agent.token]
  const secrets = [...keys, ...keys.map((key) => createHash('sha256').update(key).digest('hex'))]

  const aliceIds: string[] = []
  for (let i = 0; i < 4; i++) aliceIds.push((await makeMonitor(app, alice.auth, { name: `alice ${i}` })).id)
  const bobMonitors = [await makeMonitor(app, bob.auth, { name: 'bob-secret-7f3a9c' }), await makeMonitor(app, bob.auth, { name: 'bob-private-e41d02', is_active: false })]
  const bobIds = bobMonitors.map((m) => m.id)
  await insertChecks(app.db, [{ monitorId: bobIds[0], isUp: false, statusCode: 503, responseTimeMs: 7, checkedAt: new Date(), errorMessage: 'expected status 200, got 503' }])
  const bobIncident = (await openIncident(app.db, bobIds[0], { cause: 'expected status 200, got 503', statusCode: 503, startedAt: new Date() }))!
  // On monitors of their own, which no fuzzed pause or delete resolves: acknowledging them keeps succeeding.
  const aliceIncidents: string[] = []
  for (let i = 0; i < 2; i++) {
    const monitor = await makeMonitor(app, alice.auth, { name: `alice incident ${i}` })
    aliceIncidents.push((await openIncident(app.db, monitor.id, { cause: 'timeout after 10000 ms', statusCode: null, startedAt: new Date() }))!.id)
  }
  /** A webhook channel of the user's, sending to the local receiver, with one delivery. */
  const channelOf = async (user: typeof alice, name: string) => {
    const channel = (await request(app, user.auth, {
      method: 'POST', url: '/api/v1/notification-channels', payload: { name, type: 'webhook', config: { url: `${receiver.url}/${name}` } },
    })).json().data
    const at = new Date()
    const { eventId } = await enqueueEvent(app.db, {
      orgId: user.user.id, monitorId: null, incidentId: null, channelId: channel.id, at, payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
    })
    const [delivery] = rowsOf<{ id: string }>(await app.db.execute(sql`select id from notification_deliveries where event_id = ${eventId}`))
    return { channelId: channel.id as string, deliveryId: delivery.id }
  }
  const aliceChannels = await Promise.all([0, 1, 2, 3].map((i) => channelOf(alice, `alice-hook-${i}`)))
  const bobChannels = await Promise.all([0, 1].map((i) => channelOf(bob, `bob-hook-${i}`)))
  /** A member of the user's organization (a viewer) to change and remove (never the user, whose keys the fuzzer uses), and an invitation to revoke. */
  const memberOf = async (user: typeof alice) => (await makeMember(app, user.orgId, 'viewer')).user.id
  const invitationOf = async (user: typeof alice) =>
    (await inviteMember(app.db, { orgId: user.orgId, role: 'owner', userId: user.user.id, audit: testAudit }, { email: `invited-${randomUUID()}@example.com`, role: 'viewer' }, new Date())).invitation.id
  /** A maintenance window of the user's, under way for an hour. */
  const windowOf = async (user: typeof alice, title: string) => (await request(app, user.auth, {
    method: 'POST', url: '/api/v1/maintenance-windows', payload: { title, all_monitors: true, ends_at: new Date(Date.now() + 3_600_000).toISOString() },
  })).json().data.id as string
  /** A published status page of the user's with a component ("page component", a component's two path ids) and a report on it. */
  const statusOf = async (user: typeof alice, name: string) => {
    const page = (await request(app, user.auth, { method: 'POST', url: '/api/v1/status-pages', payload: { slug: `${name}-${randomUUID().slice(0, 8)}`, title: name, published: true } })).json().data
    const component = (await request(app, user.auth, { method: 'POST', url: `/api/v1/status-pages/${page.id}/components`, payload: { name, manual_status: 'operational' } })).json().data
    const report = (await request(app, user.auth, {
      method: 'POST', url: '/api/v1/status-reports', payload: { status_page_ids: [page.id], component_ids: [component.id], title: name, message: name },
    })).json().data
    return { page: page.id as string, component: `${page.id} ${component.id}`, report: report.id as string }
  }
  const aliceStatus = [await statusOf(alice, 'alice-page-0'), await statusOf(alice, 'alice-page-1')]
  const bobStatus = await statusOf(bob, 'bob-page-9d2b')
  const ids: Record<'alice' | 'bob', Record<Resource, string[]>> = {
    alice: {
      monitors: aliceIds,
      incidents: aliceIncidents,
      channels: aliceChannels.map((c) => c.channelId),
      deliveries: aliceChannels.map((c) => c.deliveryId),
      members: [await memberOf(alice), await memberOf(alice)],
      invitations: [await invitationOf(alice), await invitationOf(alice)],
      windows: [await windowOf(alice, 'alice-window-0'), await windowOf(alice, 'alice-window-1')],
      pages: aliceStatus.map((s) => s.page),
      components: aliceStatus.map((s) => s.component),
      reports: aliceStatus.map((s) => s.report),
      locations: [(await locationOf(alice, 'alice-loc')).code, (await locationOf(alice, 'alice-loc')).code],
    },
    bob: {
      monitors: bobIds,
      incidents: [bobIncident.id],
      channels: bobChannels.map((c) => c.channelId),
      deliveries: bobChannels.map((c) => c.deliveryId),
      members: [await memberOf(bob)],
      invitations: [await invitationOf(bob)],
      windows: [await windowOf(bob, 'bob-window-4c1e')],
      pages: [bobStatus.page],
      components: [bobStatus.component],
      reports: [bobStatus.report],
      locations: [(await locationOf(bob, 'bob-loc')).code],
    },
  }
  const bobView = async () => Promise.all([
    ...bobIds.flatMap((id) => ['', '/checks', '/incidents'].map((suffix) => `/api/v1/monitors/${id}${suffix}`)),
    ...ids.bob.channels.flatMap((id) => [`/api/v1/notification-channels/${id}`, `/api/v1/notification-channels/${id}/deliveries`]),
    ...ids.bob.deliveries.map((id) => `/api/v1/deliveries/${id}`),
    `/api/v1/incidents/${bobIncident.id}`,
    ...ids.bob.windows.map((id) => `/api/v1/maintenance-windows/${id}`),
    `/api/v1/status-pages/${bobStatus.page}`, `/api/v1/status-pages/${bobStatus.page}/components`, `/api/v1/status-reports/${bobStatus.report}`,
    ...ids.bob.locations.map((code) => `/api/v1/locations/${code}`),
  ].map(async (url) => (await app.inject({ url, headers: bobRead.auth })).body))
  const bobBefore = await bobView()
  const authHeader: Record<string, string | undefined> = {
    'a-write': `Bearer ${alice.key}`,
    'a-read': `Bearer ${aliceRead.key}`,
    'b-write': `Bearer ${bob.key}`,
    'b-read': `Bearer ${bobRead.key}`,
    none: undefined,
    unknown: `Bearer ${generateApiKey()}`,
    revoked: `Bearer ${revoked.key}`,
    expired: `Bearer ${expired.key}`,
    agent: `Bearer ${agent.token}`,
  }

  const stats = { sent: 0, byStatus: new Map<number, number>(), okByOp: new Map<string, number>() }
  const property = fc.asyncProperty(fuzzCase, async (c) => {
    const op = operations.find((o) => o.name === c.op)!
    const caller = c.auth.startsWith('a-') ? 'alice' : c.auth.startsWith('b-') ? 'bob' : 'nobody'
    const resource = resourceOf(op.path)
    // Bob never writes to his own monitors and channels, so that they can be compared at the end.
    const theirs = ids[caller === 'bob' ? 'alice' : 'bob'][resource]
    const mine = caller === 'alice' ? ids.alice[resource] : caller === 'bob' && c.auth === 'b-read' ? ids.bob[resource] : theirs
    let id = ''
    let badId = false
    if (op.hasId) {
      if (c.target === 'mine') id = mine[c.pick % mine.length]
      else if (c.target === 'theirs') id = theirs[c.pick % theirs.length]
      else if (c.target === 'unknown') id = c.unknownId
      else { id = c.badId.raw ? c.badId.id : encodePart(c.badId.id); badId = true }
    }
    const pairs: string[] = []
    let badQuery = false
    op.query.forEach((p, i) => {
      const values = c.query[i]
      if (!values) return
      badQuery ||= !queryValidators.get(`${op.name} ${p.name}`)!({ value: values.length === 1 ? values[0] : values })
      for (const value of values) pairs.push(`${p.name}=${encodePart(value)}`)
    })
    for (const [key, value] of c.extraQuery) pairs.push(`${encodePart(key)}=${encodePart(value)}`)
    if (op.query.length > 0 && c.extraQuery.length > 0) badQuery = true
    // A component's path takes its page's id and its own: "page component" ids fill them in order.
    const pathIds = id.split(' ')
    let nextId = 0
    const url = op.path.replace(/\{[^}]+\}/g, () => pathIds[Math.min(nextId++, pathIds.length - 1)]) + (pairs.length > 0 ? `?${pairs.join('&')}` : '')
    const headers: Record<string, string> = {}
    const authorization = c.auth === 'junk' ? c.junkAuth : authHeader[c.auth]
    if (authorization !== undefined) headers.authorization = authorization
    if (c.body && c.contentType !== undefined) headers['content-type'] = c.contentType
    const crossUser = op.hasId && c.target === 'theirs' && caller !== 'nobody'
    const ownerView = crossUser && caller === 'bob' ? await app.inject({ url: readUrl(resource, id), headers: alice.auth }) : undefined

    const res = await app.inject({ method: op.method as 'GET', url, headers, payload: c.body?.text })
    stats.sent++
    stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1)
    const where = `${op.method} ${url.slice(0, 200)} as ${c.auth} -> ${res.statusCode} ${res.body.slice(0, 300)}`
    const fail = (why: string) => { throw new Error(`${why}: ${where}`) }

    if (res.statusCode >= 500) fail('5xx')
    if (!(String(res.statusCode) in op.responses)) fail(`status not declared for ${op.name}`)
    if (!res.headers['x-request-id']) fail('no x-request-id')
    if (res.statusCode === 204) {
      if (res.body !== '') fail('204 with a body')
    } else {
      if (!String(res.headers['content-type']).startsWith('application/json')) fail(`content-type ${res.headers['content-type']}`)
      const validate = validators.get(`${op.name} ${res.statusCode}`)!
      if (!validate(res.json())) fail(`body does not match the declared schema (${ajv.errorsText(validate.errors)})`)
    }
    if (res.statusCode >= 400 && Object.keys(res.json()).join() !== 'error') fail('error body is not {error}')
    for (const secret of secrets) if (res.body.includes(secret)) fail('a key or key hash in a response')
    const all = (who: 'alice' | 'bob') => [...ids[who].monitors, ...ids[who].channels, ...ids[who].deliveries]
    // Locations by the prefix of the codes made here: a fuzzed code is too short to tell from any other text.
    const foreign = caller === 'alice'
      ? [...all('bob'), 'bob-secret', 'bob-private', 'bob-hook', 'bob-loc']
      : caller === 'bob' ? [...all('alice'), 'alice-hook', 'alice-loc', 'alice-agent'] : [...all('alice'), ...all('bob'), 'bob-secret', 'bob-loc', 'alice-loc']
    for (const text of foreign) if (res.body.includes(text)) fail(`another user's data (${text}) in the response`)

    const routerRefused = res.statusCode === 400 && res.json().error.startsWith('Bad request: ')
    const ok = res.statusCode < 300
    if (op.secured && !routerRefused) {
      // An agent's route takes its token and nothing else; every other route refuses the agent's token as any unknown key.
      if (op.agent && c.auth !== 'agent' && res.statusCode !== 401) fail('an agent route took something else than an agent token')
      if (!op.agent && caller === 'nobody' && res.statusCode !== 401) fail('an invalid key was not refused with 401')
      if (res.statusCode === 401 && (res.json().error !== 'Unauthorized' || res.headers['www-authenticate'] !== 'Bearer')) fail('401 without its body or header')
      if (!op.agent && c.auth.endsWith('-read') && op.method !== 'GET' && res.statusCode !== 403) fail('a read key was not refused a write with 403')
    }
    if (ok && (badId || badQuery || (op.body && c.body && !isValidBody(op, c.body.text)))) fail('a broken request succeeded')
    if (crossUser && ok) fail(`another user's ${resource} answered 2xx`)
    if (crossUser && res.statusCode === 404 && res.json().error !== NOT_FOUND[resource]) fail(`another user's ${resource}: not the plain 404`)
    if (ownerView) {
      const after = await app.inject({ url: readUrl(resource, id), headers: alice.auth })
      if (after.body !== ownerView.body) fail(`another user's request changed a ${resource}`)
    }
    if (ok) {
      stats.okByOp.set(op.name, (stats.okByOp.get(op.name) ?? 0) + 1)
      // What alice made becomes one of hers to pick: a monitor, a channel, a test's delivery.
      if (op.method === 'POST' && caller === 'alice') {
        const made = op.path === '/api/v1/monitors' ? 'monitors' : op.path === '/api/v1/notification-channels' ? 'channels' : op.path.endsWith('/test') ? 'deliveries' : undefined
        if (made) ids.alice[made].push(res.json().data.id)
        if (op.path === '/api/v1/locations') ids.alice.locations.push(res.json().data.code)
      }
      // What alice deletes is replaced (its id stays, to be asked for again), so that the routes on the living keep succeeding.
      if (op.method === 'DELETE' && resource === 'channels' && caller === 'alice') {
        const replacement = await channelOf(alice, `alice-hook-${stats.sent}`)
        ids.alice.channels.push(replacement.channelId)
        ids.alice.deliveries.push(replacement.deliveryId)
      }
      if (op.method === 'DELETE' && resource === 'members' && caller === 'alice') ids.alice.members.push(await memberOf(alice))
      // A window changed, ended or deleted: a new one under way, so that starting and ending keep succeeding.
      if (op.method !== 'GET' && resource === 'windows' && op.hasId && caller === 'alice') ids.alice.windows.push(await windowOf(alice, `alice-window-${stats.sent}`))
      if (op.method === 'DELETE' && resource === 'invitations' && caller === 'alice') ids.alice.invitations.push(await invitationOf(alice))
      if (op.method === 'DELETE' && resource === 'locations' && caller === 'alice') ids.alice.locations.push((await locationOf(alice, `alice-loc-${stats.sent}`)).code)
      // A page, component or report deleted: a new set, so that the routes on them keep succeeding.
      if (op.method === 'DELETE' && (resource === 'pages' || resource === 'components' || resource === 'reports') && caller === 'alice') {
        const made = await statusOf(alice, `alice-page-${stats.sent}`)
        ids.alice.pages.push(made.page)
        ids.alice.components.push(made.component)
        ids.alice.reports.push(made.report)
      }
      if (op.method === 'DELETE' && resource === 'monitors' && op.path === '/api/v1/monitors/{id}' && caller === 'alice') {
        ids.alice.monitors.push((await makeMonitor(app, alice.auth, { name: `alice ${stats.sent}` })).id)
      }
    }
  })

  const started = Date.now()
  const details = await fc.check(property, { seed: SEED, numRuns: RUNS, endOnFailure: false })
  t.comment(`${stats.sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses: ${JSON.stringify(Object.fromEntries([...stats.byStatus].sort()))}`)
  t.notOk(details.failed, details.failed ? describeFailure(details) : 'no property violated')
  t.ok(stats.sent >= RUNS, `at least ${RUNS} requests sent`)
  for (const op of operations.filter((o) => !NEVER_SUCCEEDS.has(o.name))) {
    t.ok((stats.okByOp.get(op.name) ?? 0) > 0, `${op.name} succeeded at least once (the fuzzer reaches the success paths)`)
  }
  t.same(await bobView(), bobBefore, 'the other user\'s monitors, checks and incidents are unchanged')
})

/** The shrunk counterexample with long strings cut, the error, and how to replay it. */
function describeFailure (details: fc.RunDetails<[FuzzCase]>): string {
  const cut = (_key: string, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer') value = Buffer.from((value as { data: number[] }).data).toString('latin1')
    return typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}... (${value.length} chars)` : value
  }
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
  return `${error}\ncase: ${JSON.stringify(details.counterexample?.[0], cut)}\nreplay: FUZZ_SEED=${details.seed} (path ${details.counterexamplePath})`
}
