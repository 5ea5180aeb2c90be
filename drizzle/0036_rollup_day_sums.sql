-- The day rows' sums beside their text, so that a status page's bars (dailyUptime in src/status-pages/repository.ts)
-- read 90 days of its monitors from this index alone rather than from a heap page per row. Hand-written: drizzle-kit
-- has no INCLUDE.
DROP INDEX "monitor_rollups_days_idx";--> statement-breakpoint
CREATE INDEX "monitor_rollups_days_idx" ON "monitor_rollups" ("monitor_id", "start")
  INCLUDE ("row_text", "tracked_ms", "downtime_ms", "maintenance_ms") WHERE "granularity" = 'day';
