// Starts a checker (probes, heartbeats' missed deadlines) on an open database; stop() ends it cleanly.
import type { FastifyBaseLogger } from 'fastify'
import { systemClock, type Clock } from '../runtime/clock.ts'
import { dnsServers, type Config } from '../runtime/config.ts'
import type { Metrics } from '../runtime/metrics.ts'
import type { Database } from '../db/client.ts'
import { HeartbeatDeadlines } from './heartbeat-deadlines.ts'
import { createProber } from './probe.ts'
import { Checker } from './scheduler.ts'
import { checkStatus } from '../checks/outcome.ts'

export function startChecker (options: { config: Config, db: Database, log: FastifyBaseLogger, clock?: Clock, metrics?: Metrics }) {
  const { config, db, log, metrics } = options
  const clock = options.clock ?? systemClock
  // At debug level, a line every 10 s with this process's checks and their lateness (how workers share the load).
  const stats = { checks: 0, latenessMaxMs: 0, latenessSumMs: 0 }
  const statsTimer = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace'
    ? setInterval(() => {
      log.debug({ checks: stats.checks, latenessMaxMs: stats.latenessMaxMs, latenessMeanMs: Math.round(stats.latenessSumMs / Math.max(1, stats.checks)) }, 'checker stats')
      Object.assign(stats, { checks: 0, latenessMaxMs: 0, latenessSumMs: 0 })
    }, 10_000).unref()
    : undefined
  metrics?.checking(config.CHECKER_LOCATION)
  const checker = new Checker({
    db,
    clock,
    log,
    prober: createProber({ allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS, dnsServers: dnsServers(config) }),
    concurrency: config.CHECK_CONCURRENCY,
    confirmDelayMs: config.CHECK_CONFIRM_DELAY * 1000,
    location: config.CHECKER_LOCATION,
    onCheck: (statsTimer || metrics) && ((_monitor, latenessMs, result) => {
      metrics?.check(config.CHECKER_LOCATION, checkStatus(result), result.responseTimeMs, latenessMs)
      stats.checks++
      stats.latenessSumMs += latenessMs
      stats.latenessMaxMs = Math.max(stats.latenessMaxMs, latenessMs)
    }),
    onClaim: metrics && ((count) => metrics.claimed('checker', count)),
  })
  checker.start()
  // Heartbeats are pinged, not probed: their missed deadlines are claimed beside the checks.
  const heartbeats = new HeartbeatDeadlines({ db, clock, log })
  heartbeats.start()
  return {
    stop: async () => {
      clearInterval(statsTimer)
      await Promise.all([checker.stop(), heartbeats.stop()])
    },
  }
}
