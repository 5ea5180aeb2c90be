// Records a check with its consequences in one transaction: the check row, the monitor's new state and
// the incident it opens or resolves, as decideOutcome() rules. The repositories only read and write rows.
import type { Database } from '../db/client.ts'
import { openIncident, resolveOpenIncident } from '../repositories/incidents.ts'
import {
  insertCheck, lockActiveMonitor, nthNewestCheck, saveCheckState, type CheckResult,
} from '../repositories/scheduling.ts'
import { decideOutcome } from './outcome.ts'

/**
 * One transaction, so a crash never leaves the check, the status and the incident disagreeing. The
 * monitor row is locked first: a monitor paused or deleted meanwhile is left alone (false).
 */
export async function recordCheck (db: Database, monitorId: string, result: CheckResult, confirmDelayMs: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const monitor = await lockActiveMonitor(tx, monitorId)
    if (!monitor) return false
    await insertCheck(tx, monitorId, result)
    const outcome = decideOutcome(monitor, result.isUp, confirmDelayMs)
    await saveCheckState(tx, monitorId, {
      status: outcome.status,
      consecutiveFailures: outcome.consecutiveFailures,
      consecutiveSuccesses: outcome.consecutiveSuccesses,
      lastCheckedAt: result.checkedAt,
      nextCheckAt: new Date(result.checkedAt.getTime() + outcome.nextCheckInMs),
    })
    if (outcome.incident === 'open') {
      // The incident starts at the first failing check of this run of failures.
      const first = await nthNewestCheck(tx, monitorId, outcome.consecutiveFailures)
      await openIncident(tx, monitorId, { cause: first.errorMessage ?? 'check failed', statusCode: first.statusCode, startedAt: first.checkedAt })
    } else if (outcome.incident === 'resolve') {
      await resolveOpenIncident(tx, monitorId, result.checkedAt)
    }
    return true
  })
}
