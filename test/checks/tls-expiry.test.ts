// When a certificate's expiry is told: 14, 7 and 1 days before it, each threshold once per certificate, only
// the smallest one a check is past, nothing once expired; another expiry is another certificate.
import t from 'tap'
import { daysLeft, tlsExpiryReminder } from '../../src/checks/tls-expiry.ts'

const DAY = 86_400_000
const expiresAt = new Date('2026-12-01T00:00:00.000Z')
const before = (days: number) => new Date(expiresAt.getTime() - days * DAY)
const seen = (toldDays: number | null) => ({ expiresAt, toldDays })

t.test('each threshold is told once, as the check reaches it', async (t) => {
  t.strictSame(tlsExpiryReminder({ expiresAt: null, toldDays: null }, expiresAt, before(30)), { tell: null, toldDays: null }, '30 days: nothing')
  t.strictSame(tlsExpiryReminder(seen(null), expiresAt, before(14.0001)), { tell: null, toldDays: null }, 'just over 14 days: nothing')
  t.strictSame(tlsExpiryReminder(seen(null), expiresAt, before(14)), { tell: 14, toldDays: 14 }, '14 days exactly')
  t.strictSame(tlsExpiryReminder(seen(14), expiresAt, before(10)), { tell: null, toldDays: 14 }, 'told already')
  t.strictSame(tlsExpiryReminder(seen(14), expiresAt, before(6.9)), { tell: 7, toldDays: 7 })
  t.strictSame(tlsExpiryReminder(seen(7), expiresAt, before(2)), { tell: null, toldDays: 7 })
  t.strictSame(tlsExpiryReminder(seen(7), expiresAt, before(0.5)), { tell: 1, toldDays: 1 })
  t.strictSame(tlsExpiryReminder(seen(1), expiresAt, before(0.1)), { tell: null, toldDays: 1 })
})

t.test('a check past two thresholds tells the smaller one only', async (t) => {
  t.strictSame(tlsExpiryReminder({ expiresAt: null, toldDays: null }, expiresAt, before(5)), { tell: 7, toldDays: 7 }, 'first seen 5 days before')
  t.strictSame(tlsExpiryReminder(seen(14), expiresAt, before(0.5)), { tell: 1, toldDays: 1 }, 'the 7-day one was missed (checks paused)')
})

t.test('an expired certificate is not told: its check fails and an incident tells', async (t) => {
  t.strictSame(tlsExpiryReminder({ expiresAt: null, toldDays: null }, expiresAt, expiresAt), { tell: null, toldDays: null })
  t.strictSame(tlsExpiryReminder(seen(7), expiresAt, before(-1)), { tell: null, toldDays: 7 }, 'the mark stays')
})

t.test('a certificate with another expiry starts again', async (t) => {
  const renewed = new Date(expiresAt.getTime() + 60 * DAY)
  t.strictSame(tlsExpiryReminder(seen(1), renewed, before(0.5)), { tell: null, toldDays: null }, 'renewed: nothing to tell, the mark cleared')
  const other = new Date(expiresAt.getTime() + 3 * DAY)
  t.strictSame(tlsExpiryReminder(seen(1), other, before(0.5)), { tell: 7, toldDays: 7 }, 'another one, 3.5 days away')
})

t.test('days left are whole days rounded up', async (t) => {
  t.equal(daysLeft(expiresAt, before(6.99)), 7)
  t.equal(daysLeft(expiresAt.toISOString(), before(7).toISOString()), 7)
  t.equal(daysLeft(expiresAt, before(0.2)), 1)
  t.equal(daysLeft(expiresAt, before(-1)), 0)
})
