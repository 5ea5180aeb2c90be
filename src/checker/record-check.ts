// Records a check with its consequences in one transaction: the check row, the monitor's new state, the
// incidents (down, degraded) it opens or resolves, as decideOutcome() rules, and the notification of each
// incident change (the outbox); and, when it saw a certificate near its expiry, the `tls.expiring` notification
// (tlsExpiryReminder() rules). The repositories only read and write rows.
import { randomUUID } from 'node:crypto'
import type { Database } from '../db/client.ts'
import type { IncidentKind } from '../domain/vocabulary.ts'
import { openIncident, resolveOpenIncident, type IncidentRow } from '../repositories/incidents.ts'
import {
  insertCheck, lockActiveMonitor, nthNewestCheck, saveCheckState, type CheckResult,
} from '../repositories/scheduling.ts'
import { toCheck } from '../repositories/checks.ts'
import { toMonitor } from '../repositories/monitors.ts'
import { enqueueIncidentEvent, enqueueTlsExpiringEvent } from '../repositories/notification-outbox.ts'
import { decideOutcome } from './outcome.ts'
import { tlsExpiryReminder } from './tls-expiry.ts'

/**
 * One transaction, so a crash never leaves the check, the status, the incident and its notification
 * disagreeing. The monitor row is locked first: a monitor paused or deleted meanwhile is left alone (false).
 */
export async function recordCheck (db: Database, monitorId: string, result: CheckResult, confirmDelayMs: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const monitor = await lockActiveMonitor(tx, monitorId)
    if (!monitor) return false
    const outcome = decideOutcome(monitor, result, confirmDelayMs)
    // The check's own time decides, not the wall clock's: a reminder is as of the check that saw the certificate.
    const reminder = result.tls
      ? tlsExpiryReminder({ expiresAt: monitor.tlsExpiresAt, toldDays: monitor.tlsExpiryToldDays }, result.tls.expiresAt, result.checkedAt)
      : null
    // The check's id is made here only when a notification will quote it; otherwise the column's default.
    const checkId = outcome.incident || outcome.degradation || reminder?.tell ? randomUUID() : undefined
    await insertCheck(tx, monitorId, result, checkId)
    const state = {
      status: outcome.status,
      consecutiveFailures: outcome.consecutiveFailures,
      consecutiveSuccesses: outcome.consecutiveSuccesses,
      consecutiveSlow: outcome.consecutiveSlow,
      lastCheckedAt: result.checkedAt,
      nextCheckAt: new Date(result.checkedAt.getTime() + outcome.nextCheckInMs),
      // The certificate as the latest HTTPS check saw it; a check that saw none (refused, timed out) leaves it.
      ...(result.tls && { tlsExpiresAt: result.tls.expiresAt, tlsIssuer: result.tls.issuer }),
      ...(reminder && { tlsExpiryToldDays: reminder.toldDays }),
    }
    await saveCheckState(tx, monitorId, state)
    const told = () => ({
      userId: monitor.userId,
      monitor: toMonitor({ ...monitor, ...state }),
      check: toCheck({ id: checkId!, monitorId, ...result }),
      at: result.checkedAt,
    })
    // Each incident change is told in this transaction (the outbox).
    const tell = async (incident: IncidentRow | undefined) => {
      if (incident) await enqueueIncidentEvent(tx, { ...told(), incident })
    }
    // The first failing check of this run: where a down incident starts, and where the degraded one it ends stops.
    const firstFailing = outcome.incident === 'open' ? await nthNewestCheck(tx, monitorId, outcome.consecutiveFailures) : undefined
    // Resolve before open: at most one incident of either kind is open (incidents_one_open_idx).
    if (outcome.degradation === 'resolve') {
      await tell(await resolveOpenIncident(tx, monitorId, firstFailing?.checkedAt ?? result.checkedAt, 'degraded'))
    }
    if (outcome.incident === 'resolve') await tell(await resolveOpenIncident(tx, monitorId, result.checkedAt, 'down'))
    if (firstFailing) await tell(await openIncident(tx, monitorId, incidentFrom('down', firstFailing)))
    if (outcome.degradation === 'open') {
      // The first slow check of this run; after a recovery from down, this check (it was down until now).
      const first = await nthNewestCheck(tx, monitorId, outcome.incident === 'resolve' ? 1 : outcome.consecutiveSlow)
      await tell(await openIncident(tx, monitorId, incidentFrom('degraded', first)))
    }
    if (reminder?.tell) await enqueueTlsExpiringEvent(tx, told())
    return true
  })
}

/** A new incident of `kind`, as the check that started it says: its error is the cause. */
function incidentFrom (kind: IncidentKind, first: { errorMessage: string | null, statusCode: number | null, checkedAt: Date }) {
  return { kind, cause: first.errorMessage ?? (kind === 'down' ? 'check failed' : 'check slower than allowed'), statusCode: first.statusCode, startedAt: first.checkedAt }
}
