// Sign-in throttle, through POST /sign-in: each attempt is counted before its password is checked, so
// concurrent guesses cannot outrun the limits; an (email, address) pair waits longer after each failure,
// an address has a budget across all emails, and a stranger elsewhere cannot lock a user out. Run on the
// database's counters, and on Redis's too when REDIS_URL is set.
import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { signInAttempts } from '../../src/db/schema.ts'
import { SIGN_IN_LIMITS } from '../../src/plugins/sign-in-throttle.ts'
import { buildTestApp } from '../helper.ts'
import { cookieOf, encode, FORM, makeDashboardUser, PASSWORD, signInForm } from '../dashboard/dashboard-helper.ts'

const { failuresBeforeDelay: FREE, attemptsPerAddress: PER_ADDRESS } = SIGN_IN_LIMITS
const MINUTE = 60_000

/** Responses by status: how many were evaluated (400, 303) and how many refused unevaluated (429). */
function tally (responses: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const res of responses) counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1
  return counts
}

const lockMessage = (res: LightMyRequestResponse) => /Try again in (\d+) minutes?\./.exec(res.body)?.[1]

/** POST /sign-in from an address, with the CSRF token of one sign-in form. */
async function signInPoster (app: FastifyInstance) {
  const form = await signInForm(app)
  return (email: string, password: string, remoteAddress: string) => app.inject({
    method: 'POST',
    url: '/sign-in',
    remoteAddress,
    headers: { ...FORM, cookie: form.cookie },
    payload: encode({ _csrf: form.csrf, email, password, next: '/' }),
  })
}

async function throttleTests (t: Test, env: Record<string, string>) {
  let now = new Date('2026-11-21T09:00:00.000Z')
  const { app } = await buildTestApp(t, { env, clock: () => now })
  const signIn = await signInPoster(app)
  let addresses = 0
  // Every subtest signs in from addresses of its own.
  const newAddress = () => `198.51.${Math.floor(++addresses / 256)}.${addresses % 256}`
  const parallel = (count: number, attempt: (i: number) => Promise<LightMyRequestResponse>) =>
    Promise.all(Array.from({ length: count }, (_, i) => attempt(i)))

  await t.test('200 simultaneous wrong guesses for one email from one address: only the free ones are checked', async (t) => {
    const user = await makeDashboardUser(app)
    const address = newAddress()
    const counts = tally(await parallel(200, (i) => signIn(user.email, `wrong guess ${i}`, address)))
    t.same(counts, { 400: FREE, 429: 200 - FREE })
    const locked = await signIn(user.email, PASSWORD, address)
    t.equal(locked.statusCode, 429, 'then even the right password waits, from this address')
    t.match(locked.body, 'Too many failed sign-ins. Try again in 1 minute.')
  })

  await t.test('the right password as the 25th of 30 simultaneous guesses does not sign in', async (t) => {
    const user = await makeDashboardUser(app)
    const address = newAddress()
    const responses = await parallel(30, (i) => signIn(user.email, i === 24 ? PASSWORD : `wrong guess ${i}`, address))
    t.same(tally(responses), { 400: FREE, 429: 30 - FREE })
    t.notOk(responses.some((res) => cookieOf(res, 'pw_session')), 'no session')
  })

  await t.test('once the limit is reached, the right password among 30 simultaneous guesses does not sign in', async (t) => {
    const user = await makeDashboardUser(app)
    const address = newAddress()
    for (let i = 0; i < FREE; i++) t.equal((await signIn(user.email, `wrong guess ${i}`, address)).statusCode, 400)
    const responses = await parallel(30, (i) => signIn(user.email, i % 6 === 0 ? PASSWORD : `wrong guess ${i}`, address))
    t.same(tally(responses), { 429: 30 })
  })

  await t.test('120 simultaneous guesses across many emails from one address: only its budget is checked', async (t) => {
    const address = newAddress()
    const responses = await parallel(120, (i) => signIn(`nobody${i}-${randomBytes(3).toString('hex')}@example.com`, 'wrong guess', address))
    t.same(tally(responses), { 400: PER_ADDRESS, 429: 120 - PER_ADDRESS })
    t.ok(responses.filter((res) => res.statusCode === 429).every((res) => lockMessage(res) === '15'), 'for the rest of the window')
    t.equal((await signIn('nobody@example.com', 'wrong guess', newAddress())).statusCode, 400, 'another address has its own budget')
    now = new Date(now.getTime() + SIGN_IN_LIMITS.addressWindowMs)
    t.equal((await signIn('nobody@example.com', 'wrong guess', address)).statusCode, 400, 'a new window, a new budget')
  })

  await t.test('a stranger\'s failures from another address do not lock the user out', async (t) => {
    const user = await makeDashboardUser(app)
    const stranger = newAddress()
    const counts = tally(await parallel(20, (i) => signIn(user.email, `stranger's guess ${i}`, stranger)))
    t.same(counts, { 400: FREE, 429: 20 - FREE }, 'the stranger is held back')
    const own = await signIn(user.email, PASSWORD, newAddress())
    t.equal(own.statusCode, 303, 'the user signs in from their own address')
    t.ok(cookieOf(own, 'pw_session'))
    t.equal((await signIn(user.email, PASSWORD, stranger)).statusCode, 429, 'the stranger\'s address still waits')
  })

  await t.test('each failure past the free ones doubles the wait, up to a ceiling; signing in starts afresh', async (t) => {
    const user = await makeDashboardUser(app)
    const address = newAddress()
    for (let i = 0; i < FREE - 1; i++) t.equal((await signIn(user.email, `wrong guess ${i}`, address)).statusCode, 400)
    const waits: string[] = []
    for (let i = 0; i < 8; i++) {
      t.equal((await signIn(user.email, `wrong guess ${i}`, address)).statusCode, 400, 'the wait is over: checked')
      const locked = await signIn(user.email, PASSWORD, address)
      t.equal(locked.statusCode, 429)
      const minutes = lockMessage(locked)!
      waits.push(minutes)
      now = new Date(now.getTime() + Number(minutes) * MINUTE - 1000)
      t.equal((await signIn(user.email, PASSWORD, address)).statusCode, 429, 'a second early is still too early')
      now = new Date(now.getTime() + 1000)
    }
    t.same(waits, ['1', '2', '4', '8', '16', '32', '60', '60'])
    t.equal((await signIn(user.email, PASSWORD, address)).statusCode, 303, 'the wait is over: the right password signs in')
    for (let i = 0; i < FREE; i++) {
      t.equal((await signIn(user.email, `wrong guess ${i}`, address)).statusCode, 400, 'the failures before it are forgotten')
    }
    t.equal((await signIn(user.email, PASSWORD, address)).statusCode, 429)
  })

  await t.test('a sign-in that succeeds does not use up the address\'s budget', async (t) => {
    const address = newAddress()
    const failures = await parallel(PER_ADDRESS - 1, (i) => signIn(`nobody${i}-${randomBytes(3).toString('hex')}@example.com`, 'wrong', address))
    t.same(tally(failures), { 400: PER_ADDRESS - 1 })
    const user = await makeDashboardUser(app)
    for (let i = 0; i < 3; i++) t.equal((await signIn(user.email, PASSWORD, address)).statusCode, 303)
    t.equal((await signIn('nobody@example.com', 'wrong guess', address)).statusCode, 400, 'one attempt is left')
    t.equal((await signIn(user.email, PASSWORD, address)).statusCode, 429, 'and then none')
  })
}

