// A heartbeat's ping, recorded as a check with the same rules and transaction as a probe's (record-check.ts), its
// next deadline counted from the ping; pings that arrive together share one transaction.
import { LRUCache } from 'lru-cache'
import type { Database } from '../db/client.ts'
import { heartbeatDeadline } from '../domain/monitor-types.ts'
import { lockHeartbeatsByTokens } from '../monitors/heartbeats.ts'
import { hasPingTokenShape } from '../monitors/columns.ts'
import type { MonitorRow } from '../monitors/scheduling.ts'
import { groupCommit } from '../runtime/group-commit.ts'
import { recordLockedChecks, type CheckToRecord } from './record-check.ts'

/** What a ping body keeps: its first 10 KiB (the start of a cron job's output says what ran). */
export const PING_BODY_MAX_BYTES = 10 * 1024
const PING_COMMITS = { maxBatch: 500 }
const FAIL_LINE_MAX = 200

export interface Ping {
  fail: boolean
  body?: Buffer
  at: Date
}

/** `recorded`; `unknown`: no live heartbeat has the token; `paused`: its monitor is paused (nothing recorded). */
export type PingOutcome = 'recorded' | 'unknown' | 'paused'

/** The body as text: UTF-8 with NUL as U+FFFD (a text column refuses NUL); null when empty. */
export function pingBodyText (body: Buffer | undefined): string | null {
  if (!body || body.length === 0) return null
  return new TextDecoder('utf-8').decode(body.subarray(0, PING_BODY_MAX_BYTES)).replaceAll('\0', '\uFFFD')
}

/** A /fail ping's error message: `ping /fail`, then the body's first non-empty line (trimmed, at most 200 characters). */
export function failMessage (bodyText: string | null): string {
  const line = bodyText?.split(/\r?\n/).map((text) => text.trim()).find((text) => text.length > 0)
  return line ? `ping /fail: ${line.slice(0, FAIL_LINE_MAX)}` : 'ping /fail'
}

export interface TokenPing extends Ping {
  token: string
}

/** Records pings in one transaction as checks (a `/fail` one a failure), in their order, each monitor's next deadline
 * one interval plus grace after its ping. */
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

// Tokens this process found no live heartbeat for. Tokens are random and never reused, so an unknown one stays
// unknown (but for a restored backup).
const UNKNOWN_TOKENS = { max: 10_000, ttl: 5 * 60_000 }
const LIVE_TOKENS = { max: 10_000 }

export interface PingRecorder {
  (ping: TokenPing): Promise<PingOutcome>
  /** Whether this process found the token live when last asked (its monitor may have gone since). */
  seenLive: (token: string) => boolean
}

/** Records pings in group commits; a token not of the server's shape, or found unknown lately, is answered without a query. */
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
