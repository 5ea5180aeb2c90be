-- Each monitor keeps the start of its item of the monitor list's JSON (src/db/row-json.ts: id, name, url,
-- monitor_type, which only the API changes), so that a list is mostly the database joining stored texts instead of
-- escaping every row's strings in every request (bench/results.md, issue #17). A generated column takes immutable
-- functions only: to_json is stable, because a type's output may depend on settings; a text's JSON string depends
-- on none. PL/pgSQL, whose compiled body a session keeps: a LANGUAGE sql function that cannot be inlined (its body
-- is not immutable) is planned again by every statement that calls it. Hand-written: drizzle-kit makes no functions.
CREATE FUNCTION json_string_text(s text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN RETURN to_json(s)::text; END $$;
--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "list_head" text GENERATED ALWAYS AS ('{"id":"' || id::text || '","name":' || json_string_text(name) || ',"url":' || coalesce(json_string_text(url), 'null') || ',"monitor_type":"' || monitor_type::text || '"') STORED NOT NULL;