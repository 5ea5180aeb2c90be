// Retry times: growing steps with jitter in their upper half, capped at 6 h, Retry-After bounded, dead after two days.
import t from 'tap'
import { GIVE_UP_AFTER_MS, nextAttemptAt } from '../../src/notifications/backoff.ts'
import { parseRetryAfter } from '../../src/notifications/http-sender.ts'

const now = new Date('2026-01-01T00:00:00Z')
const delay = (attempts: number, random: number, retryAfterMs?: number) =>
  nextAttemptAt({ attempts, createdAt: now, now, retryAfterMs }, () => random)!.getTime() - now.getTime()

t.test('steps double from 30 s up to 6 h, each taken between its half and its whole', async (t) => {
  t.same([1, 2, 3, 4].map((n) => delay(n, 1)), [30_000, 60_000, 120_000, 240_000])
  t.same([1, 2, 3, 4].map((n) => delay(n, 0)), [15_000, 30_000, 60_000, 120_000])
  t.equal(delay(12, 1), 6 * 3600_000, 'capped')
  t.equal(delay(500, 1), 6 * 3600_000, 'no overflow however many attempts')
})

t.test('a Retry-After replaces the step, within 1 s and 6 h', async (t) => {
  t.equal(delay(1, 1, 120_000), 120_000)
  t.equal(delay(1, 1, 0), 1000)
  t.equal(delay(1, 1, 30 * 24 * 3600_000), 6 * 3600_000)
})

t.test('a retry that would fall more than two days after the delivery was written: dead (null)', async (t) => {
  const createdAt = new Date(now.getTime() - GIVE_UP_AFTER_MS + 20_000)
  t.ok(nextAttemptAt({ attempts: 1, createdAt, now }, () => 0), '15 s later is within')
  t.equal(nextAttemptAt({ attempts: 1, createdAt, now }, () => 1), null, '30 s later is not')
})

t.test('Retry-After in seconds or as an HTTP date; anything else is ignored', async (t) => {
  const at = now.getTime()
  t.equal(parseRetryAfter('120'), 120_000)
  t.equal(parseRetryAfter(' 5 '), 5000)
  t.same(parseRetryAfter(new Date(at + 90_000).toUTCString()), new Date(at + 90_000), 'a date is that time')
  t.same(parseRetryAfter(new Date(at - 90_000).toUTCString()), new Date(at - 90_000), 'a date past too (the delivery bounds it)')
  t.equal(parseRetryAfter(['7', '9']), 7000)
  t.equal(parseRetryAfter('soon'), undefined)
  t.equal(parseRetryAfter('-3'), undefined, 'not the year -3')
  t.same(parseRetryAfter('Thursday, 01-Jan-26 00:01:00 GMT'), new Date(at + 60_000), 'the obsolete RFC 850 form')
  t.equal(parseRetryAfter(undefined), undefined)
})
