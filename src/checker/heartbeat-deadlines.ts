// Missed heartbeats: in every checker process, heartbeat monitors whose deadline (next_check_at) passed without
// a ping get a failed check, go down and open their incident at once, told as `heartbeat.missed`.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/client.ts'
import { heartbeatDeadline } from '../domain/monitor-types.ts'
import { ClaimLoop, type InFlight } from '../runtime/claim-loop.ts'
import type { Clock } from '../runtime/clock.ts'
import { toCheck } from '../repositories/checks.ts'
import { lockMissedHeartbeat, nextHeartbeatDeadline } from '../monitors/heartbeats.ts'
import { openIncident } from '../repositories/incidents.ts'
import { toMonitor } from '../monitors/presenter.ts'
import { enqueueHeartbeatMissedEvent } from '../repositories/notification-outbox.ts'
import { insertCheck, saveCheckState } from '../monitors/scheduling.ts'

/** `no ping within 6 min (interval 5 + grace 1)`: a missed deadline's check error and its incident's cause. */
function missedMessage (intervalMinutes: number, graceMinutes: number): string {
  return `no ping within ${intervalMinutes + graceMinutes} min (interval ${intervalMinutes} + grace ${graceMinutes})`
}

/** Records the longest overdue missed deadline; false when none is due. The monitor goes down at once (the missed
 * deadline is the confirmation), and `last_checked_at` stays the last ping's time. */
export async function recordMissedHeartbeat (db: Database, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const monitor = await lockMissedHeartbeat(tx, now)
    if (!monitor) return false
    const grace = monitor.graceMinutes ?? 0
    const result = { isUp: false, statusCode: null, responseTimeMs: 0, errorMessage: missedMessage(monitor.intervalMinutes, grace), checkedAt: now }
    const checkId = await insertCheck(tx, monitor.id, result)
    const state = {
      status: 'down' as const,
      consecutiveFailures: monitor.consecutiveFailures + 1,
      consecutiveSuccesses: 0,
      consecutiveSlow: 0,
      lastCheckedAt: monitor.lastCheckedAt,
      nextCheckAt: heartbeatDeadline(now, monitor.intervalMinutes, grace),
    }
    await saveCheckState(tx, monitor.id, state)
    const incident = await openIncident(tx, monitor.id, { kind: 'down', cause: result.errorMessage, statusCode: null, startedAt: now })
    if (incident) {
      await enqueueHeartbeatMissedEvent(tx, {
        orgId: monitor.orgId,
        monitor: toMonitor({ ...monitor, ...state }),
        incident,
        check: toCheck({ id: checkId, monitorId: monitor.id, ...result }),
        at: now,
      })
    }
    return true
  })
}

export interface HeartbeatDeadlinesOptions {
  db: Database
  clock: Clock
  log: FastifyBaseLogger
  /** Longest idle sleep: the loop sleeps until the earliest deadline it knows, and a new one is at least two minutes away. */
  pollMs?: number
  /** Missed deadlines recorded per claim before the loop looks again (one short transaction each). */
  batch?: number
}

/** The claimer of missed deadlines: a claiming loop whose claim records them one transaction at a time. */
export class HeartbeatDeadlines {
  private readonly loop: ClaimLoop<InFlight>

  constructor (options: HeartbeatDeadlinesOptions) {
    const pollMs = options.pollMs ?? 5000
    this.loop = new ClaimLoop({
      name: 'heartbeats',
      log: options.log,
      concurrency: options.batch ?? 50,
      pollMs,
      failureSleepMs: pollMs,
      claim: async (free) => {
        let recorded = 0
        while (recorded < free && !this.loop.stopping.aborted && await recordMissedHeartbeat(options.db, options.clock())) recorded++
        return recorded
      },
      idleSleepMs: async () => {
        const next = await nextHeartbeatDeadline(options.db)
        return next ? Math.max(0, Math.min(pollMs, next.getTime() - options.clock().getTime())) : pollMs
      },
    })
  }

  start (): void {
    this.loop.start()
  }

  /** Records every deadline missed by now (for tests); returns how many. */
  drain (): Promise<number> {
    return this.loop.drain()
  }

  async stop (): Promise<void> {
    await this.loop.stop(0)
  }
}
