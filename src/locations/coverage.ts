// A monitor's coverage when its locations fall silent (api-contract section 17): no check comes to decide it, so a
// job beside the checker (src/jobs.ts) looks every 15 seconds for monitors with a location past the stale time and
// tells `location.coverage_lost` once; the check that brings the quorum back tells `location.coverage_restored`.
import type { FastifyBaseLogger } from 'fastify'
import { atomically, type Database } from '../db/client.ts'
import { toMonitor } from '../monitors/presenter.ts'
import { enqueueCoverageEvent } from '../repositories/notification-outbox.ts'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import { coverageTransition, locationStatesOf, QUORUM_GRACE_MS, quorumPolicyOf, quorumVerdict } from './quorum.ts'
import { lockMonitorsWithSilentLocations, setLocationCoverage } from './repository.ts'

const SWEEP = { everyMs: 15_000, batch: 500 } as const

/** Decides the coverage of monitors whose locations went silent; returns how many lost it. */
export async function sweepSilentLocations (db: Database, now: Date): Promise<number> {
  let lost = 0
  for (let afterId: string | undefined = '00000000-0000-0000-0000-000000000000'; afterId !== undefined;) {
    afterId = await atomically(db, async (tx) => {
      const monitors = await lockMonitorsWithSilentLocations(tx, now, QUORUM_GRACE_MS, afterId!, SWEEP.batch)
      for (const monitor of monitors) {
        const verdict = quorumVerdict(quorumPolicyOf(monitor), locationStatesOf(monitor.locationStates), now)
        const { coverage, event } = coverageTransition(monitor.locationCoverage, verdict)
        if (coverage === monitor.locationCoverage) continue
        await setLocationCoverage(tx, monitor.id, coverage)
        const row = { ...monitor, locationCoverage: coverage }
        if (event) await enqueueCoverageEvent(tx, { orgId: monitor.orgId, monitor: toMonitor(row), check: null, at: now, type: event, silent: verdict.silent })
        lost++
      }
      // A full batch may have more behind it, by id.
      return monitors.length === SWEEP.batch ? monitors.at(-1)!.id : undefined
    })
  }
  return lost
}

/** Sweeps every 15 seconds until the returned function is called. */
export function startCoverageSweep (options: { db: Database, clock: Clock, log: FastifyBaseLogger }): () => Promise<void> {
  return startPeriodic({
    everyMs: SWEEP.everyMs,
    what: 'location coverage',
    log: options.log,
    task: async () => sweepSilentLocations(options.db, options.clock()),
  })
}
