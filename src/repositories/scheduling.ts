// Checker data access: claim due monitors (a lease), the rows a recorded check writes, release leases.
import type { DnsRecordType, HttpMethod, KeywordMode, MonitorType } from '../domain/vocabulary.ts'
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { rowsOf, type Database, type Queryable } from '../db/client.ts'
import { preparedSql } from '../db/prepared.ts'
import { checks, monitors } from '../db/schema.ts'

/** The types the checker probes: a `heartbeat` is pinged, never claimed. */
type CheckedMonitorType = Exclude<MonitorType, 'heartbeat'>

export interface ClaimedMonitor {
  id: string
  monitorType: CheckedMonitorType
  /** Never null here: only a heartbeat has no url (the monitors_url_check constraint). */
  url: string
  method: HttpMethod
  expectedStatus: number
  timeoutSeconds: number
  // What the check sends and asserts besides the status (api-contract section 9).
  keyword: string | null
  keywordMode: KeywordMode
  degradedAfterMs: number | null
  requestHeaders: Record<string, string>
  requestBody: string | null
  /** A `dns` monitor's question and the values its answer must contain; null for other types (and any answer). */
  dnsRecordType: DnsRecordType | null
  dnsExpected: string[] | null
  /** When the check was due; lateness is the probe's start minus this. */
  dueAt: Date
  /** The lease: next_check_at while this worker holds the monitor. */
  leaseUntil: Date
}

type MonitorRow = typeof monitors.$inferSelect

export interface CheckResult {
  isUp: boolean
  statusCode: number | null
  responseTimeMs: number
  errorMessage: string | null
  /** Up, but slower than the monitor's degraded_after_ms: the monitor's status becomes `degraded` (not a column of the check). */
  degraded?: boolean
  /** The certificate an HTTPS check saw (verified or not): kept on the monitor as tls_expires_at and tls_issuer. */
  tls?: { expiresAt: Date, issuer: string | null }
  /** A heartbeat ping's body as stored (its first 10 KiB; src/checker/heartbeat.ts), not in the API's check. */
  pingBody?: string | null
  checkedAt: Date
}

/**
 * Claims up to `limit` due monitors in one short statement: their next_check_at moves to `leaseUntil`,
 * so no other worker claims them for this slot; SKIP LOCKED lets workers claim side by side. A heartbeat
 * monitor is never claimed: nothing probes it (its pings are its checks).
 */
// The checker's two statements, asked every second even when nothing is due: prepared once per database, as
// building them anew allocated enough to keep V8 from ever shrinking an idle server's heap (bench/results.md,
// "Memory on a small box").
const claimStatement = preparedSql('claim_due_monitors', () => sql`
    with due as (
      select id, next_check_at from ${monitors}
      where deleted_at is null and is_active and monitor_type <> 'heartbeat' and next_check_at <= ${sql.placeholder('now')}::timestamptz
      order by next_check_at
      limit ${sql.placeholder('limit')}
      for update skip locked
    )
    update ${monitors} m set next_check_at = ${sql.placeholder('leaseUntil')}::timestamptz
    from due where m.id = due.id
    returning m.id, m.monitor_type, m.url, m.method, m.expected_status, m.timeout_seconds,
      m.keyword, m.keyword_mode, m.degraded_after_ms, m.request_headers, m.request_body,
      m.dns_record_type, to_jsonb(m.dns_expected) as dns_expected, due.next_check_at as due_at`)