t.test('on the database\'s counters', async (t) => {
  await throttleTests(t, {})
})

t.test('on Redis\'s counters', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set' }, async (t) => {
  // A prefix of this run's own, so that counters of earlier runs (same clock, same addresses) are not seen;
  // its keys are removed afterwards rather than left to expire.
  const prefix = `pingward-sign-in-test-${randomBytes(6).toString('hex')}:`
  t.teardown(async () => {
    const redis = new Redis(process.env.REDIS_URL!)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })
  await throttleTests(t, { REDIS_URL: process.env.REDIS_URL!, REDIS_PREFIX: prefix })
})

t.test('with Redis unreachable, attempts are counted in the database', async (t) => {
  const { app } = await buildTestApp(t, { env: { REDIS_URL: 'redis://127.0.0.1:1' } })
  const user = await makeDashboardUser(app)
  const signIn = await signInPoster(app)
  const counts = tally(await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(user.email, `wrong guess ${i}`, '203.0.113.7'))))
  t.same(counts, { 400: FREE, 429: 20 - FREE })
  t.equal((await app.db.select().from(signInAttempts)).length, 2, 'the address\'s and the pair\'s counters')
})

t.test('expired counters are swept from the database', async (t) => {
  let now = new Date('2026-11-21T09:00:00.000Z')
  const { app } = await buildTestApp(t, { clock: () => now })
  const signIn = await signInPoster(app)
  t.equal((await signIn('nobody@example.com', 'wrong guess', '203.0.113.8')).statusCode, 400)
  now = new Date(now.getTime() + SIGN_IN_LIMITS.pairMemoryMs)
  t.equal((await signIn('nobody@example.com', 'wrong guess', '203.0.113.9')).statusCode, 400)
  await app.backgroundWrites.settled()
  const rows = await app.db.select().from(signInAttempts)
  t.equal(rows.length, 2, 'only the second address\'s and its pair\'s')
  t.ok(rows.every((row) => row.expiresAt > now))
})
