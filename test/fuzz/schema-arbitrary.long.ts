// The fuzzer's value generators over every parameter and body property of openapi/openapi.json: each one yields
// values at once (a filter that never passes hung the fuzz run). What they yield is approximate by design: the
// fuzz test asserts only that what the document refuses never succeeds.
import { readFileSync } from 'node:fs'
import t from 'tap'
import fc from 'fast-check'
import { deref, invalidValue, validValue, type Schema } from './schema-arbitrary.ts'

const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as Schema
// A generator stuck in a filter never returns: the test's own timeout turns that into a failure.
t.setTimeout(30_000)

const schemas: Array<[string, Schema]> = Object.entries(doc.paths as Record<string, Schema>).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, op]: [string, Schema]) => {
    const name = `${method.toUpperCase()} ${path}`
    const params = (op.parameters ?? []).map((p: Schema): [string, Schema] => [`${name} ${p.in} ${p.name}`, deref(p.schema, doc)])
    const body = op.requestBody ? deref(op.requestBody.content['application/json'].schema, doc) : undefined
    const members: Schema[] = body ? [body, ...(body.oneOf ?? body.anyOf ?? [])] : []
    const properties = members.flatMap((member) => Object.entries((member.properties ?? {}) as Record<string, Schema>)
      .map(([key, sub]): [string, Schema] => [`${name} body ${key}`, sub]))
    return [...params, ...properties]
  }))

t.ok(schemas.some(([where]) => where.endsWith('query search')), 'the monitor list\'s search (a pattern any blank matches) is among them')

for (const [where, schema] of schemas) {
  t.test(where, async (t) => {
    t.equal(fc.sample(validValue(schema), { numRuns: 200, seed: 1 }).length, 200, 'valid values')
    t.equal(fc.sample(invalidValue(schema), { numRuns: 200, seed: 1 }).length, 200, 'invalid values')
  })
}
