// The checker loop: claim due monitors in batches, probe them concurrently, record the results in group commits.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../runtime/clock.ts'
import type { Database } from '../db/client.ts'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { ClaimLoop, type InFlight } from '../runtime/claim-loop.ts'
import { claimDueMonitors, nextDueAt, releaseMonitors, type CheckResult, type ClaimedMonitor } from '../monitors/scheduling.ts'
import { groupCommit } from '../runtime/group-commit.ts'
import { pause } from '../runtime/pause.ts'
import { recordChecks, type CheckToRecord } from '../checks/record-check.ts'
import { DEFAULT_LOCATION } from '../domain/locations.ts'
import { MONITOR_DEFAULTS } from '../domain/monitor-types.ts'
import type { CheckTarget, Prober } from './probe.ts'

export interface CheckerOptions {
  db: Database
  prober: Prober
  clock: Clock
  log: FastifyBaseLogger
  concurrency: number
  confirmDelayMs: number
  /** The code of the built-in location this checker serves (CHECKER_LOCATION); `default` when not given. */
  location?: string
  /** Longest sleep of an idle loop: new monitors are noticed within it. */
  pollMs?: number
  /** How far ahead of their due time monitors are claimed; each probe still starts at its due time. */
  claimAheadMs?: number
  /** How long stop() lets in-flight probes finish (and be recorded) before abandoning them. */
  stopGraceMs?: number
  /** How long stop() keeps trying to give back the leases of abandoned checks while the database is away. */
  releaseWaitMs?: number
  /** Hears each recorded check with its lateness (probe start minus due time). */
  onCheck?: (monitor: ClaimedMonitor, latenessMs: number, result: Omit<CheckResult, 'checkedAt'>) => void
  onClaim?: (count: number) => void
}

// A lease outlives the longest probe (60 s) with room to record; a crashed worker's monitors are claimed again once it expires.
const LEASE_MS = 90_000
// While stopping, a write the database refused is tried again this often (it may have just come back).
const STOPPING_RETRY_MS = 250
// Results that finish close together share one transaction, and all the results in flight fit one batch. A result at
// an idle writer waits GATHER_MS for others, which moves neither its lateness nor its lease; not while every slot is
// taken, where waiting would make claim, probe and record go in lockstep (bench/results.md).
const CHECK_COMMITS = { maxBatch: 250, maxInFlight: 1 }
const GATHER_MS = 200
// Claims take the monitors due in the next CLAIM_AHEAD_MS at once, so claims and wake-ups cost no statement per monitor
// (bench/results.md); the loop claims again CLAIM_MARGIN_MS before the end of what it holds.
const CLAIM_AHEAD_MS = 250
const CLAIM_MARGIN_MS = 50
// A probe starts at its due time rounded up to the next START_TICK_MS (never before it), so that the checks due in a
// tick share one timer and their connections' events share turns of the event loop.
export const START_TICK_MS = 100

interface Probing extends InFlight { monitor: ClaimedMonitor, abort: AbortController }

export class Checker {
  private readonly loop: ClaimLoop<Probing>
  /** Records one check, in the transaction of the results that finish close to it; false when its monitor was paused or deleted. */
  private readonly record: (check: CheckToRecord) => Promise<boolean>
  /** Until then nothing more is due: the last claim took everything up to CLAIM_MARGIN_MS after it. */
  private quietUntil = 0

  private readonly options: CheckerOptions
  private readonly location: string

  constructor (options: CheckerOptions) {
    this.options = options
    this.location = options.location ?? DEFAULT_LOCATION
    const pollMs = options.pollMs ?? 1000
    const aheadMs = options.claimAheadMs ?? CLAIM_AHEAD_MS
    const marginMs = Math.min(CLAIM_MARGIN_MS, aheadMs)
    this.record = groupCommit((checks: CheckToRecord[]) => recordChecks(options.db, checks), {
      ...CHECK_COMMITS,
      gatherMs: () => this.loop.inFlight.size >= options.concurrency ? 0 : GATHER_MS,
    })
    this.loop = new ClaimLoop<Probing>({
      name: 'checker',
      log: options.log,
      concurrency: options.concurrency,
      pollMs,
      failureSleepMs: pollMs * 2,
      onClaim: options.onClaim,
      claim: async (free) => {
        const now = this.options.clock().getTime()
        if (now < this.quietUntil) return 0
        const horizon = now + aheadMs
        const claimed = await claimDueMonitors(this.options.db, this.location, new Date(horizon), free, LEASE_MS) // the lease runs from the horizon
        // Fewer than it could: it took all that is due up to the horizon (SKIP LOCKED leaves out only others' claims).
        this.quietUntil = claimed.length < free ? horizon - marginMs : 0
        for (const monitor of claimed) this.launch(monitor)
        return claimed.length
      },
      // Until a claim would find something: the margin before the next due monitor, or the end of the quiet time.
      idleSleepMs: async () => {
        const now = this.options.clock().getTime()
        if (now < this.quietUntil) return Math.min(pollMs, this.quietUntil - now)
        const next = await nextDueAt(this.options.db, this.location)
        return next ? Math.max(0, Math.min(pollMs, next.getTime() - marginMs - now)) : pollMs
      },
    })
  }

