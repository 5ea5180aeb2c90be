-- Time in maintenance is neither up nor down (api-contract section 14): rollups keep it apart in maintenance_ms,
-- and the row text (drizzle/0016_rollup_day_text.sql) carries it after downtime_ms. Hand-edited: the functions
-- change with the generated column and its covering index, in this order.
ALTER TABLE "monitor_rollups" ADD COLUMN "maintenance_ms" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DROP INDEX "monitor_rollups_days_idx";--> statement-breakpoint
ALTER TABLE "monitor_rollups" DROP COLUMN "row_text";--> statement-breakpoint
DROP FUNCTION rollup_day_text(timestamptz, integer, integer, integer, integer, smallint[], integer[]);--> statement-breakpoint
DROP FUNCTION rollup_row_text(timestamptz, integer, integer, integer, integer, smallint[], integer[]);--> statement-breakpoint
CREATE FUNCTION rollup_row_text(start timestamptz, checks integer, failed_checks integer, tracked_ms integer,
  downtime_ms integer, maintenance_ms integer, hist_buckets smallint[], hist_counts integer[]) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN concat_ws(',', (date_part('epoch', start) * 1000)::bigint, checks, failed_checks, tracked_ms, downtime_ms,
    maintenance_ms, hist_buckets, hist_counts);
--> statement-breakpoint
CREATE FUNCTION rollup_day_text(start timestamptz, checks integer, failed_checks integer, tracked_ms integer,
  downtime_ms integer, maintenance_ms integer, hist_buckets smallint[], hist_counts integer[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN rollup_row_text(start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts);
--> statement-breakpoint
ALTER TABLE "monitor_rollups" ADD COLUMN "row_text" text GENERATED ALWAYS AS (case when granularity = 'day' then
    rollup_day_text(start, checks, failed_checks, tracked_ms, downtime_ms, maintenance_ms, hist_buckets, hist_counts) end) STORED;--> statement-breakpoint
CREATE INDEX "monitor_rollups_days_idx" ON "monitor_rollups" ("monitor_id", "start") INCLUDE ("row_text")
  WHERE "granularity" = 'day';--> statement-breakpoint
CREATE INDEX "monitor_maintenance_ended_idx" ON "monitor_maintenance" USING btree ("ended_at") WHERE "monitor_maintenance"."ended_at" is not null;
