// A monitor's columns from an API body: other kinds' columns hold their "absent" values, so that a row never
// carries another kind's settings.
import { randomBytes } from 'node:crypto'
import { getTableColumns } from 'drizzle-orm'
import { monitors } from '../db/schema.ts'
import { MONITOR_DEFAULTS, MONITOR_TYPE_FIELDS, TYPE_SPECIFIC_FIELDS, isFieldOfType } from '../domain/monitor-types.ts'
import type { MonitorType } from '../domain/vocabulary.ts'
import { UpdateMonitorSchema, type NewMonitor, type UpdateMonitor } from './schema.ts'

type MonitorInsert = typeof monitors.$inferInsert
const TABLE = getTableColumns(monitors)

/** The columns a body writes: those named as a writable field of the API (their names are the same). */
export const WRITABLE_COLUMNS = (Object.keys(TABLE) as Array<keyof typeof TABLE>)
  .filter((field) => TABLE[field].name in UpdateMonitorSchema.properties) as Array<keyof MonitorInsert>

/** A body's fields as columns; undefined: not given. */
export type WritableColumns = { [K in keyof MonitorInsert]?: MonitorInsert[K] }

/** The value of a kind's own field on a monitor of another kind: the column's default, or null. */
const ABSENT: Record<string, unknown> = Object.fromEntries(Object.values(TABLE)
  .filter((column) => TYPE_SPECIFIC_FIELDS.has(column.name))
  .map((column) => [column.name, column.hasDefault ? column.default : null]))

/** The token of a heartbeat's ping URL, the credential of its pings. */
const newPingToken = (): string => randomBytes(18).toString('base64url')

/** Whether `text` has the shape of newPingToken's tokens: no other text can name a monitor. */
export const hasPingTokenShape = (text: string): boolean => /^[\w-]{24}$/.test(text)

/** Header names are matched in any case, so they are stored lower-cased, each once. */
export const secretHeaderNames = (names: readonly string[]): string[] => [...new Set(names.map((name) => name.toLowerCase()))]

/** A body's fields as columns (undefined: not given). */
export function columnsOf (input: UpdateMonitor): WritableColumns {
  const columns: Record<string, unknown> = {}
  for (const field of WRITABLE_COLUMNS) columns[field] = input[TABLE[field].name as keyof UpdateMonitor]
  columns.name = input.name?.trim()
  columns.secretHeaders = input.secret_headers && secretHeaderNames(input.secret_headers)
  return columns as WritableColumns
}

function othersAbsent (type: MonitorType): UpdateMonitor {
  const absent: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(ABSENT)) if (!isFieldOfType(type, field)) absent[field] = value
  return absent as UpdateMonitor
}

/** A validated create body as a whole row's columns (Object.assign: V8 copies a spread after other keys slowly). */
export function newMonitorColumns (input: NewMonitor) {
  const columns = columnsOf(Object.assign(othersAbsent(input.monitor_type), input) as UpdateMonitor)
  return Object.assign(columns, { pingToken: input.monitor_type === 'heartbeat' ? newPingToken() : null })
}

/** The columns a change of kind sets besides the body's: new kind's defaults, old kind's absent values, a ping token. */
export function kindChangeColumns (currentType: MonitorType, type: MonitorType, input: UpdateMonitor) {
  if (type === currentType) return {}
  const defaults: Record<string, unknown> = {}
  for (const field of MONITOR_TYPE_FIELDS[type] as readonly string[]) {
    if (field !== 'url' && input[field as keyof UpdateMonitor] === undefined) defaults[field] = MONITOR_DEFAULTS[field as keyof typeof MONITOR_DEFAULTS]
  }
  const columns = Object.entries(columnsOf({ ...othersAbsent(type), ...defaults } as UpdateMonitor)).filter(([, value]) => value !== undefined)
  return { ...Object.fromEntries(columns) as Partial<ReturnType<typeof columnsOf>>, pingToken: type === 'heartbeat' ? newPingToken() : null }
}
