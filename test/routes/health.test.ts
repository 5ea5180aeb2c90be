import t from 'tap'
import { buildTestApp } from '../helper.ts'

t.test('healthz and readyz need no key and answer in the envelope', async (t) => {
  const { app } = await buildTestApp(t)
  const live = await app.inject({ url: '/healthz' })
  t.equal(live.statusCode, 200)
  t.same(live.json(), { data: { status: 'alive' } })
  t.ok(live.headers['x-request-id'])
  const ready = await app.inject({ url: '/readyz' })
  t.equal(ready.statusCode, 200)
  t.same(ready.json(), { data: { status: 'ready' } })
})

t.test('readyz is 503 when the database is gone', async (t) => {
  const { app, database } = await buildTestApp(t)
  await database.close()
  const res = await app.inject({ url: '/readyz' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { error: 'Service unavailable' })
})
