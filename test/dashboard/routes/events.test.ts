// GET /events over real HTTP: a signed-in user's stream (its headers, a recorded check as an event, nothing of another
// user's), sign-in first without a session, the pages' CSP lets scripts connect to it, and app.close() ends it.
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { request as httpRequest } from 'undici'
import type { FastifyInstance } from 'fastify'
import { recordCheck } from '../../../src/checks/record-check.ts'
import { buildTestApp, makeKey, makeMonitor, makeUser } from '../../helper.ts'
import { signedIn } from '../dashboard-helper.ts'

const up = () => ({ isUp: true, statusCode: 200, responseTimeMs: 12, errorMessage: null, checkedAt: new Date() })

/** An open stream: its headers, and `until(text)`, which waits for the text to have arrived; `ended` once it ends. */
async function openStream (t: Test, app: FastifyInstance, cookie: string) {
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const res = await httpRequest(`${base}/events`, { headers: { cookie, accept: 'text/event-stream' } })
  let received = ''
  let arrived: (() => void) | undefined
  res.body.setEncoding('utf8')
  res.body.on('data', (chunk: string) => {
    received += chunk
    arrived?.()
  })
  const ended = new Promise<void>((resolve) => res.body.once('end', resolve))
  t.teardown(() => res.body.destroy())
  return {
    status: res.statusCode,
    headers: res.headers,
    received: () => received,
    ended,
    async until (text: string) {
      while (!received.includes(text)) await new Promise<void>((resolve) => { arrived = resolve })
    },
  }
}

t.test('a signed-in page hears of its user\'s changes, and app.close() ends the stream', async (t) => {
  const { app } = await buildTestApp(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const browser = await signedIn(app)
  const mine = await makeMonitor(app, (await makeKey(app, browser.user.id)).auth)
  const theirs = await makeMonitor(app, (await makeUser(app)).auth)

  const stream = await openStream(t, app, browser.cookie)
  t.equal(stream.status, 200)
  t.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8', 'an event stream')
  t.equal(stream.headers['cache-control'], 'no-store', 'never cached')
  t.equal(stream.headers['x-accel-buffering'], 'no', 'nginx passes it on unbuffered')
  t.equal(stream.headers['content-encoding'], undefined, 'never compressed')
  await stream.until('retry: ')

  await recordCheck(app.db, theirs.id, up(), 30_000)
  await recordCheck(app.db, mine.id, up(), 30_000)
  await stream.until(mine.id)
  t.match(stream.received(), `event: change\ndata: {"monitors":["${mine.id}"],"channels":[],"locations":[],"status":false,"everything":false}\n\n`)
  t.notOk(stream.received().includes(theirs.id), 'nothing of another user\'s monitor')

  await app.close()
  await stream.ended
  t.pass('the stream ended and the app closed')
})

t.test('without a session, sign in first; the pages may connect to their own origin', async (t) => {
  const { app } = await buildTestApp(t)
  const res = await app.inject({ url: '/events' })
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/sign-in?next=%2Fevents', 'to sign in')
  const browser = await signedIn(app)
  const page = await browser.get('/')
  t.match(page.headers['content-security-policy'], /connect-src 'self'/, 'scripts may connect to this origin')
  t.match(page.body, /<div id="monitor-list" data-live="monitors">/, 'the list is a live region')
})
