// A heartbeat's ping, recorded as a check with its consequences: the same rules and the same transaction as a
// probe's check (record-check.ts, decideOutcome), the next deadline counted from the ping; pings that arrive
// together share one transaction (a group commit).
import type { Database } from '../db/client.ts'
import { heartbeatDeadline } from '../domain/monitor-types.ts'
import { lockHeartbeatsByTokens } from '../repositories/heartbeats.ts'
import type { MonitorRow } from '../repositories/scheduling.ts'
import { groupCommit } from '../runtime/group-commit.ts'
import { recordLockedChecks, type CheckToRecord } from './record-check.ts'

/** What a ping body keeps: its first 10 KiB (a cron job's output can be long; the start says what ran). */
export const PING_BODY_MAX_BYTES = 10 * 1024
/** A commit's bound: a burst of pings is recorded in several. */
const PING_COMMITS = { maxBatch: 500 }
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

/** A ping of the heartbeat whose token it carries. */
export interface TokenPing extends Ping {
  token: string
}

/**
 * Records pings in one transaction: their monitors locked by token first, then each ping as a check with its
 * consequences as any check's (recordLockedChecks: a `/fail` counts as a failure towards `failure_threshold`,
 * a ping as a pass towards `recovery_threshold`, incidents and their notifications), its monitor's next
 * deadline one interval plus grace after the ping (not the probe's schedule decideOutcome gives). Pings of one
 * token are recorded in their order. Answers each ping's outcome.
 */
export async function recordPings (db: Database, pings: TokenPing[]): Promise<PingOutcome[]> {
  return db.transaction(async (tx) => {
    const byToken = await lockHeartbeatsByTokens(tx, [...new Set(pings.map((ping) => ping.token))])
    const active = new Map<string, MonitorRow>()
    const entries: CheckToRecord[] = []
    const outcomes = pings.map((ping): PingOutcome => {
      const monitor = byToken.get(ping.token)
      if (!monitor) return 'unknown'
      if (!monitor.isActive) return 'paused'
      active.set(monitor.id, monitor)
      const pingBody = pingBodyText(ping.body)
      const result = {
        isUp: !ping.fail,
        statusCode: null,
        responseTimeMs: 0,
        errorMessage: ping.fail ? failMessage(pingBody) : null,
        checkedAt: ping.at,
        pingBody,
      }
      // No confirm delay: a heartbeat's next check is its deadline.
      const nextCheckAt = heartbeatDeadline(ping.at, monitor.intervalMinutes, monitor.graceMinutes ?? 0)
      entries.push({ monitorId: monitor.id, result, confirmDelayMs: 0, nextCheckAt })
      return 'recorded'
    })
    await recordLockedChecks(tx, active, entries)
    return outcomes
  })
}

/** Pings of the process's requests, recorded in group commits (one transaction for those that arrive together). */
export function pingRecorder (db: Database): (ping: TokenPing) => Promise<PingOutcome> {
  return groupCommit((pings: TokenPing[]) => recordPings(db, pings), PING_COMMITS)
}

/** One ping alone, in its own transaction. */
export async function recordPing (db: Database, token: string, ping: Ping): Promise<PingOutcome> {
  const [outcome] = await recordPings(db, [{ ...ping, token }])
  return outcome
}
