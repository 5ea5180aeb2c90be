// Starts a checker (probes, scheduling, retention) on an open database; stop() ends it cleanly.
import type { FastifyBaseLogger } from 'fastify'
import { systemClock, type Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import { createProber } from './probe.ts'
import { startRetention } from './retention.ts'
import { Checker } from './scheduler.ts'

export function startChecker (options: { config: Config, db: Database, log: FastifyBaseLogger, clock?: Clock }) {
  const { config, db, log } = options
  const clock = options.clock ?? systemClock
  const checker = new Checker({
    db,
    clock,
    log,
    prober: createProber({ allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS }),
    concurrency: config.CHECK_CONCURRENCY,
    confirmDelayMs: config.CHECK_CONFIRM_DELAY * 1000,
  })
  checker.start()
  const stopRetention = startRetention({ db, clock, log, retentionDays: config.CHECK_RETENTION_DAYS })
  log.info({ concurrency: config.CHECK_CONCURRENCY }, 'checker started')
  return {
    stop: async () => {
      await Promise.all([checker.stop(), stopRetention()])
      log.info('checker stopped')
    },
  }
}
