CREATE TABLE "maintenance_windows" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"monitor_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"all_monitors" boolean DEFAULT false NOT NULL,
	"label_selector" text[] DEFAULT '{}'::text[] NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"rrule" text,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"mode" text DEFAULT 'mute' NOT NULL,
	"cancelled_at" timestamp (3) with time zone,
	"next_starts_at" timestamp (3) with time zone,
	"next_ends_at" timestamp (3) with time zone,
	"active" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "maintenance_windows_mode_check" CHECK ("maintenance_windows"."mode" in ('mute', 'pause')),
	CONSTRAINT "maintenance_windows_times_check" CHECK ("maintenance_windows"."starts_at" < "maintenance_windows"."ends_at")
);
--> statement-breakpoint
CREATE TABLE "monitor_maintenance" (
	"monitor_id" uuid NOT NULL,
	"window_id" uuid NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"ended_at" timestamp (3) with time zone,
	CONSTRAINT "monitor_maintenance_monitor_id_started_at_pk" PRIMARY KEY("monitor_id","started_at")
);
--> statement-breakpoint
ALTER TABLE "notification_channels" DROP CONSTRAINT "notification_channels_events_check";--> statement-breakpoint
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_type_check";--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "opening_told_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "in_maintenance" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "maintenance_paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "maintenance_windows" ADD CONSTRAINT "maintenance_windows_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitor_maintenance" ADD CONSTRAINT "monitor_maintenance_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "maintenance_windows_org_created_idx" ON "maintenance_windows" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "maintenance_windows_next_start_idx" ON "maintenance_windows" USING btree ("next_starts_at") WHERE "maintenance_windows"."cancelled_at" is null and not "maintenance_windows"."active";--> statement-breakpoint
CREATE INDEX "maintenance_windows_next_end_idx" ON "maintenance_windows" USING btree ("next_ends_at") WHERE "maintenance_windows"."active";--> statement-breakpoint
CREATE UNIQUE INDEX "monitor_maintenance_one_open_idx" ON "monitor_maintenance" USING btree ("monitor_id") WHERE "monitor_maintenance"."ended_at" is null;--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_events_check" CHECK ("notification_channels"."events" <@ array['incident.opened', 'incident.resolved', 'incident.acknowledged', 'monitor.degraded', 'heartbeat.missed', 'tls.expiring', 'maintenance.started', 'maintenance.ended', 'test']::text[]);--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_type_check" CHECK ("notification_events"."type" in ('incident.opened', 'incident.resolved', 'incident.acknowledged', 'monitor.degraded', 'heartbeat.missed', 'tls.expiring', 'maintenance.started', 'maintenance.ended', 'test', 'incident.reminder'));--> statement-breakpoint
-- The active window that covers a monitor, a `pause` one first; null when none does (hand-written: drizzle-kit does
-- not model functions). A window covers its monitor_ids, all monitors, or those its label selector's items all match.
CREATE FUNCTION "maintenance_window_of"(org uuid, monitor uuid, labels jsonb) RETURNS uuid LANGUAGE sql STABLE AS $$
  SELECT w.id FROM maintenance_windows w
  WHERE w.org_id = org AND w.active AND (
    w.all_monitors OR monitor = ANY(w.monitor_ids) OR (cardinality(w.label_selector) > 0 AND NOT EXISTS (
      SELECT 1 FROM unnest(w.label_selector) s WHERE NOT CASE WHEN position(':' in s) > 0
        THEN labels @> jsonb_build_object(split_part(s, ':', 1), substr(s, position(':' in s) + 1))
        ELSE labels ? s END)))
  ORDER BY w.mode = 'pause' DESC, w.next_starts_at, w.id
  LIMIT 1
$$;--> statement-breakpoint
-- A monitor made while a window that covers it is active is in maintenance from its first moment, whoever makes it.
CREATE FUNCTION "monitors_enter_maintenance"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  covering uuid := maintenance_window_of(NEW.org_id, NEW.id, NEW.labels);
BEGIN
  IF covering IS NOT NULL THEN
    NEW.in_maintenance := true;
    NEW.maintenance_paused := EXISTS (SELECT 1 FROM maintenance_windows WHERE id = covering AND mode = 'pause');
    IF NEW.maintenance_paused THEN NEW.next_check_at := NULL; END IF;
  END IF;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "monitors_enter_maintenance" BEFORE INSERT ON "monitors"
  FOR EACH ROW EXECUTE FUNCTION "monitors_enter_maintenance"();--> statement-breakpoint
CREATE FUNCTION "monitors_record_maintenance"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.in_maintenance THEN
    INSERT INTO monitor_maintenance (monitor_id, window_id, started_at)
    VALUES (NEW.id, maintenance_window_of(NEW.org_id, NEW.id, NEW.labels), NEW.created_at) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "monitors_record_maintenance" AFTER INSERT ON "monitors"
  FOR EACH ROW EXECUTE FUNCTION "monitors_record_maintenance"();
