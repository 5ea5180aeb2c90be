// The channel form's fields read off a config schema: kinds, labels, secrets and what a typed value becomes,
// for kinds of fields today's types do not all have (a number, a checkbox), so a new type needs no change.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { CHANNEL_TYPES } from '../../src/domain/vocabulary.ts'
import { configFields, fieldsOf, valueOf } from '../../src/dashboard/channel-input.ts'
import { secretFields } from '../../src/notifications/schema.ts'

t.test('fields of a config schema', async (t) => {
  const fields = fieldsOf(Type.Object({
    server_url: Type.String({ format: 'uri', description: 'Where', examples: ['https://x.example'] }),
    api_key: Type.String({ writeOnly: true }),
    chat_id: Type.Optional(Type.String()),
    retries: Type.Integer(),
    loud: Type.Optional(Type.Boolean({ description: 'Ring' })),
    to: Type.Array(Type.String({ description: 'An address', examples: ['a@example.com'] })),
  }))
  t.same(fields.map((f) => [f.name, f.label, f.kind, f.secret, f.required]), [
    ['config/server_url', 'Server URL', 'url', false, true],
    ['config/api_key', 'API key', 'text', true, true],
    ['config/chat_id', 'Chat ID', 'text', false, false],
    ['config/retries', 'Retries', 'number', false, true],
    ['config/loud', 'Loud', 'switch', false, false],
    ['config/to', 'To', 'list', false, true],
  ])
  t.match(fields[0], { description: 'Where', example: 'https://x.example' })
  t.match(fields[5], { description: 'An address', example: 'a@example.com' }, 'a list is described by its items')

  const [url, , , retries, loud, to] = fields
  t.equal(valueOf(url, '  https://x.example/a  '), 'https://x.example/a', 'trimmed')
  t.equal(valueOf(url, '   '), undefined, 'blank')
  t.equal(valueOf(retries, '3'), 3)
  t.equal(valueOf(retries, '1.5'), 1.5, 'for the schema to say "must be integer"')
  t.equal(valueOf(retries, 'three'), 'three')
  t.equal(valueOf(loud, 'on'), true)
  t.equal(valueOf(loud, undefined), false, 'a checkbox not sent is false')
  t.same(valueOf(to, 'a@example.com,b@example.com; c@example.com\nd@example.com'), ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'])
})

t.test('every channel type\'s secrets are its writeOnly fields, as the API masks them', async (t) => {
  for (const type of CHANNEL_TYPES) t.same(configFields(type).filter((f) => f.secret).map((f) => f.key), secretFields(type), type)
})
