// Session plugin pieces: the session cookie among others (read by @fastify/cookie), and the last-seen time
// written at most once a minute.
import t from 'tap'
import { eq } from 'drizzle-orm'
import { sessions } from '../../src/db/schema.ts'
import { deleteSessionsOfUser } from '../../src/repositories/sessions.ts'
import { buildTestApp } from '../helper.ts'
import { signedIn } from './dashboard-helper.ts'

t.test('the session cookie is found among others, spaces trimmed, and the first of its name wins', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const token = browser.cookie.slice('pw_session='.length)
  const home = async (cookie?: string) => (await app.inject({ url: '/', headers: cookie === undefined ? {} : { cookie } })).statusCode
  t.equal(await home(), 303, 'no Cookie header')
  t.equal(await home(`a=1; pw_session = ${token} ;c=x=y; =z; bare; pw_session=made-up`), 200, 'among other and malformed cookies')
  t.equal(await home(`a=1; pw_session=made-up; pw_session=${token}`), 303, 'the first of a name, as browsers send the most specific path first')
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
