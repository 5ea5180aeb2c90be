// Monitor rows: the owner's list, a read, an insert, an update and a soft delete, the locks of the record path's
// whole rows, and the channels a monitor opted into. It reads and writes; the rules are the service's.
import { and, eq, getTableColumns, inArray, isNull, notInArray, sql, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import { rowsOf, type Database } from '../db/client.ts'
import { isoTime } from '../db/timestamps.ts'
import { preparedSql, selectList, type PreparedSql } from '../db/prepared.ts'
import { auditEvents, monitorNotificationChannels, monitors, notificationChannels } from '../db/schema.ts'
import { InvalidInputError } from '../domain/errors.ts'
import { parseLabelSelector } from '../domain/labels.ts'
import {
  assertOwnerFound, foundRows, ownedMonitorRow, ownerRow, ownerValue, perOwnerKind, type NullRow, type Owner, type OwnerKind,
} from '../repositories/owner.ts'
import { WRITABLE_COLUMNS } from './columns.ts'
import { MonitorListItemSchema, MonitorSchema, type Monitor, type MonitorListItem, type MonitorListParams } from './schema.ts'

/** Every column of the monitors table, by field. */
export const monitorRowColumns = getTableColumns(monitors)

/** A whole row of the monitors table. */
export type MonitorRow = typeof monitors.$inferSelect

const COLUMNS = Object.entries(monitorRowColumns).map(([field, column]) => ({
  field,
  name: column.name,
  decode: (value: unknown) => column.mapFromDriverValue(value),
}))

/** Every column of the monitors table, unaliased. */
export const MONITOR_COLUMNS: SQL = sql.raw(COLUMNS.map(({ name }) => `"${name}"`).join(', '))

/** Every column of the monitors table as `alias`'s: for a statement that joins another table. */
export const monitorColumnsOf = (alias: string): SQL => sql.raw(COLUMNS.map(({ name }) => `${alias}."${name}"`).join(', '))

/** A row of MONITOR_COLUMNS, keyed by column name, decoded as drizzle decodes its own selects. */
export function monitorRowOf (row: Record<string, unknown>): MonitorRow {
  const monitor: Record<string, unknown> = {}
  for (const { field, name, decode } of COLUMNS) {
    const value = row[name]
    monitor[field] = value === null || value === undefined ? null : decode(value)
  }
  return monitor as MonitorRow
}

/** `= any(...)` of a list as one jsonb parameter: one statement text whatever the list's length. */
export const anyOf = (values: readonly string[], type: 'uuid' | 'text'): SQL =>
  sql`any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)::${sql.raw(type)}))`

// monitorChannelIds for a select list, as JSON: postgres.js without fetched array types gives a uuid[] as text.
const channelIdsColumn = (alias: string): string =>
  `coalesce((select json_agg(mc.channel_id order by mc.channel_id) from monitor_notification_channels mc where mc.monitor_id = ${alias}.id), '[]')`

/** Makes `channelIds` the monitor's opt-ins; InvalidInputError names the first that is not the organization's channel. */
export async function setMonitorChannels (tx: Database, orgId: string, monitorId: string, channelIds: string[]): Promise<void> {
  const wanted = [...new Set(channelIds)]
  await tx.delete(monitorNotificationChannels).where(and(
    eq(monitorNotificationChannels.monitorId, monitorId),
    wanted.length > 0 ? notInArray(monitorNotificationChannels.channelId, wanted) : undefined
  ))
  if (wanted.length === 0) return
  // Found and linked in one statement: a channel deleted meanwhile is not found, never a foreign-key failure.
  const found = rowsOf<{ id: string }>(await tx.execute(sql`
    with mine as (
      select id from ${notificationChannels} where org_id = ${orgId} and ${inArray(notificationChannels.id, wanted)}
    ), linked as (
      insert into ${monitorNotificationChannels} (monitor_id, channel_id) select ${monitorId}, id from mine
      on conflict do nothing
    )
    select id from mine`))
  const mine = new Set(found.map((row) => row.id))
  const index = channelIds.findIndex((id) => !mine.has(id))
  if (index >= 0) {
    throw new InvalidInputError('notification_channel_ids', `notification_channel_ids/${index} is not one of your notification channels`)
  }
}

// The API schema's field names are also the column names.
const LIST_FIELDS = Object.keys(MonitorListItemSchema.properties)

// Plain SQL whose rows need no mapping by drizzle. No row: the owner is gone; one row of nulls: no monitors.
function listMonitorsQuery (kind: OwnerKind): SQL {
  return sql`select ${selectList('m', monitors, LIST_FIELDS)}
    from ${ownerRow(kind)}
    left join ${monitors} m on m.org_id = o.org_id and m.deleted_at is null
    order by m.created_at desc, m.id desc`
}
const listStatement = perOwnerKind((kind) => preparedSql(`list_monitors_${kind}`, () => listMonitorsQuery(kind)))

/** Which parameters a filtered or paged read has: each combination is a statement of its own. */
export interface ListShape { limit: boolean, cursor: boolean, status: boolean, isActive: boolean, search: boolean, labels: boolean }

const ph = sql.placeholder

/** A filtered or paged list; keyed on (created_at, id), so a monitor created while a client pages moves nothing. */
export function monitorPageQuery (kind: OwnerKind, shape: ListShape): SQL {
  return sql`select ${selectList('m', monitors, LIST_FIELDS)}, m.sort_us
    from ${ownerRow(kind)}
    left join lateral (
      ${pageScan(shape, sql`${selectList('k', monitors, LIST_FIELDS)}, ${SORT_US} as sort_us`)}
    ) m on true`
}

/** A `created_at` in exact microseconds, as text: what a cursor holds. */
const SORT_US = sql`(extract(epoch from k.created_at) * 1000000)::bigint::text`

/** The scan of the owner's (`o`) monitors as `k`. */
function pageScan (shape: ListShape, columns: SQL): SQL {
  const conditions = [
    shape.cursor && sql` and (k.created_at, k.id) < (timestamptz 'epoch' + ${ph('afterUs')}::bigint * interval '1 microsecond', ${ph('afterId')}::uuid)`,
    shape.status && sql` and k.status = ${ph('status')}::text`,
    shape.isActive && sql` and k.is_active = ${ph('isActive')}::boolean`,
    shape.search && sql` and (k.name ilike ${ph('search')}::text or k.url ilike ${ph('search')}::text)`,
    // The keys as a JSON array too: one way to pass a list that both drivers take alike.
    shape.labels && sql` and k.labels @> ${ph('labelValues')}::jsonb and k.labels ?& array(select jsonb_array_elements_text(${ph('labelKeys')}::jsonb))`,
  ].filter((condition) => condition !== false)
  // The limit is a subquery to hide it from the planner: knowing it, the planner reads and sorts all of a
  // large organization's rows instead of scanning the index.
  return sql`select ${columns}
      from ${monitors} k
      where k.org_id = o.org_id and k.deleted_at is null${sql.join(conditions)}
      order by k.created_at desc, k.id desc${shape.limit ? sql` limit (select ${ph('limit')}::bigint)` : sql``}`
}

const shapeName = (shape: ListShape) => Object.entries(shape).filter(([, on]) => on).map(([name]) => name).join('_')

/** Prepared statements by request shape, each built on its first use. */
function statementsByShape (prefix: string, build: (kind: OwnerKind, shape: ListShape) => SQL) {
  return perOwnerKind((kind) => {
    const built = new Map<string, (db: Database) => PreparedSql>()
    return (shape: ListShape) => {
      const name = `${prefix}_${kind}_${shapeName(shape)}`
      let statement = built.get(name)
      if (statement === undefined) built.set(name, statement = preparedSql(name, () => build(kind, shape)))
      return statement
    }
  })
}
const pageStatements = statementsByShape('list_monitors', monitorPageQuery)

const CURSOR_TEXT = /^(-?\d{1,18}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/

/** A page's cursor: its last row's place in the order, opaque to clients. */
const encodeCursor = (sortUs: string, id: string) => Buffer.from(`${sortUs}:${id}`).toString('base64url')

function decodeCursor (cursor: string): { afterUs: string, afterId: string } {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  // Base64 decoding skips what it cannot read, so the cursor must re-encode to itself.
  if (!match || encodeCursor(match[1], match[2]) !== cursor) {
    throw new InvalidInputError('cursor', 'cursor must be a cursor from the Link header of this list')
  }
  return { afterUs: match[1], afterId: match[2] }
}

/** `%text%` for ILIKE, the text's own `%`, `_` and `\` taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`

export interface MonitorPage {
  monitors: MonitorListItem[]
  /** The `cursor` of the next page when more monitors follow; undefined on the last page. */
  nextCursor?: string
}

type PageRow = MonitorListItem & { sort_us?: string }

interface ListRequest { shape: ListShape, whole: boolean, values: Record<string, unknown> }

/** The shape and placeholder values of a read of the list; a bad cursor is an InvalidInputError. */
function listRequest (owner: Owner, query: MonitorListParams): ListRequest {
  const { limit, cursor, status, is_active: isActive, search, label } = query
  const shape: ListShape = {
    limit: limit !== undefined,
    cursor: cursor !== undefined,
    status: status !== undefined,
    isActive: isActive !== undefined,
    search: search !== undefined,
    labels: label !== undefined && label.length > 0,
  }
  const whole = !Object.values(shape).some(Boolean)
  const selector = shape.labels ? parseLabelSelector(label!) : undefined
  const values = {
    owner: ownerValue(owner),
    ...(cursor === undefined ? {} : decodeCursor(cursor)),
    // One more than the page: its presence says that more follow.
    limit: limit === undefined ? undefined : limit + 1,
    status,
    isActive,
    search: search === undefined ? undefined : containing(search),
    labelValues: selector && JSON.stringify(selector.values),
    labelKeys: selector && JSON.stringify(selector.keys),
  }
  return { shape, whole, values }
}

/** The owner's live monitors, newest first; the route's response schema serializes them. */
export async function listMonitorPage (db: Database, owner: Owner, query: MonitorListParams = {}): Promise<MonitorPage> {
  const { limit } = query
  const { shape, whole, values } = listRequest(owner, query)
  const statement = whole ? listStatement(owner) : pageStatements(owner)(shape)
  // Times arrive as text: drizzle turns the drivers' date parsing off.
  const rows = rowsOf<PageRow | NullRow<PageRow>>(await statement(db).execute(values))
  assertOwnerFound(owner, rows)
  if (!foundRows(rows)) return { monitors: [] }
  let nextCursor: string | undefined
  if (limit !== undefined && rows.length > limit) {
    rows.length = limit
    nextCursor = encodeCursor(rows[limit - 1].sort_us!, rows[limit - 1].id)
  }
  for (const row of rows) {
    if (row.last_checked_at !== null) row.last_checked_at = isoTime(row.last_checked_at)
    if (!whole) delete row.sort_us
  }
  return { monitors: rows, nextCursor }
}

/** The owner's live monitors that the filters keep (all without), newest created first. */
export async function listMonitors (
  db: Database, owner: Owner, filters: Omit<MonitorListParams, 'limit' | 'cursor'> = {}
): Promise<MonitorListItem[]> {
  return (await listMonitorPage(db, owner, filters)).monitors
}

const MONITOR_FIELDS = Object.keys(MonitorSchema.properties)

// No row: the owner is gone; a row of nulls: no such monitor of theirs.
function findMonitorQuery (kind: OwnerKind): SQL {
  return sql`select ${selectList('m', monitors, MONITOR_FIELDS, { notification_channel_ids: channelIdsColumn('m'), ping_url: 'm.ping_token' })}
    ${ownedMonitorRow(kind, 'id')}`
}
const findStatement = perOwnerKind((kind) => preparedSql(`find_monitor_${kind}`, () => findMonitorQuery(kind)))

/** The owner's live monitor under the API's field names, times as text and `ping_url` its token (completeMonitor finishes it). */
export async function findMonitorRow (db: Database, owner: Owner, id: string): Promise<Monitor | undefined> {
  const rows = rowsOf<Monitor | NullRow<Monitor>>(await findStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  return foundRows(rows) ? rows[0] : undefined
}

const existsStatement = perOwnerKind((kind) => preparedSql(`monitor_exists_${kind}`, () => sql`select m.id
    ${ownedMonitorRow(kind, 'id')}`))

/** True when the monitor is live and the owner's. */
export async function monitorExists (db: Database, owner: Owner, id: string): Promise<boolean> {
  const rows = rowsOf<{ id: string | null }>(await existsStatement(owner)(db).execute({ owner: ownerValue(owner), id }))
  assertOwnerFound(owner, rows)
  return rows[0].id !== null
}

type MonitorInsert = typeof monitors.$inferInsert
/** The columns an insert sets, as the service gives them: a body's (columnsOf), the ping token, the status, schedule and location states. */
const INSERTED_COLUMNS = [...WRITABLE_COLUMNS, 'pingToken', 'status', 'nextCheckAt', 'locationStates'] as const
export type NewMonitorColumns = { [K in (typeof INSERTED_COLUMNS)[number]]?: MonitorInsert[K] }

/** The audit event of a monitor's creation, but for what the insert gives it (organization, entity id). */
export type CreationEvent = Omit<typeof auditEvents.$inferInsert, 'id' | 'orgId' | 'entityId'>
// The event's columns, in the statement's order; the insert gives the first two.
const EVENT_COLUMNS = ['orgId', 'entityId', 'occurredAt', 'actorType', 'actorId', 'actorLabel', 'action', 'entityType', 'changes', 'requestId', 'ip'] as const

/** `$name::type` of a column of `table`: an INSERT ... SELECT types its values by their casts, not by the columns. */
function typedPlaceholder (table: PgTable) {
  const columns = getTableColumns(table)
  return (placeholder: string, column: string) => sql`${ph(placeholder)}::${sql.raw(columns[column].getSQLType())}`
}

// Inserts from the owner row, so a deleted key inserts nothing in the same statement, and the creation's audit
// event with it: one statement, so the monitor and its event commit together without a transaction.
function insertMonitorQuery (kind: OwnerKind): SQL {
  const columns = getTableColumns(monitors)
  const typed = typedPlaceholder(monitors)
  const names = ['orgId', ...INSERTED_COLUMNS, 'createdAt', 'updatedAt'].map((column) => columns[column as keyof typeof columns].name)
  const values = [sql`o.org_id`, ...INSERTED_COLUMNS.map((column) => typed(column, column)), typed('now', 'createdAt'), typed('now', 'updatedAt')]
  const eventColumns = getTableColumns(auditEvents)
  const event = typedPlaceholder(auditEvents)
  const eventNames = EVENT_COLUMNS.map((column) => eventColumns[column].name)
  const eventValues = [sql`m.org_id`, sql`m.id`, ...EVENT_COLUMNS.slice(2).map((column) => event(column, column))]
  return sql`with m as (insert into ${monitors} as m (${sql.raw(names.join(', '))}) select ${sql.join(values, sql`, `)} from ${ownerRow(kind)}
    returning ${selectList('m', monitors, MONITOR_FIELDS, { notification_channel_ids: '\'[]\'::json', ping_url: 'm.ping_token' })}, m.org_id),
  e as (insert into ${auditEvents} (${sql.raw(eventNames.join(', '))}) select ${sql.join(eventValues, sql`, `)} from m)
  select ${sql.raw(MONITOR_FIELDS.join(', '))} from m`
}
const insertStatement = perOwnerKind((kind) => preparedSql(`insert_monitor_${kind}`, () => insertMonitorQuery(kind)))

/** Inserts the owner's monitor and its creation's event (ApiKeyGoneError when the owner's key is gone); the row as findMonitorRow gives it. */
export async function insertMonitor (db: Database, owner: Owner, columns: NewMonitorColumns, now: Date, event: CreationEvent): Promise<Monitor> {
  // Assigned into the columns' own object: a spread is the costliest step of a create.
  const values = Object.assign(columns as Record<string, unknown>, {
    requestHeaders: JSON.stringify(columns.requestHeaders),
    secretHeaders: JSON.stringify(columns.secretHeaders),
    labels: JSON.stringify(columns.labels),
    locationStates: JSON.stringify(columns.locationStates ?? []),
    nextCheckAt: columns.nextCheckAt?.toISOString() ?? null,
    now: now.toISOString(),
    owner: ownerValue(owner),
  }, event, { occurredAt: event.occurredAt.toISOString(), changes: JSON.stringify(event.changes) })
  const rows = rowsOf<Monitor>(await insertStatement(owner)(db).execute(values))
  assertOwnerFound(owner, rows)
  return rows[0]
}

const ownedLive = (orgId: string, id: string) => and(eq(monitors.id, id), eq(monitors.orgId, orgId), isNull(monitors.deletedAt))

/** The organization's live monitor, locked for an update in the caller's transaction; undefined when none. */
export async function lockOwnedMonitor (tx: Database, orgId: string, id: string): Promise<MonitorRow | undefined> {
  const [row] = await tx.select(monitorRowColumns).from(monitors).where(ownedLive(orgId, id)).for('update')
  return row
}

/** Writes `changes` to the monitor; its row after them. */
export async function updateMonitorRow (tx: Database, id: string, changes: Partial<MonitorInsert>): Promise<MonitorRow> {
  const [row] = await tx.update(monitors).set(changes).where(eq(monitors.id, id)).returning(monitorRowColumns)
  return row
}

/** Marks the organization's live monitor deleted and unscheduled; its row, undefined when there was none. */
export async function softDeleteMonitor (tx: Database, orgId: string, id: string, now: Date): Promise<MonitorRow | undefined> {
  const [deleted] = await tx.update(monitors)
    .set({ deletedAt: now, updatedAt: now, nextCheckAt: null })
    .where(ownedLive(orgId, id))
    .returning(monitorRowColumns)
  return deleted
}

/** The organization's live monitors with what each depends on, its dependency edges locked until the transaction ends. */
export async function lockDependencyGraph (tx: Database, orgId: string): Promise<Map<string, { name: string, dependsOn: string[] }>> {
  // One change of edges at a time per organization, so that two changes cannot close a cycle together.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`depends_on:${orgId}`}))`)
  const rows = await tx.select({ id: monitors.id, name: monitors.name, dependsOn: monitors.dependsOn }).from(monitors)
    .where(and(eq(monitors.orgId, orgId), isNull(monitors.deletedAt)))
  return new Map(rows.map((row) => [row.id, { name: row.name, dependsOn: row.dependsOn }]))
}

/** Takes a deleted monitor out of what the organization's other monitors depend on. */
export async function forgetDependency (tx: Database, orgId: string, id: string): Promise<void> {
  await tx.execute(sql`update ${monitors} set depends_on = array_remove(depends_on, ${id}::uuid)
    where org_id = ${orgId} and depends_on @> array[${id}::uuid]`)
}
