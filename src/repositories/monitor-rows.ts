// Whole monitor rows read by plain SQL and decoded as drizzle decodes its own selects, for the locks that
// every recorded check and batch of pings takes.
import { getTableColumns, sql, type SQL } from 'drizzle-orm'
import { monitors } from '../db/schema.ts'

/** Every column but list_head and list_tail, the JSON that only the list reads (src/db/row-json.ts). */
export const monitorRowColumns = (({ listHead: _, listTail: __, ...columns }) => columns)(getTableColumns(monitors))

export type MonitorRow = Omit<typeof monitors.$inferSelect, 'listHead' | 'listTail'>

const COLUMNS = Object.entries(monitorRowColumns).map(([field, column]) => ({
  field,
  name: column.name,
  decode: (value: unknown) => column.mapFromDriverValue(value),
}))

/** Every column of the monitors table, unaliased. */
export const MONITOR_COLUMNS: SQL = sql.raw(COLUMNS.map(({ name }) => `"${name}"`).join(', '))

/** A row of MONITOR_COLUMNS, keyed by column name, as MonitorRow. */
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
