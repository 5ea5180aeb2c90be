// Whole monitor rows read by plain SQL and mapped as drizzle maps its own selects: the locks of the record path
// (every check and every batch of pings takes one), where drizzle's building of a 40-column select and its
// generic row mapping were a share of each batch's CPU (bench/results.md).
import { getTableColumns, sql, type SQL } from 'drizzle-orm'
import { monitors } from '../db/schema.ts'

/**
 * The columns of a whole monitor row, as drizzle selects and returns them (`select(monitorRowColumns)`): every
 * column but list_head and list_tail, the row's JSON for the list alone (src/db/row-json.ts), a few hundred bytes
 * that no other read wants.
 */
export const monitorRowColumns = (({ listHead: _, listTail: __, ...columns }) => columns)(getTableColumns(monitors))

export type MonitorRow = Omit<typeof monitors.$inferSelect, 'listHead' | 'listTail'>

/** Each column: its field in MonitorRow, its name in SQL, and drizzle's own decoder of its driver value. */
const COLUMNS = Object.entries(monitorRowColumns).map(([field, column]) => ({
  field,
  name: column.name,
  decode: (value: unknown) => column.mapFromDriverValue(value),
}))

/** `"id", "user_id", ...`: every column of the monitors table (a statement reading it alone, unaliased). */
export const MONITOR_COLUMNS: SQL = sql.raw(COLUMNS.map(({ name }) => `"${name}"`).join(', '))

/** A row of MONITOR_COLUMNS as the driver gives it (keyed by column name), as MonitorRow. */
export function monitorRowOf (row: Record<string, unknown>): MonitorRow {
  const monitor: Record<string, unknown> = {}
  for (const { field, name, decode } of COLUMNS) {
    const value = row[name]
    monitor[field] = value === null || value === undefined ? null : decode(value)
  }
  return monitor as MonitorRow
}

/**
 * `= any(...)` of a list given as one jsonb parameter: one statement text whatever the list's length (a list of
 * parameters made a statement per length, each prepared anew), and any text is safe in it.
 */
export const anyOf = (values: readonly string[], type: 'uuid' | 'text'): SQL =>
  sql`any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)::${sql.raw(type)}))`
