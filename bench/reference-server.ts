// The reference server: bare Fastify routes that run Pingward's SQL through postgres.js (or PGlite) and
// answer the same bytes, with no auth, rate limit, ORM, validation or logging. Env: PORT, DATABASE_URL or
// DATA_DIR, REFERENCE_KEY_ID (the key the reads start from), REFERENCE_WRITE_KEY_ID (creates),
// REFERENCE_PAGE_KEY_ID (the key of the user whose list is paged, GET /monitors?limit=50).
import Fastify from 'fastify'
import postgres from 'postgres'
import { openPglite } from '../src/db/pglite.ts'
import { QueryGate } from '../src/db/driver-workarounds/query-gate.ts'
import {
  CHECKS_SQL, checksParams, INSERT_SQL, insertParams, LIST_SQL, listParams, MONITOR_SQL, monitorParams, PAGE_LIMIT, PAGE_SQL, pageParams,
  type CreateBody,
} from './reference-sql.ts'

type Row = Record<string, any>

const iso = (value: Date | null): string | null => value === null ? null : value.toISOString()

// Objects built in the order of Pingward's response schemas, so JSON.stringify gives the same bytes.
const checkJson = (r: Row) => ({
  id: r.id,
  monitor_id: r.monitor_id,
  is_up: r.is_up,
  status_code: r.status_code,
  response_time_ms: r.response_time_ms,
  checked_at: iso(r.checked_at),
  error_message: r.error_message,
})

const listItemJson = (r: Row) => ({
  id: r.id,
  name: r.name,
  url: r.url,
  monitor_type: r.monitor_type,
  status: r.status,
  is_active: r.is_active,
  interval_minutes: r.interval_minutes,
  last_checked_at: iso(r.last_checked_at),
})

const monitorJson = (r: Row) => ({
  ...listItemJson(r),
  method: r.method,
  expected_status: r.expected_status,
  timeout_seconds: r.timeout_seconds,
  failure_threshold: r.failure_threshold,
  recovery_threshold: r.recovery_threshold,
  keyword: r.keyword,
  keyword_mode: r.keyword_mode,
  degraded_after_ms: r.degraded_after_ms,
  // The benchmark's monitors have no headers, so none to mask (Pingward masks secret values).
  request_headers: r.request_headers,
  secret_headers: r.secret_headers,
  request_body: r.request_body,
  dns_record_type: r.dns_record_type,
  dns_expected: r.dns_expected,
  grace_minutes: r.grace_minutes,
  // The benchmark's monitors are sites: no heartbeat's ping URL to make absolute.
  ping_url: r.ping_url ?? null,
  tls_expires_at: iso(r.tls_expires_at),
  tls_issuer: r.tls_issuer,
  labels: r.labels,
  depends_on: r.depends_on,
  in_maintenance: r.in_maintenance,
  locations: r.locations,
  location_quorum: r.location_quorum,
  location_states: r.location_states,
  // The insert of POST /monitors returns no channels: a new monitor without any has none.
  notification_channel_ids: r.notification_channel_ids ?? [],
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

async function main (): Promise<void> {
  const keyId = process.env.REFERENCE_KEY_ID!
  const writeKeyId = process.env.REFERENCE_WRITE_KEY_ID!
  const pageKeyId = process.env.REFERENCE_PAGE_KEY_ID ?? keyId
  let query: (text: string, params: unknown[]) => Promise<Row[]>
  let close: () => Promise<void>
  if (process.env.DATABASE_URL) {
    // The same pool size as Pingward's, and its gate (src/db/driver-workarounds/query-gate.ts) against postgres.js's slowdown
    // under sustained pipelining; prepared statements, as postgres.js does by default.
    const sql = postgres(process.env.DATABASE_URL, { max: 10, onnotice: () => {} })
    const gate = new QueryGate(10)
    query = (text, params) => gate.run(sql.unsafe(text, params as never[], { prepare: true }))
    close = () => sql.end({ timeout: 5 })
  } else {
    // Opened as Pingward opens it (src/db/pglite.ts: its memory settings, its compiler flag).
    const db = await openPglite(process.env.DATA_DIR!)
    query = async (text, params) => (await db.query<Row>(text, params)).rows
    close = () => db.close()
  }

  const app = Fastify()
  const json = 'application/json; charset=utf-8'
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get<{ Params: { id: string } }>('/api/v1/monitors/:id/checks', async (request, reply) => {
    const rows = await query(CHECKS_SQL, checksParams(keyId, request.params.id))
    if (rows.length === 0) return reply.code(401).type(json).send('{"error":"Unauthorized"}')
    if (rows[0].monitor_id === null) return reply.code(404).type(json).send('{"error":"Monitor not found"}')
    return reply.type(json).send(JSON.stringify({ data: rows[0].id === null ? [] : rows.map(checkJson) }))
  })
  app.get<{ Params: { id: string } }>('/api/v1/monitors/:id', async (request, reply) => {
    const [row] = await query(MONITOR_SQL, monitorParams(keyId, request.params.id))
    if (!row) return reply.code(401).type(json).send('{"error":"Unauthorized"}')
    if (row.id === null) return reply.code(404).type(json).send('{"error":"Monitor not found"}')
    return reply.type(json).send(JSON.stringify({ data: monitorJson(row) }))
  })
  app.get<{ Querystring: { limit?: string } }>('/api/v1/monitors', async (request, reply) => {
    if (request.query.limit !== undefined) {
      // The benchmark's page: one row more than the page says that more follow, and the Link to them.
      const rows = await query(PAGE_SQL, pageParams(pageKeyId))
      if (rows.length === 0) return reply.code(401).type(json).send('{"error":"Unauthorized"}')
      if (rows[0].id === null) return reply.type(json).send('{"data":[]}')
      if (rows.length > PAGE_LIMIT) {
        rows.length = PAGE_LIMIT
        const last = rows[PAGE_LIMIT - 1]
        const cursor = Buffer.from(`${last.sort_us}:${last.id}`).toString('base64url')
        reply.header('link', `</api/v1/monitors?limit=${PAGE_LIMIT}&cursor=${cursor}>; rel="next"`)
      }
      return reply.type(json).send(JSON.stringify({ data: rows.map(listItemJson) }))
    }
    const rows = await query(LIST_SQL, listParams(keyId))
    if (rows.length === 0) return reply.code(401).type(json).send('{"error":"Unauthorized"}')
    return reply.type(json).send(JSON.stringify({ data: rows[0].id === null ? [] : rows.map(listItemJson) }))
  })
  app.post<{ Body: CreateBody }>('/api/v1/monitors', async (request, reply) => {
    const [row] = await query(INSERT_SQL, insertParams(writeKeyId, request.body, new Date()))
    if (!row) return reply.code(401).type(json).send('{"error":"Unauthorized"}')
    return reply.code(201).header('location', `/api/v1/monitors/${row.id}`).type(json).send(JSON.stringify({ data: monitorJson(row) }))
  })

  const stop = async () => {
    await app.close()
    await close()
    process.exit(0)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  await app.listen({ port: Number(process.env.PORT ?? 3001), host: '127.0.0.1' })
}

main().catch((err: unknown) => {
  process.stderr.write(`reference server: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
