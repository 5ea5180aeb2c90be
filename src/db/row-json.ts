// A row's JSON text as the API writes it, as SQL for the generated columns monitors.list_head and list_tail.
import type { TObject } from '@sinclair/typebox'

type FieldSchema = { type?: string | string[], format?: string, enum?: unknown[] }

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** A value JSON writes as it is between quotes: a uuid, or a vocabulary's word (checked below). */
const needsNoEscape = (field: FieldSchema) => field.format === 'uuid' ||
  (Array.isArray(field.enum) && field.enum.every((value) => value === null || (typeof value === 'string' && JSON.stringify(value) === `"${value}"`)))

/**
 * The JSON of one field's value: `quote` + `sql` + `quote`, `sql` null when the column is. Generated columns take
 * immutable functions only (to_json is stable), hence json_string_text() and iso_time_text() of drizzle/0017 and 0018.
 */
function valueJson (column: string, field: FieldSchema): { sql: string, quote: string } {
  const types = Array.isArray(field.type) ? field.type : [field.type]
  if (types.includes('string') && field.format === 'date-time') return { sql: `iso_time_text(${column})`, quote: '"' }
  if (types.includes('string')) {
    if (needsNoEscape(field)) return { sql: `${column}::text`, quote: '"' }
    return { sql: `json_string_text(${column})`, quote: '' }
  }
  if (types.includes('integer')) return { sql: `${column}::text`, quote: '' }
  if (types.includes('boolean')) return { sql: `case ${column} when true then 'true' when false then 'false' end`, quote: '' }
  throw new Error(`rowJsonSql: no JSON of the database for ${column} (${JSON.stringify(field.type)})`)
}

export interface RowJsonPart {
  part: 'head' | 'tail'
  /** How many of the schema's first fields the head holds. */
  headFields: number
}

/**
 * Part of a row's compact JSON text: the head is `{` and the first `headFields` fields, the tail the rest and `}`.
 * Concatenation costs the database less than row_to_json; monitor-json.test.ts checks the bytes against the schema.
 */
export function rowJsonSql (schema: TObject, { part, headFields }: RowJsonPart): string {
  const fields = Object.entries(schema.properties)
  const [first, last] = part === 'head' ? [0, headFields] : [headFields, fields.length]
  // Text between the values (keys, quotes) is gathered into one literal each.
  const parts: string[] = []
  let text = part === 'head' ? '{' : ''
  for (const [index, [name, field]] of fields.entries()) {
    if (index < first || index >= last) continue
    text += `${index === 0 ? '' : ','}${JSON.stringify(name)}:`
    const value = valueJson(name, field as FieldSchema)
    if (Array.isArray(field.type) && field.type.includes('null')) {
      parts.push(literal(text), `coalesce(${value.quote ? `'${value.quote}' || ${value.sql} || '${value.quote}'` : value.sql}, 'null')`)
      text = ''
    } else {
      parts.push(literal(text + value.quote), value.sql)
      text = value.quote
    }
  }
  if (part === 'tail') text += '}'
  if (text !== '') parts.push(literal(text))
  return parts.join(' || ')
}
