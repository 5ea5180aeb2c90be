// An agent's work (api-contract section 17): its assignments, the monitors of its location with what their probes need
// (secrets included, so only its own location's), and its batches of results, each location's check of a slot recorded once.
import { recordLockedChecks, type CheckToRecord } from '../checks/record-check.ts'
import { atomically, type Database } from '../db/client.ts'
import { insertCheckRows, type CheckResult, type MonitorRow } from '../monitors/scheduling.ts'
import { recordedSlots, slotKey } from '../repositories/checks.ts'
import { isFresh, QUORUM_GRACE_MS, slotStartAt } from './quorum.ts'
import { lockAssignedMonitors, monitorsAtLocation, touchAgent, type LocationRow } from './repository.ts'
import type { AgentResult, AgentResultsReceipt } from './schema.ts'

/** The monitors the agent's location checks. */
export async function assignmentsOf (db: Database, agent: LocationRow): Promise<MonitorRow[]> {
  return monitorsAtLocation(db, agent.orgId!, agent.code)
}

/** Any request of an agent is a sign of its life; one every few seconds is enough, so most write nothing. */
export async function agentSeen (db: Database, agent: LocationRow, now: Date): Promise<void> {
  if (agent.lastSeenAt === null || now.getTime() - agent.lastSeenAt.getTime() >= SEEN_EVERY_MS) await touchAgent(db, agent.id, now)
}

const SEEN_EVERY_MS = 5000

/** When the location last checked the monitor, as its location state says; undefined: never. */
function lastCheckedMs (monitor: MonitorRow, code: string): number | undefined {
  const at = monitor.locationStates.find((state) => state.location === code)?.last_checked_at
  return at ? Date.parse(at) : undefined
}

/**
 * Records a batch of the agent's results in one transaction. A check of a slot its location has already is a duplicate;
 * one older than the location's latest, or out of the quorum's fresh window, goes to the history without moving the status.
 */
export async function recordAgentResults (db: Database, agent: LocationRow, results: readonly AgentResult[], now: Date, confirmDelayMs: number): Promise<AgentResultsReceipt> {
  const receipt = { recorded: 0, late: 0, duplicates: 0, unassigned: 0 }
  await atomically(db, async (tx) => {
    // Locked first: a batch sent twice at once waits here, then finds the other's checks by their slots.
    const assigned = await lockAssignedMonitors(tx, agent.orgId!, agent.code, [...new Set(results.map((result) => result.monitor_id))])
    const slotted = results.flatMap((result) => {
      const monitor = assigned.get(result.monitor_id)
      if (!monitor) {
        receipt.unassigned++
        return []
      }
      const checkedAt = new Date(result.checked_at)
      // No check is of a slot that starts after it ran (a clock's drift aside): that slot's own check would be lost.
      const named = Math.min(Date.parse(result.slot_at), checkedAt.getTime() + QUORUM_GRACE_MS)
      return [{ result, monitor, checkedAt, slotAt: slotStartAt(monitor.createdAt, monitor.intervalMinutes, new Date(named)) }]
    }).sort((a, b) => a.checkedAt.getTime() - b.checkedAt.getTime())
    const seen = await recordedSlots(tx, agent.code, slotted.map(({ monitor, slotAt }) => ({ monitorId: monitor.id, slotAt })))
    const counted: CheckToRecord[] = []
    const late: Array<{ monitorId: string, result: CheckResult }> = []
    const latest = new Map<string, number | undefined>()
    for (const { result, monitor, checkedAt, slotAt } of slotted) {
      const key = slotKey(monitor.id, slotAt)
      if (seen.has(key)) {
        receipt.duplicates++
        continue
      }
      seen.add(key)
      const check: CheckResult = {
        isUp: result.is_up,
        degraded: result.degraded,
        statusCode: result.status_code,
        responseTimeMs: result.response_time_ms,
        errorMessage: result.error_message,
        checkedAt,
        location: agent.code,
        slotAt,
      }
      const previous = latest.has(monitor.id) ? latest.get(monitor.id) : lastCheckedMs(monitor, agent.code)
      if ((previous !== undefined && checkedAt.getTime() <= previous) || !isFresh(monitor.intervalMinutes, checkedAt, now)) {
        late.push({ monitorId: monitor.id, result: check })
      } else {
        counted.push({ monitorId: monitor.id, result: check, confirmDelayMs })
        latest.set(monitor.id, checkedAt.getTime())
      }
    }
    await recordLockedChecks(tx, assigned, counted)
    await insertCheckRows(tx, late)
    Object.assign(receipt, { recorded: counted.length + late.length, late: late.length })
  })
  return receipt
}
