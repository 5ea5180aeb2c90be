// The background work of a process with CHECKER on, side by side: checks, deliveries, reminders, maintenance window
// edges, status pages' custom domain checks and subscriber mail, retention, uptime rollups and the checker's location.
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from './db/client.ts'
import { systemClock, type Clock } from './runtime/clock.ts'
import { dnsServers, type Config } from './runtime/config.ts'
import type { Metrics } from './runtime/metrics.ts'
import { startChecker } from './checker/index.ts'
import { startRetention } from './checker/retention.ts'
import { startRollups } from './checker/rollups.ts'
import { startDeliveryWorker } from './notifications/delivery-worker.ts'
import { startReminders } from './notifications/reminders.ts'
import { startMaintenanceEdges } from './maintenance/edges.ts'
import { startCoverageSweep } from './locations/coverage.ts'
import { startLocationPresence } from './locations/presence.ts'
import { startDomainChecks } from './status-pages/domains.ts'
import { startSubscriberMailer } from './status-pages/mailer.ts'

/** The connections the jobs of one process use (on PostgreSQL): enough for the checker's group commits and the rest. */
export const jobsPoolSize = (checkConcurrency: number) => Math.min(20, Math.max(4, Math.ceil(checkConcurrency / 10)))

export function startJobs (options: { config: Config, db: Database, log: FastifyBaseLogger, clock?: Clock, metrics?: Metrics }) {
  const { config, db, log, metrics } = options
  const clock = options.clock ?? systemClock
  const checker = startChecker({ config, db, log, clock, metrics })
  // The checker's built-in location, listed for every organization while this process runs.
  const stopPresence = startLocationPresence({ db, clock, log, code: config.CHECKER_LOCATION })
  const stopCoverage = startCoverageSweep({ db, clock, log })
  // Every checker process delivers the notifications that checks (and the API's pauses and deletes) write.
  const deliveries = startDeliveryWorker({ config, db, log, clock, metrics })
  const stopRetention = startRetention({ db, clock, log, retentionDays: config.CHECK_RETENTION_DAYS, auditRetentionDays: config.AUDIT_RETENTION_DAYS })
  const stopRollups = startRollups({ db, clock, log })
  const stopReminders = startReminders({ db, clock, log })
  const stopMaintenance = startMaintenanceEdges({ db, clock, log })
  const stopDomainChecks = startDomainChecks({ db, clock, log, servers: dnsServers(config) })
  // Subscribers' mail has its own queue and transport: it never holds up a delivery.
  const mailer = startSubscriberMailer({ config, db, log, clock })
  log.info({ concurrency: config.CHECK_CONCURRENCY, location: config.CHECKER_LOCATION }, 'checker started')
  return {
    stop: async () => {
      await Promise.all([
        checker.stop(), deliveries.stop(), stopRetention(), stopRollups(), stopReminders(), stopMaintenance(), stopDomainChecks(), mailer.stop(), stopPresence(), stopCoverage(),
      ])
      log.info('checker stopped')
    },
  }
}