  start (): void {
    this.loop.start()
  }

  tick (): Promise<number> {
    this.quietUntil = 0 // asked from outside the loop: monitors may have been added or rescheduled meanwhile
    return this.loop.tick()
  }

  /** Claims, probes and records everything due now; resolves when all of it is recorded (for tests). */
  async runOnce (): Promise<number> {
    const count = await this.tick()
    await this.loop.settled()
    return count
  }

  private launch (monitor: ClaimedMonitor): void {
    const abort = new AbortController()
    const stopping = this.loop.stopping
    const work = (async () => {
      // Claimed ahead: wait for the tick after the due time (stop() aborts the wait only once abandoned).
      const dueMs = monitor.dueAt.getTime()
      if (dueMs > this.options.clock().getTime()) {
        const startMs = Math.ceil(dueMs / START_TICK_MS) * START_TICK_MS
        // Again while early: a timer counts from the event loop's cached time, which can be a millisecond behind the clock.
        for (;;) {
          const earlyMs = startMs - this.options.clock().getTime()
          if (earlyMs <= 0 || abort.signal.aborted) break
          await pause(earlyMs, abort.signal)
        }
      }
      if (abort.signal.aborted) return
      const startedAt = this.options.clock()
      const result = await this.options.prober.probe(checkTarget(monitor), abort.signal)
      if (abort.signal.aborted) return
      for (let attempt = 0; ; attempt++) {
        let recorded: boolean
        try {
          recorded = await this.record({
            monitorId: monitor.id,
            result: { ...result, checkedAt: startedAt, location: this.location, ...(monitor.slotAt && { slotAt: monitor.slotAt }) },
            confirmDelayMs: this.options.confirmDelayMs,
            ...(monitor.claimedBy === 'location' && { leaseUntil: monitor.leaseUntil }),
          })
        } catch (err) {
          // The database is away: keep the result and try again while the lease holds, so an outage does not cost the check;
          // otherwise the lease expires and the monitor is checked again.
          const delayMs = stopping.aborted ? STOPPING_RETRY_MS : Math.min(5000, 500 * 2 ** attempt)
          if (!isDatabaseUnavailable(err) || this.options.clock().getTime() + delayMs >= monitor.leaseUntil.getTime()) {
            this.options.log.error({ err, monitorId: monitor.id }, 'could not record a check')
            return
          }
          if (attempt === 0) this.options.log.warn({ err, monitorId: monitor.id }, 'checker: database unavailable, will retry recording a check')
          // Abandoned by stop(): it gives the lease back instead.
          if (!await this.retryPause(delayMs, abort.signal)) return
          continue
        }
        // Paused or deleted while its probe ran: nothing was recorded.
        if (recorded) this.options.onCheck?.(monitor, startedAt.getTime() - monitor.dueAt.getTime(), result)
        return
      }
    })()
    this.loop.track(monitor.id, work, { monitor, abort })
  }

  /** Stops claiming, lets in-flight probes finish for a grace, then abandons the rest and gives their leases back. */
  async stop (): Promise<void> {
    const abandoned = await this.loop.stop(this.options.stopGraceMs ?? 3000)
    for (const probe of abandoned) probe.abort.abort()
    await Promise.all(abandoned.map((p) => p.done))
    await this.release(abandoned.map((p) => p.monitor))
    await this.options.prober.close()
  }

  /** Gives the leases back, trying again for a while when the database is away (it may be back in a moment). */
  private async release (monitors: ClaimedMonitor[]): Promise<void> {
    if (monitors.length === 0) return
    const giveUpAt = Date.now() + (this.options.releaseWaitMs ?? 2000)
    for (;;) {
      try {
        await releaseMonitors(this.options.db, this.location, monitors, this.options.clock())
        return
      } catch (err) {
        if (!isDatabaseUnavailable(err) || Date.now() + STOPPING_RETRY_MS > giveUpAt) {
          this.options.log.warn({ err, monitors: monitors.length }, 'checker: could not release abandoned monitors; their leases will expire')
          return
        }
        await pause(STOPPING_RETRY_MS)
      }
    }
  }

  /** Waits before a recording is tried again; false when the check was abandoned meanwhile. */
  private async retryPause (ms: number, abandoned: AbortSignal): Promise<boolean> {
    const stopping = this.loop.stopping
    await pause(ms, stopping.aborted ? abandoned : AbortSignal.any([abandoned, stopping]))
    return !abandoned.aborted
  }
}

/** What the probe of a claimed monitor asks, by its type. */
function checkTarget (monitor: ClaimedMonitor): CheckTarget {
  const { url, timeoutSeconds } = monitor
  switch (monitor.monitorType) {
    case 'tcp': return { type: 'tcp', url, timeoutSeconds }
    // The API gives every dns monitor a record type; one without would mean the default's.
    case 'dns': return { type: 'dns', url, timeoutSeconds, recordType: monitor.dnsRecordType ?? MONITOR_DEFAULTS.dns_record_type, expected: monitor.dnsExpected }
    // The probe's target has the row's field names: the row is the target.
    case 'site': return { ...monitor, type: 'site', url }
  }
}
