-- A rollup row as the uptime read sends it (src/repositories/uptime.ts, parseRows):
-- `start ms,checks,failed,tracked ms,downtime ms,{buckets},{counts}`. Its one definition: the read calls it for
-- the hour rows it reads (a simple SQL function, inlined into the statement), and day rows keep its result in
-- row_text, which the covering index of day rows holds instead of the columns it is made of: writing a year's
-- arrays as text was most of the read's time in PostgreSQL (bench/results.md, issue #16). Hand-written:
-- drizzle-kit makes no functions and no INCLUDE.
CREATE FUNCTION rollup_row_text(start timestamptz, checks integer, failed_checks integer, tracked_ms integer,
  downtime_ms integer, hist_buckets smallint[], hist_counts integer[]) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN concat_ws(',', (date_part('epoch', start) * 1000)::bigint, checks, failed_checks, tracked_ms, downtime_ms,
    hist_buckets, hist_counts);
--> statement-breakpoint
-- A generated column takes immutable functions only. The text of whole numbers and their arrays and a time's
-- epoch depend on no setting (no time zone, no locale), so this one is.
CREATE FUNCTION rollup_day_text(start timestamptz, checks integer, failed_checks integer, tracked_ms integer,
  downtime_ms integer, hist_buckets smallint[], hist_counts integer[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN rollup_row_text(start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts);
--> statement-breakpoint
ALTER TABLE "monitor_rollups" ADD COLUMN "row_text" text GENERATED ALWAYS AS (case when granularity = 'day' then
    rollup_day_text(start, checks, failed_checks, tracked_ms, downtime_ms, hist_buckets, hist_counts) end) STORED;
--> statement-breakpoint
DROP INDEX "monitor_rollups_days_idx";
--> statement-breakpoint
CREATE INDEX "monitor_rollups_days_idx" ON "monitor_rollups" ("monitor_id", "start") INCLUDE ("row_text")
  WHERE "granularity" = 'day';
