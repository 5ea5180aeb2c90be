// A heartbeat's ping, recorded as a check with its consequences: the same rules and the same transaction as a
// probe's check (record-check.ts, decideOutcome), the next deadline counted from the ping; pings that arrive
// together share one transaction (a group commit).
import { LRUCache } from 'lru-cache'
import type { Database } from '../db/client.ts'
import { heartbeatDeadline } from '../domain/monitor-types.ts'
import { lockHeartbeatsByTokens } from '../repositories/heartbeats.ts'
import { hasPingTokenShape } from '../repositories/monitor-columns.ts'
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

/**
 * Tokens this process found no live heartbeat for. A token is only ever made new, at random (a create, a change
 * of kind), and a deleted monitor never comes back: an unknown token stays unknown, but for a restored backup.
 */
const UNKNOWN_TOKENS = { max: 10_000, ttl: 5 * 60_000 }
/** Tokens this process found live (recorded or paused). */
const LIVE_TOKENS = { max: 10_000 }

export interface PingRecorder {
  (ping: TokenPing): Promise<PingOutcome>
  /** Whether this process found the token live when last asked (its monitor may have gone since). */
  seenLive: (token: string) => boolean
}

/**
 * Pings of the process's requests, recorded in group commits (one transaction for those that arrive together).
 * A token of another shape than the server makes, or found unknown lately, is answered `unknown` without a query.
 */
export function pingRecorder (db: Database): PingRecorder {
  const commit = groupCommit((pings: TokenPing[]) => recordPings(db, pings), PING_COMMITS)
  const unknown = new LRUCache<string, true>(UNKNOWN_TOKENS)
  const live = new LRUCache<string, true>(LIVE_TOKENS)
  const record = async (ping: TokenPing): Promise<PingOutcome> => {
    if (!hasPingTokenShape(ping.token) || unknown.has(ping.token)) return 'unknown'
    const outcome = await commit(ping)
    if (outcome === 'unknown') {
      unknown.set(ping.token, true)
      live.delete(ping.token)
    } else {
      live.set(ping.token, true)
    }
    return outcome
  }
  return Object.assign(record, { seenLive: (token: string) => live.has(token) })
}

/** One ping alone, in its own transaction. */
export async function recordPing (db: Database, token: string, ping: Ping): Promise<PingOutcome> {
  const [outcome] = await recordPings(db, [{ ...ping, token }])
  return outcome
}
