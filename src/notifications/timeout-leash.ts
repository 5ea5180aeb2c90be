// A channel that keeps timing out gets a shorter timeout until it answers again, so a gone receiver holds a slot less.

const LEASH_AFTER_TIMEOUTS = 3

/** One per worker process: channels whose last attempts timed out, and how many in a row. */
export class TimeoutLeash {
  private readonly timeouts = new Map<string, number>()

  isShort (channelId: string): boolean {
    return (this.timeouts.get(channelId) ?? 0) >= LEASH_AFTER_TIMEOUTS
  }

  /** Notes an attempt: a timeout counts; an answer (any status) ends the count; anything else leaves it. */
  heard (channelId: string, attempt: { timedOut?: boolean, statusCode: number | null }): void {
    if (attempt.timedOut) this.timeouts.set(channelId, (this.timeouts.get(channelId) ?? 0) + 1)
    else if (attempt.statusCode !== null) this.timeouts.delete(channelId)
  }
}
