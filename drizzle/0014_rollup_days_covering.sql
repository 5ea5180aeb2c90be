-- The uptime read of a year by day from this index alone (an index-only scan): the job writes a day of every
-- monitor at once, so a monitor's 365 day rows lie on 365 pages of the table but on ~15 of this index
-- (13 pages instead of 370, 7.7 ms -> 1.5 ms per read from the OS cache with 10,000 monitors, bench/results.md "Issue #16"). Day rows only (hour rows are
-- read 31 days at most): ~70 KiB per monitor a year. Hand-written: drizzle-kit has no INCLUDE.
CREATE INDEX "monitor_rollups_days_idx" ON "monitor_rollups" ("monitor_id", "start")
  INCLUDE ("checks", "failed_checks", "tracked_ms", "downtime_ms", "hist_buckets", "hist_counts")
  WHERE "granularity" = 'day';
