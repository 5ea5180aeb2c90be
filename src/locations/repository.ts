// Location rows: the built-in ones and an organization's agents, an agent found by its token's hash, a checker's
// built-in row kept alive. It reads and writes; the rules are the service's.
import { and, asc, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm'
import { rowsOf } from '../db/client.ts'
import type { Database } from '../db/client.ts'
import { checks, locations, monitors } from '../db/schema.ts'
import { MONITOR_COLUMNS, monitorRowOf, type MonitorRow } from '../monitors/repository.ts'

export type LocationRow = typeof locations.$inferSelect
type LocationInsert = typeof locations.$inferInsert

const visibleTo = (orgId: string) => or(isNull(locations.orgId), eq(locations.orgId, orgId))

/** The built-in locations, then the organization's agent locations, each by code. */
export async function listLocations (db: Database, orgId: string): Promise<LocationRow[]> {
  return db.select().from(locations).where(visibleTo(orgId)).orderBy(desc(isNull(locations.orgId)), asc(locations.code))
}

/** The location `code` names for the organization: its own agent location first, else a built-in one. */
export async function findLocation (db: Database, orgId: string, code: string, lock?: 'lock'): Promise<LocationRow | undefined> {
  const query = db.select().from(locations).where(and(visibleTo(orgId), eq(locations.code, code)))
    .orderBy(asc(isNull(locations.orgId))).limit(1)
  const [row] = lock ? await query.for('update') : await query
  return row
}

/** The built-in locations, by code. */
export async function listBuiltinLocations (db: Database): Promise<LocationRow[]> {
  return db.select().from(locations).where(isNull(locations.orgId)).orderBy(asc(locations.code))
}

/** Deletes the built-in location `code` if it was last seen before `seenBefore`: one statement, so a checker's refresh wins or waits. */
export async function deleteSilentBuiltin (db: Database, code: string, seenBefore: Date): Promise<boolean> {
  const deleted = await db.delete(locations).where(and(
    isNull(locations.orgId), eq(locations.code, code),
    or(isNull(locations.lastSeenAt), sql`${locations.lastSeenAt} < ${seenBefore.toISOString()}::timestamptz`)
  )).returning({ id: locations.id })
  return deleted.length > 0
}

export async function builtinExists (db: Database, code: string): Promise<boolean> {
  const [row] = await db.select({ id: locations.id }).from(locations).where(and(isNull(locations.orgId), eq(locations.code, code)))
  return row !== undefined
}

/** Inserts an agent location; undefined when the organization has one of that code already. */
export async function insertAgentLocation (tx: Database, values: Omit<LocationInsert, 'kind'>): Promise<LocationRow | undefined> {
  const [row] = await tx.insert(locations).values({ ...values, kind: 'agent' }).onConflictDoNothing().returning()
  return row
}

export async function setToken (tx: Database, id: string, token: { tokenHash: string, tokenPrefix: string }): Promise<LocationRow> {
  const [row] = await tx.update(locations).set(token).where(eq(locations.id, id)).returning()
  return row
}

export async function deleteLocation (tx: Database, id: string): Promise<void> {
  await tx.delete(locations).where(eq(locations.id, id))
}

/** The agent location whose token hashes to `tokenHash`: no cache, so a rotated or deleted token finds nothing at once. */
export async function findAgentByTokenHash (db: Database, tokenHash: string): Promise<LocationRow | undefined> {
  const [row] = await db.select().from(locations).where(and(eq(locations.tokenHash, tokenHash), eq(locations.kind, 'agent')))
  return row
}

/** Records an agent's sign of life and the version it runs, while `tokenHash` is still its token's. */
export async function recordAgentSeen (db: Database, tokenHash: string, seen: { at: Date, version: string }): Promise<LocationRow | undefined> {
  const [row] = await db.update(locations).set({ lastSeenAt: seen.at, version: seen.version })
    .where(and(eq(locations.tokenHash, tokenHash), eq(locations.kind, 'agent'))).returning()
  return row
}

/** A checker's built-in location made, or told alive with its version: one statement, whichever process comes first. */
export async function upsertBuiltin (db: Database, code: string, seen: { at: Date, version: string }): Promise<void> {
  await db.insert(locations).values({ code, name: code, kind: 'builtin', lastSeenAt: seen.at, version: seen.version })
    .onConflictDoUpdate({
      target: locations.code,
      targetWhere: sql`${locations.orgId} is null`,
      // A process whose clock lags another's never moves the time back.
      set: { lastSeenAt: sql`greatest(${locations.lastSeenAt}, excluded.last_seen_at)`, version: seen.version },
    })
}

/** An agent's sign of life between hellos (a poll, a batch): the time only, never moved back. */
export async function touchAgent (db: Database, id: string, at: Date): Promise<void> {
  await db.update(locations).set({ lastSeenAt: sql`greatest(${locations.lastSeenAt}, ${at.toISOString()}::timestamptz)` }).where(eq(locations.id, id))
}

/** The organization's live, active, probed monitors that list the location `code`: an agent's assignments. */
const assignedTo = (orgId: string, code: string) => and(
  eq(monitors.orgId, orgId), isNull(monitors.deletedAt), eq(monitors.isActive, true), eq(monitors.maintenancePaused, false),
  sql`${monitors.monitorType} <> 'heartbeat'`, sql`${code}::text = any(${monitors.locations})`
)

/** How late a location's checks of the organization's monitors started after their slots: the median and the count. */
export interface LocationLag { medianMs: number, checks: number }

/**
 * Each of `codes`' lag since `since`: the checks of the organization's monitors that list it (at most `sample` of them, by
 * id), read by the slot key (checks_location_slot_key); a location with no such check is absent.
 */
export async function locationLags (db: Database, orgId: string, codes: string[], since: Date, sample = 200): Promise<Map<string, LocationLag>> {
  if (codes.length === 0) return new Map()
  const rows = rowsOf<{ code: string, median_ms: number, checks: number }>(await db.execute(sql`
    select l.code, percentile_cont(0.5) within group (order by extract(epoch from k.checked_at - k.slot_at) * 1000)::float8 as median_ms,
      count(*)::int as checks
    from unnest(array[${sql.join(codes.map((code) => sql`${code}`), sql`, `)}]::text[]) as l(code)
    cross join lateral (
      select m.id from ${monitors} m
      where m.org_id = ${orgId}::uuid and m.deleted_at is null and l.code = any(m.locations) order by m.id limit ${sample}
    ) m
    join ${checks} k on k.monitor_id = m.id and k.location = l.code and k.slot_at >= ${since.toISOString()}::timestamptz
    group by l.code`))
  return new Map(rows.map((row) => [row.code, { medianMs: Math.max(0, Math.round(row.median_ms)), checks: row.checks }]))
}

/** The monitors assigned to the location `code`, by id. */
export async function monitorsAtLocation (db: Database, orgId: string, code: string): Promise<MonitorRow[]> {
  return db.select().from(monitors).where(assignedTo(orgId, code)).orderBy(asc(monitors.id))
}

/** Those of `ids` assigned to the location `code`, locked in id order (as the checker's records lock them: no deadlock). */
export async function lockAssignedMonitors (tx: Database, orgId: string, code: string, ids: string[]): Promise<Map<string, MonitorRow>> {
  if (ids.length === 0) return new Map()
  const rows = await tx.select().from(monitors).where(and(assignedTo(orgId, code), inArray(monitors.id, ids))).orderBy(asc(monitors.id)).for('update')
  return new Map(rows.map((row) => [row.id, row]))
}

/**
 * Monitors whose quorum had its locations and one of whose locations has been silent past the stale time (two intervals
 * plus `graceMs`) at `now`, locked (SKIP LOCKED: another process sweeps the rest); at most `limit`, by id after `afterId`.
 */
export async function lockMonitorsWithSilentLocations (tx: Database, now: Date, graceMs: number, afterId: string, limit: number): Promise<MonitorRow[]> {
  const rows = rowsOf(await tx.execute(sql`select ${MONITOR_COLUMNS} from ${monitors} m
    where m.id > ${afterId}::uuid and m.location_coverage = 'ok' and cardinality(m.locations) > 0 and m.deleted_at is null and m.is_active and not m.maintenance_paused
      and exists (select 1 from jsonb_array_elements(m.location_states) s where s->>'last_checked_at' is null
        or (s->>'last_checked_at')::timestamptz < ${now.toISOString()}::timestamptz - make_interval(secs => 2 * m.interval_minutes * 60 + ${graceMs / 1000}))
    order by m.id limit ${limit} for update skip locked`))
  return rows.map(monitorRowOf)
}

export async function setLocationCoverage (tx: Database, monitorId: string, coverage: MonitorRow['locationCoverage']): Promise<void> {
  await tx.update(monitors).set({ locationCoverage: coverage }).where(eq(monitors.id, monitorId))
}
