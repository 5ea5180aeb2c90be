// Delivery routes: a channel's deliveries newest first, filtered and paged with Link rel="next" (no delivery
// skipped, even within one millisecond), one delivery with its attempts, a retry, and another user's 404s.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { notificationDeliveries } from '../../src/db/schema.ts'
import { enqueueEvent } from '../../src/repositories/notification-outbox.ts'
import { buildTestApp, makeUser, request } from '../helper.ts'

const DELIVERY_FIELDS = ['attempts', 'channel_id', 'created_at', 'delivered_at', 'event_id', 'event_type', 'id', 'last_error',
  'last_status_code', 'next_attempt_at', 'status']

t.test('delivery routes', async (t) => {
  const { app } = await buildTestApp(t)
  const owner = await makeUser(app)
  const stranger = await makeUser(app)
  const channel = (await request(app, owner.auth, {
    method: 'POST', url: '/api/v1/notification-channels', payload: { name: 'hook', type: 'webhook', config: { url: 'https://example.com/hook' } },
  })).json().data
  const deliveriesUrl = `/api/v1/notification-channels/${channel.id}/deliveries`

  /** A `test` event for the channel at `at`, as the outbox writes it; returns its delivery's id. */
  async function deliveryAt (at: Date): Promise<string> {
    const { eventId } = await enqueueEvent(app.db, {
      orgId: owner.user.id,
      monitorId: null,
      incidentId: null,
      channelId: channel.id,
      at,
      payload: { type: 'test', timestamp: at.toISOString(), data: { monitor: null, incident: null, check: null } },
    })
    const [row] = await app.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.eventId, eventId))
    return row.id
  }

  // Seven deliveries, three of them in one millisecond: created newest last.
  const base = Date.parse('2026-11-21T09:00:00.000Z')
  const times = [0, 1000, 2000, 2000, 2000, 3000, 4000].map((offset) => new Date(base + offset))
  const ids: string[] = []
  for (const at of times) ids.push(await deliveryAt(at))
  const [failedId, deadId] = [ids[1], ids[5]]
  await app.db.update(notificationDeliveries).set({
    status: 'failed',
    attempts: 1,
    lastStatusCode: 503,
    lastError: 'receiver answered 503',
    nextAttemptAt: new Date(base + 60_000),
    attemptLog: [{ at: new Date(base + 1000).toISOString(), status_code: 503, duration_ms: 12, error: 'receiver answered 503' }],
  }).where(eq(notificationDeliveries.id, failedId))
  const deadLog = [
    { at: new Date(base + 3000).toISOString(), status_code: null, duration_ms: 15000, error: 'timeout after 15000 ms' },
    { at: new Date(base + 9000).toISOString(), status_code: 500, duration_ms: 7, error: 'receiver answered 500' },
  ]
  await app.db.update(notificationDeliveries).set({
    status: 'dead', attempts: 2, lastStatusCode: 500, lastError: 'receiver answered 500', nextAttemptAt: null, attemptLog: deadLog,
  }).where(eq(notificationDeliveries.id, deadId))

  await t.test('the list: newest first, every field, no Link when nothing follows', async (t) => {
    const res = await request(app, owner.auth, { url: deliveriesUrl })
    t.equal(res.statusCode, 200)
    t.notOk(res.headers.link)
    const data = res.json().data
    t.equal(data.length, 7)
    t.same(data.map((d: { created_at: string }) => d.created_at), [...times].reverse().map((at) => at.toISOString()))
    t.same(new Set(data.map((d: { id: string }) => d.id)), new Set(ids))
    t.same(Object.keys(data[0]).sort(), DELIVERY_FIELDS, 'the list items have no attempt_log')
    t.same(data.find((d: { id: string }) => d.id === failedId), {
      id: failedId,
      channel_id: channel.id,
      event_id: data.find((d: { id: string }) => d.id === failedId).event_id,
      event_type: 'test',
      status: 'failed',
      attempts: 1,
      next_attempt_at: new Date(base + 60_000).toISOString(),
      last_status_code: 503,
      last_error: 'receiver answered 503',
      created_at: new Date(base + 1000).toISOString(),
      delivered_at: null,
    })
  })

  await t.test('paging: limit, before and Link rel="next" reach every delivery once', async (t) => {
    const seen: string[] = []
    const pages: number[] = []
    let url: string | undefined = `${deliveriesUrl}?limit=3`
    while (url) {
      const res = await request(app, owner.auth, { url })
      t.equal(res.statusCode, 200, url)
      const page = res.json().data as Array<{ id: string }>
      t.ok(page.length <= 3)
      pages.push(page.length)
      seen.push(...page.map((d) => d.id))
      const link = res.headers.link as string | undefined
      if (link) t.match(link, /^<\/api\/v1\/notification-channels\/[0-9a-f-]{36}\/deliveries\?limit=3&before=[^>]+>; rel="next"$/)
      url = link ? /^<([^>]+)>/.exec(link)![1] : undefined
    }
    const whole = (await request(app, owner.auth, { url: deliveriesUrl })).json().data.map((d: { id: string }) => d.id)
    t.same(seen, whole, 'the pages together are the whole list, in its order: each delivery once')
    t.same(pages, [2, 3, 2], 'a page never splits the three deliveries of one millisecond')

    const older = await request(app, owner.auth, { url: `${deliveriesUrl}?before=${encodeURIComponent(new Date(base + 2000).toISOString())}` })
    t.same(older.json().data.map((d: { id: string }) => d.id), [ids[1], ids[0]], 'before: strictly older')
  })

  await t.test('the status filter, carried by the next page\'s link', async (t) => {
    const failed = await request(app, owner.auth, { url: `${deliveriesUrl}?status=failed` })
    t.same(failed.json().data.map((d: { id: string }) => d.id), [failedId])
    const pending = await request(app, owner.auth, { url: `${deliveriesUrl}?status=pending&limit=2` })
    t.same(pending.json().data.map((d: { id: string }) => d.id), [ids[6]], 'the next two share a millisecond: both on the next page')
    t.match(pending.headers.link, /\?status=pending&limit=2&before=/)
    for (const [query, message] of [
      ['status=lost', 'querystring/status must be one of: pending, delivered, failed, dead'],
      ['limit=0', 'querystring/limit must be >= 1'],
      ['limit=101', 'querystring/limit must be <= 100'],
      ['before=yesterday', 'querystring/before must be a valid date-time'],
      ['channel=x', 'querystring/channel is not allowed'],
    ]) {
      const res = await request(app, owner.auth, { url: `${deliveriesUrl}?${query}` })
      t.same([res.statusCode, res.json()], [400, { error: message }], query)
    }
  })

  await t.test('one delivery with every attempt', async (t) => {
    const res = await request(app, owner.auth, { url: `/api/v1/deliveries/${deadId}` })
    t.equal(res.statusCode, 200)
    const delivery = res.json().data
    t.same(Object.keys(delivery).sort(), [...DELIVERY_FIELDS, 'attempt_log'].sort())
    t.match(delivery, { id: deadId, channel_id: channel.id, status: 'dead', attempts: 2, next_attempt_at: null, last_status_code: 500 })
    t.same(delivery.attempt_log, deadLog)
  })

  await t.test('retry: due now, pending, its attempts and log kept; any status', async (t) => {
    const before = Date.now()
    const res = await request(app, owner.auth, { method: 'POST', url: `/api/v1/deliveries/${deadId}/retry` })
    t.equal(res.statusCode, 202)
    const delivery = res.json().data
    t.match(delivery, { id: deadId, status: 'pending', attempts: 2, last_status_code: 500, last_error: 'receiver answered 500' })
    t.same(delivery.attempt_log, deadLog)
    t.ok(Date.parse(delivery.next_attempt_at) >= before - 1000 && Date.parse(delivery.next_attempt_at) <= Date.now(), 'due now')
    const [row] = await app.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, deadId))
    t.equal(row.status, 'pending')
    t.equal(row.nextAttemptAt!.toISOString(), delivery.next_attempt_at)
    await app.db.update(notificationDeliveries).set({ status: 'delivered', deliveredAt: new Date(), nextAttemptAt: null })
      .where(eq(notificationDeliveries.id, ids[0]))
    const replay = await request(app, owner.auth, { method: 'POST', url: `/api/v1/deliveries/${ids[0]}/retry` })
    t.match(replay.json().data, { status: 'pending' }, 'a delivered one is sent again')
  })

  await t.test('another user\'s deliveries, unknown ids and bad ids', async (t) => {
    const [before] = await app.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, failedId))
    for (const route of [
      { method: 'GET', url: `/api/v1/deliveries/${failedId}` },
      { method: 'POST', url: `/api/v1/deliveries/${failedId}/retry` },
      { method: 'GET', url: '/api/v1/deliveries/00000000-0000-4000-8000-000000000000' },
    ] as const) {
      const res = await request(app, stranger.auth, route)
      t.same([res.statusCode, res.json()], [404, { error: 'Delivery not found' }], `${route.method} ${route.url}`)
    }
    const [after] = await app.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, failedId))
    t.same(after, before, 'the stranger\'s retry changed nothing')
    const bad = await request(app, owner.auth, { url: '/api/v1/deliveries/not-a-uuid' })
    t.same([bad.statusCode, bad.json()], [400, { error: 'params/id must be a valid uuid' }])
    const channelGone = await request(app, stranger.auth, { url: deliveriesUrl })
    t.same([channelGone.statusCode, channelGone.json()], [404, { error: 'Notification channel not found' }])
  })

  await t.test('deleting the channel deletes its deliveries', async (t) => {
    t.equal((await request(app, owner.auth, { method: 'DELETE', url: `/api/v1/notification-channels/${channel.id}` })).statusCode, 204)
    t.same(await app.db.select().from(notificationDeliveries).where(eq(notificationDeliveries.channelId, channel.id)), [])
    const res = await request(app, owner.auth, { url: `/api/v1/deliveries/${failedId}` })
    t.equal(res.statusCode, 404)
  })
})
