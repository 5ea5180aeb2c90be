-- Each monitor keeps its item of the monitor list's JSON (src/db/row-json.ts), so that a list is the database
-- joining stored texts instead of writing every row's fields out in every request (bench/results.md, issue #17).
-- A generated column takes immutable functions only: to_char and to_json are stable, because some of their
-- arguments depend on settings (a time zone, a locale's month names, a type's output). These uses depend on none:
-- a time at the time zone 'UTC' written with numeric fields only, and the JSON string of a text. Hand-written:
-- drizzle-kit makes no functions.
CREATE FUNCTION json_time_text(t timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
--> statement-breakpoint
CREATE FUNCTION json_string_text(s text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN to_json(s)::text;
--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "list_json" text GENERATED ALWAYS AS ('{"id":"' || id::text || '","name":' || json_string_text(name) || ',"url":' || coalesce(json_string_text(url), 'null') || ',"monitor_type":"' || monitor_type::text || '","status":"' || status::text || '","is_active":' || case is_active when true then 'true' when false then 'false' end || ',"interval_minutes":' || interval_minutes::text || ',"last_checked_at":' || coalesce('"' || json_time_text(last_checked_at) || '"', 'null') || '}') STORED NOT NULL;