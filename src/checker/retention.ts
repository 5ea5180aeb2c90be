// Deletes old checks (CHECK_RETENTION_DAYS) in small batches, expired Idempotency-Keys and old audit events
// (AUDIT_RETENTION_DAYS), in the background.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import type { Database } from '../db/client.ts'
import { pruneAuditEvents } from '../audit/repository.ts'
import { deleteExpiredChecks } from '../repositories/checks.ts'
import { deleteExpiredIdempotencyKeys, IDEMPOTENCY_KEY_TTL_MS } from '../repositories/idempotency-keys.ts'

const BATCH = 1000
const EVERY_MS = 10 * 60_000

const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000)

/** Deletes expired checks, batch after batch; returns how many went. */
export async function pruneChecks (db: Database, now: Date, retentionDays: number): Promise<number> {
  const cutoff = daysBefore(now, retentionDays)
  let total = 0
  for (;;) {
    const deleted = await deleteExpiredChecks(db, cutoff, BATCH)
    total += deleted
    if (deleted < BATCH) return total
    // Let other queries through between batches (PGlite runs one statement at a time).
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Deletes the Idempotency-Keys older than their 24 hours (a repeat after that is a new request anyway). */
export async function pruneIdempotencyKeys (db: Database, now: Date): Promise<number> {
  return deleteExpiredIdempotencyKeys(db, new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS))
}

interface RetentionOptions { db: Database, clock: Clock, log: FastifyBaseLogger, retentionDays: number, auditRetentionDays: number }

/** Prunes checks, Idempotency-Keys and audit events once, logging what went. */
export async function pruneExpired (options: RetentionOptions): Promise<void> {
  const { db, clock, log } = options
  const checksDeleted = await pruneChecks(db, clock(), options.retentionDays)
  if (checksDeleted > 0) log.info({ deleted: checksDeleted }, 'retention: old checks deleted')
  const keysDeleted = await pruneIdempotencyKeys(db, clock())
  if (keysDeleted > 0) log.info({ deleted: keysDeleted }, 'retention: expired idempotency keys deleted')
  const eventsDeleted = await pruneAuditEvents(db, daysBefore(clock(), options.auditRetentionDays))
  if (eventsDeleted > 0) log.info({ deleted: eventsDeleted }, 'retention: old audit events deleted')
}

/** Runs pruneExpired now and every ten minutes until the returned stop function is called. */
export function startRetention (options: RetentionOptions): () => Promise<void> {
  return startPeriodic({ everyMs: EVERY_MS, firstAfterMs: 5_000, what: 'retention', log: options.log, task: async () => pruneExpired(options) })
}
