// A row's JSON text as the API writes it, as SQL over the row's columns, for the generated columns that keep each
// monitor's list item (monitors.list_head and list_tail, issue #17).
import type { TObject } from '@sinclair/typebox'

type FieldSchema = { type?: string | string[], format?: string, enum?: unknown[] }

/** SQL text of a string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** A value JSON writes as it is between quotes: a uuid, or a vocabulary's word (checked below). */
const needsNoEscape = (field: FieldSchema) => field.format === 'uuid' ||
  (Array.isArray(field.enum) && field.enum.every((value) => value === null || (typeof value === 'string' && JSON.stringify(value) === `"${value}"`)))

/**
 * The JSON of one field's value: `quote` + `sql` + `quote`; `sql` is null when the column is. A generated column
 * takes immutable functions only, so an escaped string goes through json_string_text() (to_json is stable, though
 * for text it depends on no setting) and a time through iso_time_text() (to_char's picture of toISOString: UTC,
 * milliseconds cut as Date cuts them, `Z`, whatever the session's TimeZone): drizzle/0017 and 0018.
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
  /** The fields of this part, in the schema's order: its first fields (the head) or the ones after them (the tail). */
  part: 'head' | 'tail'
  /** How many of the schema's first fields the head holds. */
  headFields: number
}

/**
 * Part of the JSON text of a row, `{"id":"...","name":"...",...}` (compact): the head is `{` and the first
 * `headFields` fields, the tail the others and `}`, so that head || tail is the whole text. Each field of `schema`
 * by its name, from the column of the same name. Strings are what JSON.stringify makes of them (to_json
 * escapes as it does; a uuid or a vocabulary's word needs no escaping); integers and booleans as JSON writes
 * them; a `date-time` as the API writes times; a null column `null`. Built by concatenation: row_to_json or
 * json_build_object of the same fields cost the database more (and the latter is not compact),
 * bench/results.md, issue #17. The schema stays the contract: the test validates these bytes against it and
 * compares them with the object path's (test/repositories/monitor-json.test.ts).
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
