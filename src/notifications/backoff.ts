// When a failed delivery is tried again: growing steps with jitter, a receiver's Retry-After, dead after two days.

const FIRST_STEP_MS = 30_000
const MAX_STEP_MS = 6 * 3600_000
// Retry-After is bounded: a 0 must not make a busy loop, nor a far date outlive the two days.
const MIN_RETRY_AFTER_MS = 1000
const MAX_RETRY_AFTER_MS = 6 * 3600_000
/** A delivery is retried while its next attempt would fall within this time after it was written. */
export const GIVE_UP_AFTER_MS = 48 * 3600_000

/** The next attempt's time, or null once given up; a point in the step's upper half spreads retries that failed together. */
export function nextAttemptAt (
  failure: { attempts: number, createdAt: Date, now: Date, retryAfterMs?: number }, random: () => number = Math.random
): Date | null {
  const step = Math.min(MAX_STEP_MS, FIRST_STEP_MS * 2 ** Math.min(30, Math.max(0, failure.attempts - 1)))
  const delayMs = failure.retryAfterMs !== undefined
    ? Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, failure.retryAfterMs))
    : Math.round(step / 2 + random() * step / 2)
  const at = failure.now.getTime() + delayMs
  return at - failure.createdAt.getTime() > GIVE_UP_AFTER_MS ? null : new Date(at)
}
