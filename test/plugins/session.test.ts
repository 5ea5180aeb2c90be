// Session plugin pieces: cookie parsing, and the last-seen time written at most once a minute.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { sessions } from '../../src/db/schema.ts'
import { parseCookies } from '../../src/plugins/session.ts'
import { deleteSessionsOfUser } from '../../src/repositories/sessions.ts'
import { buildTestApp } from '../helper.ts'
import { signedIn } from '../routes/dashboard-helper.ts'

t.test('parseCookies', async (t) => {
  t.same(parseCookies(undefined), {})
  t.same(parseCookies('a=1; b = 2;c=x=y; =z; bare; a=3'), { a: '1', b: '2', c: 'x=y' })
})

t.test('a session records its last use once a minute, and ends with deleteSessionsOfUser', async (t) => {
  let now = new Date('2026-11-21T12:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const browser = await signedIn(app)
  const lastSeen = async () => (await app.db.select().from(sessions).where(eq(sessions.userId, browser.user.id)))[0].lastSeenAt
  t.same(await lastSeen(), now)
  now = new Date(now.getTime() + 30_000)
  await browser.get('/')
  await app.backgroundWrites.settled()
  t.same(await lastSeen(), new Date('2026-11-21T12:00:00.000Z'), 'not within the minute')
  now = new Date(now.getTime() + 60_000)
  await browser.get('/')
  await app.backgroundWrites.settled()
  t.same(await lastSeen(), now, 'recorded after a minute')
  t.equal(await deleteSessionsOfUser(app.db, browser.user.id), 1)
  t.equal((await browser.get('/')).statusCode, 303)
})
