// Validators and serializers are compiled on their first use, not when a route is registered, and answer then as
// compiled ones would.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { createValidatorCompiler } from '../../src/http/validation.ts'
import { createSerializerCompiler } from '../../src/http/serialization.ts'

t.test('a validator is compiled on its first call; its errors are there after each call', async (t) => {
  const compile = createValidatorCompiler()
  const broken = compile({ schema: { type: 'object', properties: { a: { $ref: 'Missing' } } }, httpPart: 'body' })
  t.throws(() => broken({ a: 1 }), 'compiled (and refused) on its first call')
  const validate = compile({ schema: Type.Object({ n: Type.Integer({ maximum: 5 }) }, { additionalProperties: false }), httpPart: 'body' })
  t.equal(validate.errors, null)
  t.equal(validate({ n: 9 }), false)
  t.equal(validate.errors?.[0]?.keyword, 'maximum')
  t.equal(validate({ n: 1 }), true)
  t.equal(validate.errors, null)
  t.equal(validate({ n: 'x\u0000' }), false, 'a body is checked for unstorable text too')
  const text = compile({ schema: Type.Object({ name: Type.String(), headers: Type.Record(Type.String(), Type.String()) }), httpPart: 'body' })
  t.equal(text({ name: 'ok', headers: { 'a/b~c': 'fine' } }), true, 'storable text passes')
  t.equal(text({ name: 'ok', headers: { 'a/b~c': 'x\u0000y' } }), false)
  t.same(text.errors, [{ keyword: 'x-storable-text', instancePath: '/headers/a~1b~0c', schemaPath: '', params: {}, message: 'must not contain NUL characters' }],
    'a NUL in a nested value, named by its path')
  t.equal(text({ name: 'ok', headers: { 'k\ud800': 'v' } }), false)
  t.same(text.errors?.[0], { keyword: 'x-storable-text', instancePath: '/headers/k\ud800', schemaPath: '', params: {}, message: 'must be well-formed Unicode (a lone surrogate is not)' },
    'a lone surrogate in a key')
  t.equal(text({ name: '\udfff', headers: {} }), false, 'a lone low surrogate in a value')
  t.equal(text({ name: '\ud83d\ude00', headers: {} }), true, 'a surrogate pair is a character')
  const query = compile({ schema: Type.Object({ limit: Type.Integer() }), httpPart: 'querystring' })
  const input = { limit: '7' }
  t.equal(query(input), true)
  t.same(input, { limit: 7 }, 'query values coerced')
})

t.test('a serializer is compiled on its first call, with the shared schemas its response refers to', async (t) => {
  const Leaf = Type.Object({ n: Type.Integer() }, { $id: 'Leaf' })
  const Branch = Type.Object({ leaf: Type.Ref(Leaf), note: Type.String() }, { $id: 'Branch' })
  // Invalid: fast-json-stringify refuses any compile it is handed to, so a response that does not refer to it must not get it.
  const Unrelated = Type.Object({ x: Type.Unsafe({ type: 'nonsense' }) }, { $id: 'Unrelated' })
  const shared = [Leaf, Branch, Unrelated]
  const compile = createSerializerCompiler(shared)
  const broken = compile({ schema: Type.Object({ a: Type.Unsafe({ $ref: 'Missing' }) }) })
  t.throws(() => broken({ a: 1 }), 'compiled (and refused) on its first call')
  const list = Type.Object({ data: Type.Array(Type.Ref(Branch)) })
  const serialize = compile({ schema: list })
  t.same(JSON.parse(serialize({ data: [{ leaf: { n: 1, extra: true }, note: 'a' }], more: 1 })), { data: [{ leaf: { n: 1 }, note: 'a' }] },
    'a $ref within a $ref is resolved; what the schema does not name is left out')
  t.equal(compile({ schema: Branch })({ leaf: { n: 2 }, note: 'b' }), '{"leaf":{"n":2},"note":"b"}', 'a shared schema as the response itself')
  t.equal(createSerializerCompiler(shared)({ schema: list })({ data: [] }), '{"data":[]}', 'another app over the same shared schemas')
})
