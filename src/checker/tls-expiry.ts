// When a certificate's expiry is told (api-contract section 9): a `tls.expiring` event at 14, 7 and 1 days
// before it, once each per certificate. Pure, like outcome.ts: the check's time and the monitor's mark in,
// the new mark and what to tell out.

/** The days before a certificate's expiry at which a `tls.expiring` event is sent, smallest first. */
const TLS_EXPIRY_REMINDER_DAYS = [1, 7, 14] as const

const DAY_MS = 86_400_000

export interface TlsExpiryMark {
  /** The expiry of the certificate the monitor last saw (null: none, or its url changed since). */
  expiresAt: Date | null
  /** The smallest threshold already told of that certificate; null when none was. */
  toldDays: number | null
}

/**
 * What a check at `now` that saw a certificate expiring at `expiresAt` tells: the threshold whose event
 * to send (null: none) and the monitor's new mark. A certificate with another expiry than the one seen
 * before is another certificate: its count starts again. A check already past two thresholds tells only
 * the smaller (first seen 5 days from expiry: the 7-day event, once); an expired certificate tells nothing
 * (its check fails with the cause, and an incident tells people).
 */
export function tlsExpiryReminder (mark: TlsExpiryMark, expiresAt: Date, now: Date): { tell: number | null, toldDays: number | null } {
  const toldDays = mark.expiresAt?.getTime() === expiresAt.getTime() ? mark.toldDays : null
  const left = expiresAt.getTime() - now.getTime()
  if (left <= 0) return { tell: null, toldDays }
  const due = TLS_EXPIRY_REMINDER_DAYS.find((days) => left <= days * DAY_MS)
  if (due === undefined || (toldDays !== null && toldDays <= due)) return { tell: null, toldDays }
  return { tell: due, toldDays: due }
}

/**
 * Whole days left until `expiresAt` at `now`, rounded up: what a reminder says ("expires in 7 days"), 1 for
 * the last day; 0 once expired.
 */
export function daysLeft (expiresAt: Date | string, now: Date | string): number {
  return Math.max(0, Math.ceil((new Date(expiresAt).getTime() - new Date(now).getTime()) / DAY_MS))
}