export async function claimDueMonitors (db: Database, now: Date, limit: number, leaseMs: number): Promise<ClaimedMonitor[]> {
  const leaseUntil = new Date(now.getTime() + leaseMs)
  const result = await claimStatement(db).execute({ now: now.toISOString(), limit, leaseUntil: leaseUntil.toISOString() })
  return rowsOf(result).map((row) => ({
    id: row.id as string,
    monitorType: row.monitor_type as CheckedMonitorType,
    url: row.url as string,
    method: row.method as ClaimedMonitor['method'],
    expectedStatus: Number(row.expected_status),
    timeoutSeconds: Number(row.timeout_seconds),
    keyword: row.keyword as string | null,
    keywordMode: row.keyword_mode as KeywordMode,
    degradedAfterMs: row.degraded_after_ms === null ? null : Number(row.degraded_after_ms),
    // jsonb comes parsed from postgres.js and PGlite; text is parsed here all the same (as delivery-queue.ts does).
    requestHeaders: (typeof row.request_headers === 'string' ? JSON.parse(row.request_headers) : row.request_headers) as Record<string, string>,
    requestBody: row.request_body as string | null,
    dnsRecordType: row.dns_record_type as DnsRecordType | null,
    // An array as jsonb: postgres.js (fetch_types off) would give text[] as its literal text, PGlite as an array.
    dnsExpected: (typeof row.dns_expected === 'string' ? JSON.parse(row.dns_expected) : row.dns_expected) as string[] | null,
    dueAt: new Date(row.due_at as string),
    leaseUntil,
  }))
}

/** The state of an active, live monitor, locked FOR UPDATE for the rest of the transaction; undefined when paused or deleted. */
export async function lockActiveMonitor (tx: Queryable, monitorId: string): Promise<MonitorRow | undefined> {
  const [monitor] = await tx.select().from(monitors)
    .where(and(eq(monitors.id, monitorId), isNull(monitors.deletedAt), eq(monitors.isActive, true)))
    .for('update')
  return monitor
}

/** Inserts the check; with the id given when the caller needs to know it (the column's default otherwise). */
export async function insertCheck (tx: Queryable, monitorId: string, result: CheckResult, id?: string): Promise<void> {
  const { isUp, statusCode, responseTimeMs, errorMessage, checkedAt, pingBody } = result
  await tx.insert(checks).values({ id, monitorId, isUp, statusCode, responseTimeMs, errorMessage, checkedAt, pingBody })
}

/** The monitor's status, counters, last check and next check after a recorded check. */
export async function saveCheckState (
  tx: Queryable, monitorId: string,
  state: Pick<MonitorRow, 'status' | 'consecutiveFailures' | 'consecutiveSuccesses' | 'consecutiveSlow' | 'lastCheckedAt' | 'nextCheckAt'> &
    Partial<Pick<MonitorRow, 'tlsExpiresAt' | 'tlsIssuer' | 'tlsExpiryToldDays'>>
): Promise<void> {
  await tx.update(monitors).set(state).where(eq(monitors.id, monitorId))
}

/** The `n`-th newest check of a monitor (1 is the newest). */
export async function nthNewestCheck (tx: Queryable, monitorId: string, n: number) {
  const [check] = await tx.select().from(checks).where(eq(checks.monitorId, monitorId))
    .orderBy(desc(checks.checkedAt), desc(checks.id)).offset(n - 1).limit(1)
  return check
}

/** Gives back leases of checks that were abandoned (shutdown), so that any worker checks them at once. */
export async function releaseMonitors (db: Database, claimed: ClaimedMonitor[], now: Date): Promise<void> {
  // Only where the lease is still ours: an edit may have rescheduled the monitor meanwhile.
  for (const monitor of claimed) {
    await db.update(monitors).set({ nextCheckAt: now })
      .where(and(eq(monitors.id, monitor.id), eq(monitors.nextCheckAt, monitor.leaseUntil)))
  }
}

const nextDueStatement = preparedSql('next_due_at', () =>
  sql`select min(next_check_at) as at from ${monitors} where deleted_at is null and is_active and monitor_type <> 'heartbeat'`)

/** When the next monitor is due (null when none is), so an idle checker can sleep until then. */
export async function nextDueAt (db: Database): Promise<Date | null> {
  const [row] = rowsOf(await nextDueStatement(db).execute({}))
  return row?.at ? new Date(row.at as string) : null
}
