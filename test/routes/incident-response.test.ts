// Answering an incident (api-contract section 13): its timeline, one acknowledgement told to the channels that
// want it, notes open or resolved, each audited; a viewer only reads.
import t from 'tap'
import { sql } from 'drizzle-orm'
import { recordCheck } from '../../src/checks/record-check.ts'
import { rowsOf } from '../../src/db/client.ts'
import { buildTestApp, makeMember, makeMonitor, makeTeam, request } from '../helper.ts'

const failed = (checkedAt: Date) => ({ isUp: false, statusCode: 503, responseTimeMs: 12, errorMessage: 'expected status 200, got 503', checkedAt })
const passed = (checkedAt: Date) => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt })

t.test('an incident is acknowledged once, noted, told and audited; its timeline tells it all in order', async (t) => {
  const { app } = await buildTestApp(t, { env: { ALLOW_PRIVATE_TARGETS: 'true' } })
  const team = await makeTeam(app)
  const responder = await makeMember(app, team.orgId, 'responder')
  const viewer = await makeMember(app, team.orgId, 'viewer')
  const monitor = await makeMonitor(app, team.auth, { failure_threshold: 1, recovery_threshold: 1 })
  const channel = async (name: string, events: string[]) => (await request(app, team.auth, {
    method: 'POST',
    url: '/api/v1/notification-channels',
    payload: { name, type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' }, events, all_monitors: true },
  })).json().data
  const told = await channel('told of acknowledgements', ['incident.opened', 'incident.acknowledged'])
  await channel('openings only', ['incident.opened'])

  await recordCheck(app.db, monitor.id, failed(new Date()), 30_000)
  const [incident] = (await request(app, team.auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data
  t.match(incident, { status: 'open', acknowledged_at: null, acknowledged_by: null, during_maintenance: false, suppressed_by: null })

  const opened = (await request(app, viewer.auth, { url: `/api/v1/incidents/${incident.id}` })).json().data
  t.same(opened.timeline.map((e: { kind: string }) => e.kind), ['opened', 'notified', 'notified'], 'opened, and told to both channels')
  t.same(opened.timeline.filter((e: { kind: string }) => e.kind === 'notified').map((e: { channel_name: string, event_type: string, status: string }) => [e.channel_name, e.event_type, e.status]).sort(),
    [['openings only', 'incident.opened', 'pending'], ['told of acknowledgements', 'incident.opened', 'pending']])

  const refused = await request(app, viewer.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: {} })
  t.equal(refused.statusCode, 403, 'a viewer reads, and does not acknowledge')
  t.equal((await request(app, viewer.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/notes`, payload: { body: 'me too' } })).statusCode, 403)

  const first = await request(app, responder.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: { note: 'Looking into it' } })
  t.equal(first.statusCode, 200)
  const acknowledged = first.json().data
  t.match(acknowledged, { id: incident.id, status: 'open', acknowledged_by: { type: 'api_key', id: responder.keyId, label: /^member \(sk_/ } })
  t.ok(acknowledged.acknowledged_at, 'acknowledged_at is set')
  const again = await request(app, team.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: {} })
  t.equal(again.statusCode, 200)
  t.same(again.json().data, acknowledged, 'a second acknowledgement answers the first')

  const deliveries = rowsOf<{ channel_id: string }>(await app.db.execute(sql`
    select d.channel_id from notification_deliveries d join notification_events e on e.id = d.event_id
    where e.incident_id = ${incident.id} and e.type = 'incident.acknowledged'`))
  t.same(deliveries.map((d) => d.channel_id), [told.id], 'incident.acknowledged goes once, to the channel that wants it')

  const blank = await request(app, responder.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/notes`, payload: { body: '   ' } })
  t.same([blank.statusCode, blank.json()], [400, { error: 'body/body must be 1-10000 characters and not blank' }])

  await recordCheck(app.db, monitor.id, passed(new Date()), 30_000)
  const late = await request(app, responder.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/notes`, payload: { body: 'Rolled back the deploy' } })
  t.equal(late.statusCode, 201, 'a resolved incident still takes notes')
  t.equal(late.headers.location, `/api/v1/incidents/${incident.id}`)
  t.match(late.json().data, { body: 'Rolled back the deploy', actor: { type: 'api_key', id: responder.keyId } })

  const timeline = (await request(app, viewer.auth, { url: `/api/v1/incidents/${incident.id}` })).json().data.timeline as Array<{ kind: string, body?: string, event_type?: string }>
  t.same(timeline.map((e) => e.kind === 'note' ? `note: ${e.body}` : e.kind === 'notified' ? `notified: ${e.event_type}` : e.kind), [
    'opened', 'notified: incident.opened', 'notified: incident.opened', 'notified: incident.acknowledged', 'acknowledged', 'note: Looking into it',
    'resolved', 'note: Rolled back the deploy',
  ], 'oldest first, each thing once')

  const stale = await request(app, responder.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: {} })
  t.equal(stale.statusCode, 200, 'acknowledged before it resolved: still the first acknowledgement')

  const events = (await request(app, team.auth, { url: `/api/v1/audit-events?entity_id=${incident.id}` })).json().data
  t.same(events.map((e: { action: string }) => e.action).sort(), ['incident.acknowledged', 'incident.note_added', 'incident.note_added'], 'each change once in the audit log')
  t.same(events.find((e: { action: string }) => e.action === 'incident.acknowledged').changes, { acknowledged_at: [null, acknowledged.acknowledged_at] })
})

t.test('a resolved incident never acknowledged is a 409; another organization\'s or an unknown one is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const team = await makeTeam(app)
  const other = await makeTeam(app)
  const monitor = await makeMonitor(app, team.auth, { failure_threshold: 1, recovery_threshold: 1 })
  await recordCheck(app.db, monitor.id, failed(new Date()), 30_000)
  await recordCheck(app.db, monitor.id, passed(new Date()), 30_000)
  const [incident] = (await request(app, team.auth, { url: `/api/v1/monitors/${monitor.id}/incidents` })).json().data
  const late = await request(app, team.auth, { method: 'POST', url: `/api/v1/incidents/${incident.id}/acknowledge`, payload: { note: 'too late' } })
  t.same([late.statusCode, late.json()], [409, { error: 'The incident is resolved: it takes notes, not an acknowledgement' }])
  const detail = (await request(app, team.auth, { url: `/api/v1/incidents/${incident.id}` })).json().data
  t.same(detail.timeline.map((e: { kind: string }) => e.kind), ['opened', 'resolved'], 'a refused acknowledgement leaves no note')

  for (const [auth, id] of [[other.auth, incident.id], [team.auth, '0b9e8d7c-6a5b-4c3d-9e2f-000000000000']] as const) {
    t.equal((await request(app, auth, { url: `/api/v1/incidents/${id}` })).statusCode, 404)
    const res = await request(app, auth, { method: 'POST', url: `/api/v1/incidents/${id}/notes`, payload: { body: 'hello' } })
    t.same([res.statusCode, res.json()], [404, { error: 'Incident not found' }])
  }
  t.equal((await request(app, team.auth, { url: '/api/v1/incidents/not-a-uuid' })).statusCode, 400)
})
