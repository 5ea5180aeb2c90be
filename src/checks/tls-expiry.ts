// When a certificate's expiry is told (api-contract section 9): `tls.expiring` at 14, 7 and 1 days before it, once
// each per certificate. Pure, like outcome.ts.

const TLS_EXPIRY_REMINDER_DAYS = [1, 7, 14] as const

const DAY_MS = 86_400_000

export interface TlsExpiryMark {
  /** The expiry of the certificate the monitor last saw (null: none, or its url changed since). */
  expiresAt: Date | null
  /** The smallest threshold already told of that certificate; null when none was. */
  toldDays: number | null
}

/** The threshold to tell (null: none) and the new mark; another expiry is another certificate, an expired one tells nothing. */
export function tlsExpiryReminder (mark: TlsExpiryMark, expiresAt: Date, now: Date): { tell: number | null, toldDays: number | null } {
  const toldDays = mark.expiresAt?.getTime() === expiresAt.getTime() ? mark.toldDays : null
  const left = expiresAt.getTime() - now.getTime()
  if (left <= 0) return { tell: null, toldDays }
  const due = TLS_EXPIRY_REMINDER_DAYS.find((days) => left <= days * DAY_MS)
  if (due === undefined || (toldDays !== null && toldDays <= due)) return { tell: null, toldDays }
  return { tell: due, toldDays: due }
}

/** Whole days left until `expiresAt`, rounded up ("expires in 7 days"); 0 once expired. */
export function daysLeft (expiresAt: Date | string, now: Date | string): number {
  return Math.max(0, Math.ceil((new Date(expiresAt).getTime() - new Date(now).getTime()) / DAY_MS))
}
