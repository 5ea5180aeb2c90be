-- Each monitor keeps the rest of its item of the monitor list's JSON too (src/db/row-json.ts: status, is_active,
-- interval_minutes, last_checked_at), so that a list is the database joining two stored texts per monitor instead
-- of writing a time and three values into every row of every request (bench/results.md, issue #17). The checker's
-- and the pings' updates recompute it (they write its columns): a few cheap expressions, not the head's escaping.
-- A generated column takes immutable functions only: to_char is stable, because some of its pictures depend on
-- the locale; this one (toISOString's) depends on no setting, and `at time zone 'UTC'` makes it independent of the
-- session's TimeZone. PL/pgSQL, as json_string_text (0017). Hand-written function: drizzle-kit makes none.
CREATE FUNCTION iso_time_text(t timestamptz) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN RETURN to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'); END $$;
--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "list_tail" text GENERATED ALWAYS AS (',"status":"' || status::text || '","is_active":' || case is_active when true then 'true' when false then 'false' end || ',"interval_minutes":' || interval_minutes::text || ',"last_checked_at":' || coalesce('"' || iso_time_text(last_checked_at) || '"', 'null') || '}') STORED NOT NULL;
