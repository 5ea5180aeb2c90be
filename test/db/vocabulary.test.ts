// Each closed vocabulary is one list: the table refuses a value outside it, and the API schema offers exactly it.
import t from 'tap'
import { sql } from 'drizzle-orm'
import {
  API_KEY_SCOPES, HTTP_METHODS, INCIDENT_STATUSES, MONITOR_STATUSES, MONITOR_TYPES,
} from '../../src/domain/vocabulary.ts'
import { CreateApiKeySchema } from '../../src/schemas/api-key.ts'
import { IncidentSchema } from '../../src/schemas/incident.ts'
import { MonitorSchema } from '../../src/schemas/monitor.ts'
import { buildTestApp, makeMonitor, makeUser } from '../helper.ts'

t.test('the API schemas enumerate the vocabularies', async (t) => {
  t.same(MonitorSchema.properties.monitor_type.enum, MONITOR_TYPES)
  t.same(MonitorSchema.properties.method.enum, HTTP_METHODS)
  t.same(MonitorSchema.properties.status.enum, MONITOR_STATUSES)
  t.same(IncidentSchema.properties.status.enum, INCIDENT_STATUSES)
  t.same(CreateApiKeySchema.properties.scope.enum, API_KEY_SCOPES)
})

t.test('the tables accept every value of each vocabulary and refuse any other', async (t) => {
  const { app } = await buildTestApp(t)
  const { auth, keyId } = await makeUser(app)
  const monitor = await makeMonitor(app, auth)
  await app.db.execute(sql`insert into incidents (monitor_id, cause, started_at) values (${monitor.id}, 'test', now())`)
  const columns: Array<[string, string, readonly string[], string]> = [
    ['monitors', 'monitor_type', MONITOR_TYPES, monitor.id],
    ['monitors', 'method', HTTP_METHODS, monitor.id],
    ['monitors', 'status', MONITOR_STATUSES, monitor.id],
    ['api_keys', 'scope', API_KEY_SCOPES, keyId],
  ]
  const incident = (await app.db.execute(sql`select id from incidents where monitor_id = ${monitor.id}`))
  const incidentId = (Array.isArray(incident) ? incident : (incident as { rows: Array<{ id: string }> }).rows)[0].id as string
  columns.push(['incidents', 'status', INCIDENT_STATUSES, incidentId])
  for (const [table, column, values, id] of columns) {
    const set = (value: string) => app.db.execute(sql`update ${sql.identifier(table)} set ${sql.identifier(column)} = ${value} where id = ${id}`)
    for (const value of values) await set(value)
    const refused = await set('not-in-the-list').then(() => undefined, (err: { code?: string, cause?: { code?: string } }) => err.cause?.code ?? err.code)
    t.equal(refused, '23514', `${table}.${column} refuses a value outside its vocabulary (check_violation)`)
  }
})
