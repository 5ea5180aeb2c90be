CREATE TABLE "monitor_pauses" (
	"monitor_id" uuid NOT NULL,
	"paused_at" timestamp (3) with time zone NOT NULL,
	"resumed_at" timestamp (3) with time zone,
	CONSTRAINT "monitor_pauses_monitor_id_paused_at_pk" PRIMARY KEY("monitor_id","paused_at")
);
--> statement-breakpoint
CREATE TABLE "monitor_rollups" (
	"monitor_id" uuid NOT NULL,
	"granularity" text NOT NULL,
	"start" timestamp (3) with time zone NOT NULL,
	"checks" integer NOT NULL,
	"failed_checks" integer NOT NULL,
	"tracked_ms" integer NOT NULL,
	"downtime_ms" integer NOT NULL,
	"hist_buckets" smallint[] NOT NULL,
	"hist_counts" integer[] NOT NULL,
	CONSTRAINT "monitor_rollups_monitor_id_granularity_start_pk" PRIMARY KEY("monitor_id","granularity","start"),
	CONSTRAINT "monitor_rollups_granularity_check" CHECK ("monitor_rollups"."granularity" in ('hour', 'day'))
);
--> statement-breakpoint
CREATE TABLE "rollup_progress" (
	"granularity" text PRIMARY KEY NOT NULL,
	"built_until" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "rollup_progress_granularity_check" CHECK ("rollup_progress"."granularity" in ('hour', 'day'))
);
--> statement-breakpoint
ALTER TABLE "monitor_pauses" ADD CONSTRAINT "monitor_pauses_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitor_rollups" ADD CONSTRAINT "monitor_rollups_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "monitor_pauses_resumed_idx" ON "monitor_pauses" USING btree ("resumed_at");--> statement-breakpoint
CREATE INDEX "monitor_rollups_granularity_start_idx" ON "monitor_rollups" USING btree ("granularity","start");--> statement-breakpoint
CREATE INDEX "incidents_resolved_idx" ON "incidents" USING btree ("resolved_at");--> statement-breakpoint
-- Pauses recorded by the database on every change of is_active, whoever makes it (hand-written: drizzle-kit
-- does not model triggers). The time is the row's own: updated_at of the change, created_at of a new row.
CREATE FUNCTION "monitors_record_pauses"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT NEW.is_active THEN
      INSERT INTO monitor_pauses (monitor_id, paused_at) VALUES (NEW.id, NEW.created_at) ON CONFLICT DO NOTHING;
    END IF;
  ELSIF OLD.is_active AND NOT NEW.is_active THEN
    INSERT INTO monitor_pauses (monitor_id, paused_at) VALUES (NEW.id, NEW.updated_at) ON CONFLICT DO NOTHING;
  ELSIF NEW.is_active AND NOT OLD.is_active THEN
    UPDATE monitor_pauses SET resumed_at = greatest(paused_at, NEW.updated_at) WHERE monitor_id = NEW.id AND resumed_at IS NULL;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "monitors_record_pauses" AFTER INSERT OR UPDATE OF "is_active" ON "monitors"
  FOR EACH ROW EXECUTE FUNCTION "monitors_record_pauses"();--> statement-breakpoint
-- The monitors paused before this migration: paused since their last change (the best time known).
INSERT INTO "monitor_pauses" ("monitor_id", "paused_at") SELECT "id", "updated_at" FROM "monitors" WHERE NOT "is_active";
