// Shared schemas come from their own plugin: routes that refer to them work without the OpenAPI plugin,
// and every $ref of the served document names a schema that the plugin registers.
import t from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import schemasPlugin from '../../src/plugins/schemas.ts'
import { SHARED_SCHEMAS } from '../../src/app.ts'
import { Envelope } from '../../src/schemas/common.ts'
import { MonitorListItemSchema } from '../../src/monitors/schema.ts'
import { buildTestApp } from '../helper.ts'

t.test('a route refers to a shared schema without the OpenAPI plugin', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(schemasPlugin, { schemas: SHARED_SCHEMAS })
  app.get('/item', { schema: { response: { 200: Envelope(Type.Ref(MonitorListItemSchema), 'one') } } }, async () => ({
    data: { id: 'x', name: 'n', url: 'https://example.com', monitor_type: 'site', status: 'up', is_active: true, interval_minutes: 5, last_checked_at: null, extra: 'dropped' },
  }))
  const res = await app.inject('/item')
  t.equal(res.statusCode, 200)
  t.notOk('extra' in res.json().data, 'serialized through the shared schema')
})

t.test('every $ref of the OpenAPI document is a registered shared schema', async (t) => {
  const { app } = await buildTestApp(t)
  const refs = new Set([...JSON.stringify(app.swagger()).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]))
  t.ok(refs.size > 0)
  const registered = new Set(SHARED_SCHEMAS.map((schema) => schema.$id))
  // The variants of a discriminated oneOf are named in the document only (src/http/openapi-conventions.ts): the
  // validator reads them inline, in their registered parent. (A tag with a default makes the document's oneOf an anyOf.)
  type Component = { discriminator?: { mapping?: Record<string, string> }, anyOf?: Array<{ $ref?: string }> }
  const schemas = (app.swagger() as { components: { schemas: Record<string, Component> } }).components.schemas
  const variants = new Set(Object.values(schemas)
    .flatMap((schema) => [...Object.values(schema.discriminator?.mapping ?? {}), ...(schema.anyOf ?? []).flatMap((v) => v.$ref ?? [])])
    .map((ref) => ref.replace('#/components/schemas/', '')))
  t.ok(variants.has('CreateTcpMonitor'), 'the monitor kinds\' create bodies are named variants')
  t.ok(variants.has('CreateWebhookChannel'), 'the channel types\' create bodies are named variants')
  for (const ref of refs) t.ok(registered.has(ref) || variants.has(ref), `${ref} is registered by the schemas plugin, or a named variant`)
})
