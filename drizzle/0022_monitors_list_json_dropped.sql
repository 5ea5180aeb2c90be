-- The monitor list is read from its columns and serialized by the API: its stored JSON (0017, 0018) goes, and
-- with it the functions only those columns called. Hand-written functions: drizzle-kit drops none.
ALTER TABLE "monitors" DROP COLUMN "list_head";--> statement-breakpoint
ALTER TABLE "monitors" DROP COLUMN "list_tail";--> statement-breakpoint
DROP FUNCTION "json_string_text"(text);--> statement-breakpoint
DROP FUNCTION "iso_time_text"(timestamptz);
