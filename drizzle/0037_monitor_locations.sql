CREATE TABLE "monitor_schedules" (
	"monitor_id" uuid NOT NULL,
	"location" text NOT NULL,
	"next_check_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "monitor_schedules_monitor_id_location_pk" PRIMARY KEY("monitor_id","location")
);
--> statement-breakpoint
DROP INDEX "monitors_due_idx";--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "location" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "locations" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "location_quorum" smallint;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "location_states" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "monitor_schedules" ADD CONSTRAINT "monitor_schedules_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "monitor_schedules_due_idx" ON "monitor_schedules" USING btree ("location","next_check_at");--> statement-breakpoint
CREATE INDEX "monitors_due_idx" ON "monitors" USING btree ("next_check_at") WHERE "monitors"."deleted_at" is null and "monitors"."is_active" and "monitors"."monitor_type" <> 'heartbeat' and cardinality("monitors"."locations") = 0;