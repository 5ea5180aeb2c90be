// A heartbeat's ping, recorded as a check with its consequences: the same rules and the same transaction as a
// probe's check (record-check.ts, decideOutcome), then the heartbeat's next deadline counted from the ping.
import type { Database } from '../db/client.ts'
import { heartbeatDeadline } from '../domain/monitor-types.ts'
import { lockHeartbeatByToken, setHeartbeatDeadline } from '../repositories/heartbeats.ts'
import { recordCheck } from './record-check.ts'

/** What a ping body keeps: its first 10 KiB (a cron job's output can be long; the start says what ran). */
export const PING_BODY_MAX_BYTES = 10 * 1024
/** How much of a /fail ping's first line its check's error message quotes. */
const FAIL_LINE_MAX = 200

export interface Ping {
  /** A `/fail` ping: the job says it failed. */
  fail: boolean
  /** The body as received (any content type), or none. */
  body?: Buffer
  at: Date
}

/** `recorded`; `unknown`: no live heartbeat has the token; `paused`: its monitor is paused (nothing recorded). */
export type PingOutcome = 'recorded' | 'unknown' | 'paused'

/**
 * The body as text: its first 10 KiB decoded as UTF-8 (invalid sequences, a character cut at the end and NUL,
 * which a text column refuses, become U+FFFD); null when empty.
 */
export function pingBodyText (body: Buffer | undefined): string | null {
  if (!body || body.length === 0) return null
  return new TextDecoder('utf-8').decode(body.subarray(0, PING_BODY_MAX_BYTES)).replaceAll('\0', '\uFFFD')
}

/** A /fail ping's error message: `ping /fail`, then the body's first non-empty line (trimmed, at most 200 characters). */
export function failMessage (bodyText: string | null): string {
  const line = bodyText?.split(/\r?\n/).map((text) => text.trim()).find((text) => text.length > 0)
  return line ? `ping /fail: ${line.slice(0, FAIL_LINE_MAX)}` : 'ping /fail'
}

/**
 * Records a ping of the heartbeat whose token it carries, in one transaction: the monitor row locked by its
 * token first, then the check with its consequences as any check's (recordCheck: a `/fail` counts as a failure
 * towards `failure_threshold`, a ping as a pass towards `recovery_threshold`, incidents and their notifications),
 * and the next deadline one interval plus grace after this ping (not the probe's schedule decideOutcome gives).
 */
export async function recordPing (db: Database, token: string, ping: Ping): Promise<PingOutcome> {
  return db.transaction(async (tx) => {
    const monitor = await lockHeartbeatByToken(tx, token)
    if (!monitor) return 'unknown'
    if (!monitor.isActive) return 'paused'
    const pingBody = pingBodyText(ping.body)
    const result = {
      isUp: !ping.fail,
      statusCode: null,
      responseTimeMs: 0,
      errorMessage: ping.fail ? failMessage(pingBody) : null,
      checkedAt: ping.at,
      pingBody,
    }
    // A savepoint inside this transaction (the row is locked already). No confirm delay: a heartbeat's next
    // check is its deadline, set below, whatever decideOutcome would schedule for a probe.
    await recordCheck(tx, monitor.id, result, 0)
    await setHeartbeatDeadline(tx, monitor.id, heartbeatDeadline(ping.at, monitor.intervalMinutes, monitor.graceMinutes ?? 0))
    return 'recorded'
  })
}
