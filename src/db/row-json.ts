// A row's JSON text as the API writes it, as a SQL expression over the row's own columns: what a table keeps in
// a generated column so that a list is the database joining texts (monitors.list_json, issue #17).
import type { TObject } from '@sinclair/typebox'

type FieldSchema = { type?: string | string[], format?: string, enum?: unknown[] }

/** SQL text of a string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`

/** A value JSON writes as it is between quotes: a uuid, or a vocabulary's word (checked below). */
const needsNoEscape = (field: FieldSchema) => field.format === 'uuid' ||
  (Array.isArray(field.enum) && field.enum.every((value) => value === null || (typeof value === 'string' && JSON.stringify(value) === `"${value}"`)))

/**
 * The JSON of one field's value: `quote` + `sql` + `quote`; `sql` is null when the column is. Times and
 * escaped strings go through json_time_text() and json_string_text() (drizzle/0017_monitors_list_json.sql):
 * to_char and to_json are not immutable, which a generated column requires, though with these arguments
 * they depend on no setting.
 */
function valueJson (column: string, field: FieldSchema): { sql: string, quote: string } {
  const types = Array.isArray(field.type) ? field.type : [field.type]
  if (types.includes('string') && field.format === 'date-time') return { sql: `json_time_text(${column})`, quote: '"' }
  if (types.includes('string')) return needsNoEscape(field) ? { sql: `${column}::text`, quote: '"' } : { sql: `json_string_text(${column})`, quote: '' }
  if (types.includes('integer')) return { sql: `${column}::text`, quote: '' }
  if (types.includes('boolean')) return { sql: `case ${column} when true then 'true' when false then 'false' end`, quote: '' }
  throw new Error(`rowJsonSql: no JSON of the database for ${column} (${JSON.stringify(field.type)})`)
}

/**
 * The JSON text of a row, `{"id":"...","name":"...",...}` (compact): each field of `schema`, in its order and
 * by its names, from the column of the same name. Strings are what JSON.stringify makes of them (to_json
 * escapes as it does; a uuid or a vocabulary's word needs no escaping); integers and booleans as JSON writes
 * them; a `date-time` as the API writes times; a null column `null`. Built by concatenation: row_to_json or
 * json_build_object of the same fields cost the database more (and the latter is not compact),
 * bench/results.md, issue #17. The schema stays the contract: the test validates these bytes against it and
 * compares them with the object path's (test/repositories/monitor-json.test.ts).
 */
export function rowJsonSql (schema: TObject): string {
  // Text between the values (keys, quotes) is gathered into one literal each.
  const parts: string[] = []
  let text = '{'
  for (const [name, field] of Object.entries(schema.properties)) {
    text += `${text === '{' ? '' : ','}${JSON.stringify(name)}:`
    const value = valueJson(name, field as FieldSchema)
    if (Array.isArray(field.type) && field.type.includes('null')) {
      parts.push(literal(text), `coalesce(${value.quote ? `'${value.quote}' || ${value.sql} || '${value.quote}'` : value.sql}, 'null')`)
      text = ''
    } else {
      parts.push(literal(text + value.quote), value.sql)
      text = value.quote
    }
  }
  parts.push(literal(text + '}'))
  return parts.join(' || ')
}
